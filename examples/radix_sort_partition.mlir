// A least-significant-digit radix sort of 32-bit unsigned keys (held in i32, compared as unsigned) on the ranking
// primitive: 8-bit digits, 4 passes, each one stable partition of the keys into 256 buckets by their digit:
//
//   let sort_pass (ks: []u32) (shift: u32) =
//     let (_, ks') = partition 256 (\k -> (k >> shift) & 255) ks    -- stable: equal digits keep their order
//     in ks'
//   in loop ks for p < 4 do sort_pass ks (8 * p)
//
// On a device each pass is `soac.partition`'s tiles (lowering/strategies/partition.py): a kernel counts each tile's
// keys per digit, the device scan turns the counts into places, a kernel ranks each tile's keys in local memory
// (ballot-matched warps on NVIDIA) and moves them. Compare examples/radix_sort.mlir, the same sort with a 16-wide
// look-back scan of one-hot counters per key.
// numpy: np.sort(xs.view(np.uint32)).view(np.int32).
//
//   soac-run examples/radix_sort_partition.mlir --input '[5,-1,7,300,0,7]'
//   result #0 : tensor<?xi32> = [  0   5   7   7 300  -1]
//
// ==
// input { [5, -1, 7, 300, 0, 7] }
// output { [0, 5, 7, 7, 300, -1] }
// input { [3, 3, 3] }
// output { [3, 3, 3] }
// input { [-2147483648, 2147483647, -1, 0, 1] }
// output { [0, 1, 2147483647, -2147483648, -1] }
// input { [42] }
// output { [42] }
// input { empty([0]i32) }
// output { empty([0]i32) }
// random input { [100003]i32 }
// structure { scf.for 1 soac.partition 1 }

func.func @main(%xs: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %passes = arith.constant 4 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %bits = arith.constant 8 : i32
  %mask = arith.constant 255 : i32
  %sorted = scf.for %p = %c0 to %passes step %c1 iter_args(%ks = %xs) -> (tensor<?xi32>) {
    %p32 = arith.index_cast %p : index to i32
    %shift = arith.muli %p32, %bits : i32
    %counts, %next = soac.partition %n buckets 256 (%ks : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%k: i32) {
      %shifted = arith.shrui %k, %shift : i32
      %digit = arith.andi %shifted, %mask : i32
      %bucket = arith.index_cast %digit : i32 to index
      soac.yield %bucket, %k : index, i32
    }
    scf.yield %next : tensor<?xi32>
  }
  func.return %sorted : tensor<?xi32>
}
