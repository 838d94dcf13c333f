// Weighted histogram: bins[is[j]] += ws[j] in f32 (a compare-and-swap loop: OpenCL has no float atomics).
func.func @main(%is: tensor<?xi32>, %ws: tensor<?xf32>, %bins: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xi32>
  %z = arith.constant 0.0 : f32
  %h = soac.hist %n (%is, %ws : tensor<?xi32>, tensor<?xf32>) into(%bins : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32>
      combine(%a: f32, %b: f32) {
    %s = arith.addf %a, %b : f32
    soac.yield %s : f32
  } lambda(%i: i32, %w: f32) {
    %j = arith.index_cast %i : i32 to index
    soac.yield %j, %w : index, f32
  }
  func.return %h : tensor<?xf32>
}
