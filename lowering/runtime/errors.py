"""The errors of running a lowered program on an OpenCL device (`soac.lowering.runtime` raises them)."""

from __future__ import annotations

from soac.interpreter.errors import SoacRuntimeError


class OpenCLRuntimeError(Exception):
    """A failure while running a program on an OpenCL device."""


class OpenCLBuildError(OpenCLRuntimeError):
    """The generated OpenCL C did not compile; the message holds the build log and where the source was saved."""


class AllocationError(OpenCLRuntimeError):
    """A device buffer could not be allocated; the message says how much was asked."""


class ProgramError(OpenCLRuntimeError, SoacRuntimeError):
    """The program failed a run-time check, as in the interpreter: `file:line:col: 'op.name': problem`."""


class SizeMismatchError(ProgramError):
    """Array sizes that a SOAC needs to agree do not (caught before any launch that uses them)."""
