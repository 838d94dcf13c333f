"""The error of a soac program that the lowering cannot handle (its message names the op and its place)."""


class LoweringError(Exception):
    """A soac program that soac-to-kernel cannot lower, with the op's location in the message."""
