"""Every pattern an op's `Canonicalization` trait names is registered by `soac.dialect.canonicalization`, so that
`canonicalize` finds it without the dialect importing any pass."""

from __future__ import annotations

from soac import dialect as soac
from soac.dialect.base import CANONICALIZATION_PATTERNS
from xdsl.pattern_rewriter import RewritePattern


def test_every_named_pattern_is_registered() -> None:
    named = 0
    for op in soac.Soac.operations:
        trait = op.get_trait(soac.Canonicalization)
        if trait is None:
            continue
        for name in trait.patterns:
            assert name in CANONICALIZATION_PATTERNS, f"{op.name} names {name}, which soac.dialect.canonicalization lacks"
        patterns = trait.get_patterns(op)
        assert all(isinstance(p, RewritePattern) for p in patterns)
        named += len(patterns)
    assert named >= 7
