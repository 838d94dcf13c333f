"""soac.lang: SOAC programs written in Python, traced into soac IR, compiled once and run on numpy arrays.

A deep embedding (Accelerate's approach, seed 003): inside a function decorated
with `@jit`, arrays and scalars are symbolic; the combinators below and Python's
operators on them build soac IR as they run, Python lambdas become the SOACs'
lambda regions, and the program is fused, flattened, lowered to OpenCL and
cached. See README.md ("Python") and examples/python/.

    import numpy as np
    import soac.lang as sl

    @sl.jit
    def dot(xs, ys):
        return sl.sum(sl.map(lambda x, y: x * y, xs, ys))

    dot(np.ones(4, np.float32), np.arange(4, dtype=np.float32))   # 6.0

`sl.device_put(x)` keeps an array on the device; jitted functions called with device arrays return device arrays
(`soac.lang.device`).
"""

from soac.lang.cache import STATS as cache_stats
from soac.lang.construction import (
    arange,
    array,
    broadcast_to,
    concatenate,
    expand_dims,
    full,
    full_like,
    ones,
    ones_like,
    squeeze,
    stack,
    zeros,
    zeros_like,
)
from soac.lang.control import (
    abs,
    atan,
    atan2,
    ceil,
    clip,
    cond,
    cos,
    erf,
    exp,
    exp2,
    floor,
    isnan,
    log,
    log2,
    loop,
    maximum,
    minimum,
    power,
    rsqrt,
    shift_right_logical,
    sin,
    sqrt,
    square,
    tan,
    tanh,
    where,
    while_loop,
)
from soac.lang.device import DeviceArray, device_put, transfer_counts
from soac.lang.dtypes import DType, bool_, float32, float64, index, int8, int16, int32, int64, uint8, uint16, uint32, uint64
from soac.lang.errors import SoacTraceError, SoacTypeError, SymbolicBoolError
from soac.lang.gathers import bincount, filter, pad, searchsorted, take
from soac.lang.indexing import compress
from soac.lang.jit import JitFunction, jit
from soac.lang.methods import install as _install_methods
from soac.lang.products import dot, matmul
from soac.lang.reductions import all, any, argmax, argmin, max, mean, min, prod, std, sum, var
from soac.lang.soacs import (
    copy,
    cumsum,
    flatten,
    hist,
    iota,
    reduce,
    replicate,
    reshape,
    reverse,
    roll,
    rotate,
    scan,
    scatter,
    transpose,
    unflatten,
)
from soac.lang.soacs import map_ as map
from soac.lang.sorting import argsort, partition, sort, sort_by_key
from soac.lang.stencil import Window, stencil
from soac.lang.values import Array, Scalar

i8, i16, i32, i64, f32, f64 = int8, int16, int32, int64, float32, float64
u8, u16, u32, u64 = uint8, uint16, uint32, uint64

_install_methods()  # the operators and methods of Scalar, Array and DType (soac.lang.methods)

__all__ = [
    "Array",
    "DType",
    "DeviceArray",
    "JitFunction",
    "Scalar",
    "SoacTraceError",
    "SoacTypeError",
    "SymbolicBoolError",
    "Window",
    "abs",
    "all",
    "any",
    "arange",
    "argmax",
    "argmin",
    "argsort",
    "array",
    "atan",
    "atan2",
    "bincount",
    "bool_",
    "broadcast_to",
    "cache_stats",
    "ceil",
    "clip",
    "compress",
    "concatenate",
    "cond",
    "copy",
    "cos",
    "cumsum",
    "device_put",
    "dot",
    "erf",
    "exp",
    "exp2",
    "expand_dims",
    "f32",
    "f64",
    "filter",
    "flatten",
    "float32",
    "float64",
    "floor",
    "full",
    "full_like",
    "hist",
    "i8",
    "i16",
    "i32",
    "i64",
    "index",
    "int8",
    "int16",
    "int32",
    "int64",
    "iota",
    "isnan",
    "jit",
    "log",
    "log2",
    "loop",
    "map",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "ones",
    "ones_like",
    "pad",
    "partition",
    "power",
    "prod",
    "reduce",
    "replicate",
    "reshape",
    "reverse",
    "roll",
    "rotate",
    "rsqrt",
    "scan",
    "scatter",
    "searchsorted",
    "shift_right_logical",
    "sin",
    "sort",
    "sort_by_key",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "std",
    "stencil",
    "sum",
    "take",
    "tan",
    "tanh",
    "transfer_counts",
    "transpose",
    "u8",
    "u16",
    "u32",
    "u64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "unflatten",
    "var",
    "where",
    "while_loop",
    "zeros",
    "zeros_like",
]
