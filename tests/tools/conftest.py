"""Running the command-line tools in the test process: a new Python per command spends more time importing xDSL,
numpy and pyopencl than the command runs, and shares no compiled program with the next one.

`run_tool(main, args, cwd=..., stdin=...)` calls a tool's console-script entry (`soac.tools.soac_run.main`, which
wraps the command in `run_cleanly` as the installed script does) with `sys.argv`, the standard streams, the working
directory and the environment set as a subprocess would have them, and returns what `subprocess.run` would: the exit
status and the text printed. A few tests still start the real scripts, so the entry points themselves stay covered.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path


class _TextStream(io.TextIOWrapper):
    """A text stream over bytes, as `sys.stdout` is: tools that write data files to `-` use its `buffer`."""

    def __init__(self) -> None:
        super().__init__(io.BytesIO(), encoding="utf-8", write_through=True)

    def text(self) -> str:
        self.flush()
        return self.buffer.getvalue().decode("utf-8", errors="replace")  # pyright: ignore[reportAttributeAccessIssue]

    def isatty(self) -> bool:
        return False


def run_tool(
    main: Callable[[], None],
    args: Sequence[str | Path],
    cwd: Path | None = None,
    stdin: str | None = None,
    environment: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`main` run as `PROGRAM ARGS...` in `cwd` with `stdin` and `environment` (default: this process's)."""
    argv = [main.__module__.rpartition(".")[2].replace("_", "-"), *(str(a) for a in args)]
    out, err = _TextStream(), _TextStream()
    saved_environment = dict(os.environ)
    status = 0
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.chdir(cwd or os.getcwd()))
        saved = sys.argv, sys.stdin, sys.stdout, sys.stderr
        given = io.TextIOWrapper(io.BytesIO((stdin or "").encode()), encoding="utf-8")
        sys.argv, sys.stdin, sys.stdout, sys.stderr = argv, given, out, err
        if environment is not None:
            os.environ.clear()
            os.environ.update(environment)
        try:
            main()
        except SystemExit as exit:
            status = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
            if isinstance(exit.code, str):
                print(exit.code, file=err)
        finally:
            sys.argv, sys.stdin, sys.stdout, sys.stderr = saved
            if environment is not None:
                os.environ.clear()
                os.environ.update(saved_environment)
    return subprocess.CompletedProcess(argv, status, out.text(), err.text())
