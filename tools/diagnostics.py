"""Turning errors into one clean diagnostic and a non-zero exit, never a traceback."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import NoReturn

from soac.lowering.conversion.errors import LoweringError
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError


def fail(message: str, code: int = 1) -> NoReturn:
    print(message.rstrip(), file=sys.stderr)
    sys.exit(code)


def _pipeline_syntax_error(text: str) -> str:
    """xDSL's pass pipeline syntax error as one diagnostic: location, pipeline, caret, message."""
    lines = text.rstrip().splitlines()
    if lines and lines[0].startswith("Error parsing pass pipeline specification"):
        lines = lines[1:]
    if not lines:
        return "error: invalid pass pipeline"
    message = lines[-1].lstrip()
    indent = lines[-1][: len(lines[-1]) - len(message)]
    lines[-1] = f"{indent}invalid pass pipeline: {message[:1].lower()}{message[1:]}"
    return "\n".join(lines)


def run_cleanly(main: Callable[[], None]) -> None:
    """Run a command-line entry point, reporting errors without a Python traceback.

    Set SOAC_TRACEBACK=1 to see the traceback of an internal error.
    """
    try:
        main()
    except ParseError as error:
        fail(str(error))
    except DiagnosticException as error:
        notes = "".join(f"\n{note}" for note in getattr(error, "__notes__", ()))
        fail(f"{error}{notes}")
    except ArgSpecParseError as error:
        fail(_pipeline_syntax_error(str(error)))
    except BrokenPipeError:
        # The reader of the output went away (`soac-run ... | head -1`): stop quietly, as Python's docs advise.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    except (FileNotFoundError, IsADirectoryError, PermissionError) as error:
        fail(f"error: {error.strerror}: {error.filename}")
    except (ValueError, LoweringError) as error:
        fail(f"error: {error}")
    except KeyboardInterrupt:
        fail("interrupted", 130)
    except Exception as error:
        if os.environ.get("SOAC_TRACEBACK"):
            raise
        fail(f"error: {type(error).__name__}: {error}\n(internal error; set SOAC_TRACEBACK=1 for the traceback)")
