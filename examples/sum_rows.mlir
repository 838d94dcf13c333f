// Sum of rows: a map whose lambda reduces each row of a 2-D array.
//
//   map (\row -> reduce (+) 0 row) xss
//
// Result: numpy's xss.sum(axis=1). `soac-opt -p soac-flatten` turns the nest
// into a segmented reduction (soac.segred).
//
//   soac-run examples/sum_rows.mlir --input '[[1,2,3],[4,5,6]]'
//   result #0 : tensor<?xf32> = [ 6. 15.]
//
// ==
// input { [[1, 2, 3], [4, 5, 6]] }
// output { [6f32, 15f32] }
// input { empty([2][0]f32) }
// output { [0f32, 0f32] }
// random input { [1000][1000]f32 }
// structure { soac.segred 1 soac.reduce 1 soac.threshold 1 }
// structure pipeline() { soac.map 1 soac.reduce 1 }

func.func @main(%xss: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xf32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32

  // The map's lambda gets one row (tensor<?xf32>) and yields its sum (f32):
  // the results form an array of n sums.
  %sums = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?xf32> lambda(%row: tensor<?xf32>) {
    %s = soac.reduce commutative %m (%row : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%a: f32, %b: f32) {
      %c = arith.addf %a, %b : f32
      soac.yield %c : f32
    }
    soac.yield %s : f32
  }
  func.return %sums : tensor<?xf32>
}
