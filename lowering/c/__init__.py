"""C printing shared by every C-like emitter: `arith`, `math` and `scf` as C statements and expressions.

`printer.CPrinter` prints the scalar code and structured control flow of a function body; an emitter (OpenCL C in
`soac.lowering.opencl.emitter`, CUDA C would be another) subclasses it with its type names, its builtins and the
printers of its own ops (the kernel dialect's).
"""
