// A 3x3 box blur of an image: each pixel becomes the mean of its 3x3
// neighbourhood, pixels beyond the edge clamped to the nearest edge pixel.
//
//   soac-run examples/blur.mlir --input '[[9,0,0],[0,0,0],[0,0,9]]'
//   result #0 : tensor<?x?xf32> = [[4. 2. 0.]
//                                  [2. 2. 2.]
//                                  [0. 2. 4.]]
//
// ==
// input { [[9f32, 0f32, 0f32], [0f32, 0f32, 0f32], [0f32, 0f32, 9f32]] }
// output { [[4f32, 2f32, 0f32], [2f32, 2f32, 2f32], [0f32, 2f32, 4f32]] }
// input { [[1f32]] }
// output { [[1f32]] }
// random input { [300][200]f32 }
// structure { soac.stencil 1 }

func.func @main(%img: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %img, %c0 : tensor<?x?xf32>
  %m = tensor.dim %img, %c1 : tensor<?x?xf32>
  %ninth = arith.constant 0.111111112 : f32
  // The lambda gets the neighbourhood row by row: north-west, north, north-east, west, centre, ...
  %blurred = soac.stencil (%n, %m) window [3, 3] clamp (%img : tensor<?x?xf32>) -> tensor<?x?xf32>
      lambda(%nw: f32, %no: f32, %ne: f32, %we: f32, %ce: f32, %ea: f32, %sw: f32, %so: f32, %se: f32) {
    %s1 = arith.addf %nw, %no : f32
    %s2 = arith.addf %s1, %ne : f32
    %s3 = arith.addf %s2, %we : f32
    %s4 = arith.addf %s3, %ce : f32
    %s5 = arith.addf %s4, %ea : f32
    %s6 = arith.addf %s5, %sw : f32
    %s7 = arith.addf %s6, %so : f32
    %s8 = arith.addf %s7, %se : f32
    %mean = arith.mulf %s8, %ninth : f32
    soac.yield %mean : f32
  }
  func.return %blurred : tensor<?x?xf32>
}
