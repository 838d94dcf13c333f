"""What every SOAC with lambdas shares: the `soac.yield` that ends a lambda, and the trait naming an op's
canonicalisation patterns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from xdsl.dialects.utils import AbstractYieldOperation
from xdsl.ir import Attribute, Operation
from xdsl.irdl import irdl_op_definition, lazy_traits_def
from xdsl.pattern_rewriter import RewritePattern
from xdsl.traits import HasCanonicalizationPatternsTrait, IsTerminator, OpTrait, Pure, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException


def runs_lambdas(op: Operation) -> bool:
    """True for a SOAC whose regions are lambdas ending in `soac.yield` (every such op declares
    `SingleBlockImplicitTerminator(YieldOp)`)."""
    return op.has_trait(SingleBlockImplicitTerminator(YieldOp))


class InLambda(OpTrait):
    """The op's parent is a SOAC that runs lambdas (as `HasParent`, without naming every op: a new SOAC needs
    only `SingleBlockImplicitTerminator(YieldOp)`)."""

    def verify(self, op: Operation) -> None:
        parent = op.parent_op()
        if parent is None or runs_lambdas(parent):
            return
        raise VerifyException(f"'{op.name}' expects parent op to be a SOAC with lambdas, not '{parent.name}'")


@irdl_op_definition
class YieldOp(AbstractYieldOperation[Attribute]):
    """Returns the values of a lambda to the SOAC that runs it."""

    name = "soac.yield"

    traits = lazy_traits_def(lambda: (IsTerminator(), Pure(), InLambda()))


CANONICALIZATION_PATTERNS: dict[str, type[RewritePattern]] = {}
"""The canonicalisation patterns of the dialect by name (`canonicalization.py` registers them; the package imports it
after every op, so an op names its patterns without importing them)."""

PatternT = TypeVar("PatternT", bound=type[RewritePattern])


def canonicalization_pattern(pattern: PatternT) -> PatternT:
    """Registers a pattern that an op's `Canonicalization` trait may name."""
    CANONICALIZATION_PATTERNS[pattern.__name__] = pattern
    return pattern


@dataclass(frozen=True)
class Canonicalization(HasCanonicalizationPatternsTrait):
    """The op's patterns, by their names in `soac.dialect.canonicalization`."""

    patterns: tuple[str, ...] = ()

    def get_patterns(self, op: type[Operation]) -> tuple[RewritePattern, ...]:
        return tuple(CANONICALIZATION_PATTERNS[name]() for name in self.patterns)

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return ()
