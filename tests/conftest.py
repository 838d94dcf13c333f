"""Settings for the whole test suite."""

import os

# Every device buffer starts as 0xA5 bytes (soac.lowering.runtime.Program.alloc): a kernel that reads what
# nothing wrote fails the same way on every run instead of passing on leftovers of an earlier call.
os.environ.setdefault("SOAC_POISON", "1")
