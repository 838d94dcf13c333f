// The map->scan program of the thesis (Implementing Map-Scan Fusion in the
// Futhark Compiler, section 5 and the "SimpleScanomap" benchmark):
//
//   let ys = map (\x -> 3 * x + 1) xs
//   in scan (+) 0 ys
//
// Result: the inclusive prefix sums of 3*x+1, i.e. numpy's np.cumsum(3 * xs + 1).
// `soac-opt -p soac-fuse` turns the pair into one soac.scanomap.
//
//   soac-run examples/map_scan.mlir --input '[1,2,3,4]'
//   result #0 : tensor<?xi32> = [ 4 11 21 34]
//
// ==
// input { [1, 2, 3, 4] }
// output { [4, 11, 21, 34] }
// input { empty([0]i32) }
// output { empty([0]i32) }
// random input { [1000000]i32 }
// structure { soac.scanomap 1 soac.map 0 soac.scan 0 }
// structure pipeline() { soac.map 1 soac.scan 1 }

func.func @main(%xs: tensor<?xi32>) -> tensor<?xi32> {
  // Every SOAC takes its width explicitly: here the length of xs.
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>

  // ys = map (\x -> 3 * x + 1) xs
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %three = arith.constant 3 : i32
    %one = arith.constant 1 : i32
    %x3 = arith.muli %x, %three : i32
    %y = arith.addi %x3, %one : i32
    soac.yield %y : i32
  }

  // scan (+) 0 ys: the inclusive prefix sum.
  %zero = arith.constant 0 : i32
  %sums = soac.scan %n (%ys : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  }
  func.return %sums : tensor<?xi32>
}
