// filter and partition with a scan and partial scatters (seed 003: Accelerate's `filter` on `permute` with
// `ignore`; Futhark's `filter` and `partition`):
//
//   let flags   = map (\x -> i32 (x > 0)) xs
//   let offsets = scan (+) 0 flags               -- kept rows up to and including each row
//   let count   = reduce (+) 0 flags
//   let kept    = scatter (replicate n 0) (map2 (\f o -> if f == 1 then o - 1 else -1) flags offsets) xs
//   let parts   = scatter (replicate n 0)
//                   (map3 (\i f o -> if f == 1 then o - 1 else count + i - o) (iota n) flags offsets) xs
//   in (take count kept, parts)
//
// A row scattered to -1 is dropped: `kept` holds the positive elements in order, and `parts` the positive
// elements, then the others, each in their original order (a stable partition).
// numpy: xs[xs > 0], np.concatenate([xs[xs > 0], xs[xs <= 0]]).
//
//   soac-run examples/partition.mlir --input '[3,-1,4,0,-5,9]'
//   result #0 : tensor<?xi32> = [3 4 9]
//   result #1 : tensor<?xi32> = [ 3  4  9 -1  0 -5]
//
// ==
// input { [3, -1, 4, 0, -5, 9] }
// output { [3, 4, 9] [3, 4, 9, -1, 0, -5] }
// input { [-1, -2] }
// output { empty([0]i32) [-1, -2] }
// input { empty([0]i32) }
// output { empty([0]i32) empty([0]i32) }
// random input { [100000]i32 }
// structure pipeline(soac-fuse) { soac.scatter 2 soac.map 0 soac.scan 0 soac.reduce 0 }

func.func @main(%xs: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32

  // flags = map (\x -> i32 (x > 0)) xs
  %flags = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %positive = arith.cmpi sgt, %x, %zero : i32
    %f = arith.extui %positive : i1 to i32
    soac.yield %f : i32
  }

  // offsets = scan (+) 0 flags; count = reduce (+) 0 flags
  %offsets = soac.scan %n (%flags : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  }
  %count = soac.reduce %n (%flags : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%c: i32, %d: i32) {
    %t = arith.addi %c, %d : i32
    soac.yield %t : i32
  }

  // kept: the positive rows at o - 1, the others dropped (index -1)
  %fresh = soac.replicate %n, %zero : i32 -> tensor<?xi32>
  %kept = soac.scatter %n (%flags, %offsets, %xs : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) into(%fresh : tensor<?xi32>)
      -> tensor<?xi32> lambda(%f: i32, %o: i32, %x: i32) {
    %minus_one = arith.constant -1 : i32
    %at = arith.subi %o, %one : i32
    %keep = arith.cmpi eq, %f, %one : i32
    %target = arith.select %keep, %at, %minus_one : i32
    %i = arith.index_cast %target : i32 to index
    soac.yield %i, %x : index, i32
  }
  %kept_count = arith.index_cast %count : i32 to index
  %filtered = soac.slice %kept[%c0 : %kept_count] : tensor<?xi32> -> tensor<?xi32>

  // parts: the positive rows at o - 1, the row i of the others at count + i - o
  %iota = soac.iota %n : tensor<?xi32>
  %fresh2 = soac.replicate %n, %zero : i32 -> tensor<?xi32>
  %parts = soac.scatter %n (%iota, %flags, %offsets, %xs : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>)
      into(%fresh2 : tensor<?xi32>) -> tensor<?xi32> lambda(%row: i32, %g: i32, %p: i32, %y: i32) {
    %first = arith.subi %p, %one : i32
    %later = arith.addi %count, %row : i32
    %second = arith.subi %later, %p : i32
    %is_kept = arith.cmpi eq, %g, %one : i32
    %target2 = arith.select %is_kept, %first, %second : i32
    %j = arith.index_cast %target2 : i32 to index
    soac.yield %j, %y : index, i32
  }
  func.return %filtered, %parts : tensor<?xi32>, tensor<?xi32>
}
