// Horizontal scanomap-scanomap fusion, as in the thesis' benchmark (section 7,
// Listing 14): two scans over the same input with no dependency between them.
//
//   let sums = scanomap (+) (\x -> x * x) 0 inp         -- running sum of squares
//   let maxs = scanomap max (\x -> x) i32.lowest inp    -- running maximum
//   in (sums, maxs)
//
// Results: np.cumsum(inp * inp) and np.maximum.accumulate(inp).
// `soac-opt -p soac-fuse` fuses the two into one soac.scanomap with a pair
// operator, so that `inp` is read once.
//
//   soac-run examples/scanomap_scanomap.mlir --input '[3,-1,4,1,-5,9]'
//   result #0 : tensor<?xi32> = [  9  10  26  27  52 133]
//   result #1 : tensor<?xi32> = [3 3 4 4 4 9]
//
// ==
// input { [3, -1, 4, 1, -5, 9] }
// output { [9, 10, 26, 27, 52, 133] [3, 3, 4, 4, 4, 9] }
// input { empty([0]i32) }
// output { empty([0]i32) empty([0]i32) }
// random input { [1000000]i32 }
// structure { soac.scanomap 1 }
// structure pipeline() { soac.scanomap 2 }

func.func @main(%inp: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %inp, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %lowest = arith.constant -2147483648 : i32

  // The lambda maps each element (x -> x*x); the combine operator scans the mapped values.
  %sums = soac.scanomap %n (%inp : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%x: i32) {
    %sq = arith.muli %x, %x : i32
    soac.yield %sq : i32
  }

  // Same width, same input, independent of %sums: a candidate for horizontal fusion.
  %maxs = soac.scanomap %n (%inp : tensor<?xi32>) neutral(%lowest : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %m = arith.maxsi %a, %b : i32
    soac.yield %m : i32
  } lambda(%x: i32) {
    soac.yield %x : i32
  }
  func.return %sums, %maxs : tensor<?xi32>, tensor<?xi32>
}
