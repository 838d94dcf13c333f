// The bench's 5-point stencil: %steps Jacobi sweeps u' = (north + south + east + west) / 4, zero outside the
// grid (`constant`, as torch's conv2d padding and CuPy's mode='constant'). One sweep is %steps = 1.
func.func @main(%grid: tensor<?x?xf32>, %steps: i64) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %grid, %c0 : tensor<?x?xf32>
  %m = tensor.dim %grid, %c1 : tensor<?x?xf32>
  %count = arith.index_cast %steps : i64 to index
  %zero = arith.constant 0.0 : f32
  %quarter = arith.constant 0.25 : f32
  %result = scf.for %t = %c0 to %count step %c1 iter_args(%u = %grid) -> (tensor<?x?xf32>) {
    %next = soac.stencil (%n, %m) window [3, 3] constant(%zero : f32) (%u : tensor<?x?xf32>) -> tensor<?x?xf32>
        lambda(%nw: f32, %no: f32, %ne: f32, %we: f32, %ce: f32, %ea: f32, %sw: f32, %so: f32, %se: f32) {
      %ns = arith.addf %no, %so : f32
      %ew = arith.addf %ea, %we : f32
      %sum = arith.addf %ns, %ew : f32
      %mean = arith.mulf %sum, %quarter : f32
      soac.yield %mean : f32
    }
    scf.yield %next : tensor<?x?xf32>
  }
  func.return %result : tensor<?x?xf32>
}
