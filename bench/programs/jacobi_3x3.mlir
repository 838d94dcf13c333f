// The bench's 3x3 stencil: %steps sweeps of the binomial smoothing [1 2 1; 2 4 2; 1 2 1] / 16, zero outside the
// grid. One sweep is %steps = 1.
func.func @main(%grid: tensor<?x?xf32>, %steps: i64) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %grid, %c0 : tensor<?x?xf32>
  %m = tensor.dim %grid, %c1 : tensor<?x?xf32>
  %count = arith.index_cast %steps : i64 to index
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant 0.0625 : f32
  %w2 = arith.constant 0.125 : f32
  %w4 = arith.constant 0.25 : f32
  %result = scf.for %t = %c0 to %count step %c1 iter_args(%u = %grid) -> (tensor<?x?xf32>) {
    %next = soac.stencil (%n, %m) window [3, 3] constant(%zero : f32) (%u : tensor<?x?xf32>) -> tensor<?x?xf32>
        lambda(%nw: f32, %no: f32, %ne: f32, %we: f32, %ce: f32, %ea: f32, %sw: f32, %so: f32, %se: f32) {
      %c1a = arith.addf %nw, %ne : f32
      %c1b = arith.addf %sw, %se : f32
      %corners = arith.addf %c1a, %c1b : f32
      %e1 = arith.addf %no, %so : f32
      %e2 = arith.addf %we, %ea : f32
      %edges = arith.addf %e1, %e2 : f32
      %a = arith.mulf %corners, %w1 : f32
      %b = arith.mulf %edges, %w2 : f32
      %c = arith.mulf %ce, %w4 : f32
      %ab = arith.addf %a, %b : f32
      %abc = arith.addf %ab, %c : f32
      soac.yield %abc : f32
    }
    scf.yield %next : tensor<?x?xf32>
  }
  func.return %result : tensor<?x?xf32>
}
