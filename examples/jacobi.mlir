// Jacobi iterations of the 2-D Laplace equation: a 5-point stencil applied
// %steps times in a loop, each point becoming the mean of its four
// neighbours; the border holds the value 0 outside the grid (boundary
// constant). The loop's two arrays (this step's and the next) are the only
// ones allocated: each step's result reuses the buffer of the step before.
//
//   soac-run examples/jacobi.mlir --input '[[0,0,0],[0,8,0],[0,0,0]]' --input 1
//   result #0 : tensor<?x?xf32> = [[0. 2. 0.]
//                                  [2. 0. 2.]
//                                  [0. 2. 0.]]
//
// ==
// input { [[0f32, 0f32, 0f32], [0f32, 8f32, 0f32], [0f32, 0f32, 0f32]] 1i64 }
// output { [[0f32, 2f32, 0f32], [2f32, 0f32, 2f32], [0f32, 2f32, 0f32]] }
// input { [[0f32, 0f32, 0f32], [0f32, 8f32, 0f32], [0f32, 0f32, 0f32]] 2i64 }
// output { [[1f32, 0f32, 1f32], [0f32, 2f32, 0f32], [1f32, 0f32, 1f32]] }
// input { [[1f32, 2f32], [3f32, 4f32]] 0i64 }
// output { [[1f32, 2f32], [3f32, 4f32]] }
// input { empty([0][3]f32) 3i64 }
// output { empty([0][3]f32) }
// structure { soac.stencil 1 scf.for 1 }

func.func @main(%grid: tensor<?x?xf32>, %steps: i64) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %grid, %c0 : tensor<?x?xf32>
  %m = tensor.dim %grid, %c1 : tensor<?x?xf32>
  %count = arith.index_cast %steps : i64 to index
  %zero = arith.constant 0.0 : f32
  %quarter = arith.constant 0.25 : f32
  %result = scf.for %t = %c0 to %count step %c1 iter_args(%u = %grid) -> (tensor<?x?xf32>) {
    // The corners of the 3x3 window (%nw, %ne, %sw, %se) and the centre are not used, so not read.
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
