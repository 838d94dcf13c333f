// A 1-D moving average over a window of 5: each element becomes the mean of
// itself and its two neighbours on each side, the edges mirrored (-1 reads 1).
//
//   map (\i -> (xs[m(i-2)] + ... + xs[m(i+2)]) / 5) (iota n)
//
//   soac-run examples/moving_average.mlir --input '[5,0,0,0,5]'
//   result #0 : tensor<?xf32> = [1. 1. 2. 1. 1.]
//
// ==
// input { [5f32, 0f32, 0f32, 0f32, 5f32] }
// output { [1f32, 1f32, 2f32, 1f32, 1f32] }
// input { [1f32, 2f32] }
// output { [1.4f32, 1.6f32] }
// random input { [100000]f32 }
// structure { soac.stencil 1 }

func.func @main(%xs: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %fifth = arith.constant 0.2 : f32
  // The lambda sees the window xs[i-2], ..., xs[i+2] of each element i.
  %avg = soac.stencil (%n) window [5] mirror (%xs : tensor<?xf32>) -> tensor<?xf32>
      lambda(%a: f32, %b: f32, %c: f32, %d: f32, %e: f32) {
    %ab = arith.addf %a, %b : f32
    %abc = arith.addf %ab, %c : f32
    %abcd = arith.addf %abc, %d : f32
    %sum = arith.addf %abcd, %e : f32
    %mean = arith.mulf %sum, %fifth : f32
    soac.yield %mean : f32
  }
  func.return %avg : tensor<?xf32>
}
