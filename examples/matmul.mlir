// Matrix multiplication as map-map-redomap over the transposed right operand:
//
//   let bt = transpose b
//   in map (\arow -> map (\bcol -> redomap (+) (*) 0 arow bcol) bt) a
//
// For a (n x k) and b (k x m), the result is the n x m matrix a @ b. The inner
// redomap fuses the elementwise products into the sum (a dot product).
//
//   soac-run examples/matmul.mlir --input '[[1,2],[3,4]]' '[[5,6],[7,8]]'
//   result #0 : tensor<?x?xf32> = [[19. 22.]
//                                  [43. 50.]]
//
// ==
// input { [[1, 2], [3, 4]] [[5, 6], [7, 8]] }
// output { [[19f32, 22f32], [43f32, 50f32]] }
// input { empty([0][3]f32) [[1, 2], [3, 4], [5, 6]] }
// output { empty([0][2]f32) }
// random input { [64][48]f32 [48][80]f32 }
// structure { soac.segred 1 soac.segmap 1 soac.threshold 1 }
// structure pipeline(soac-fuse) { soac.transpose 1 soac.map 2 soac.redomap 1 }

func.func @main(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xf32>
  %k = tensor.dim %a, %c1 : tensor<?x?xf32>
  %m = tensor.dim %b, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32

  // The rows of bt are the columns of b.
  %bt = soac.transpose %b [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>

  %c = soac.map %n (%a : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%arow: tensor<?xf32>) {
    %crow = soac.map %m (%bt : tensor<?x?xf32>) -> tensor<?xf32> lambda(%bcol: tensor<?xf32>) {
      // dot(arow, bcol) = reduce (+) 0 (map (*) arow bcol); the k of a must match the k of b
      // (checked when the redomap runs).
      %dot = soac.redomap commutative %k (%arow, %bcol : tensor<?xf32>, tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%s: f32, %t: f32) {
        %sum = arith.addf %s, %t : f32
        soac.yield %sum : f32
      } lambda(%x: f32, %y: f32) {
        %p = arith.mulf %x, %y : f32
        soac.yield %p : f32
      }
      soac.yield %dot : f32
    }
    soac.yield %crow : tensor<?xf32>
  }
  func.return %c : tensor<?x?xf32>
}
