// The radix sort of examples/radix_sort_partition.mlir (32-bit unsigned keys held in i32, 8-bit digits, 4 passes)
// as Onesweep does it: one histogram of all four digit places first, then each pass one stable partition given
// its place's counts:
//
//   let hists = hist (+) 0 1024 (map (\r -> let p = r % 4 in p * 256 + digit p ks[r / 4]) (iota (4 * n))) 1
//   in loop ks for p < 4 do (partition 256 (digit p) ks given hists[256 * p : 256 * (p + 1)]).1
//
// On a GPU (a target whose scan has forward progress) the histogram is one kernel that reads each key once (its
// iota and ones are computed, not stored) and each pass is one kernel: tiles take tickets, rank their keys in local
// memory and find where each digit's keys of the tiles before them go by decoupled look-back
// (lowering/strategies/partition.py). numpy: np.sort(xs.view(np.uint32)).view(np.int32).
//
//   soac-run examples/radix_sort_onesweep.mlir --input '[5,-1,7,300,0,7]'
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
// structure { soac.hist 1 scf.for 1 soac.partition 1 }

func.func @main(%xs: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %passes = arith.constant 4 : index
  %digits = arith.constant 256 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %bits = arith.constant 8 : i32
  %mask = arith.constant 255 : i32
  %places = arith.constant 4 : i64

  // hists[p * 256 + d]: the keys whose digit p is d, for the four places, in one pass over the keys.
  %rows = arith.muli %n, %passes : index
  %all_bins = arith.muli %digits, %passes : index
  %r = soac.iota %rows : tensor<?xi64>
  %ones = soac.replicate %rows, %one : i32 -> tensor<?xi32>
  %empty = soac.replicate %all_bins, %zero : i32 -> tensor<?xi32>
  %hists = soac.hist %rows (%r, %ones : tensor<?xi64>, tensor<?xi32>) into(%empty : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32>
      combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%row: i64, %w: i32) {
    %key_at = arith.divui %row, %places : i64
    %place = arith.remui %row, %places : i64
    %i = arith.index_cast %key_at : i64 to index
    %k = soac.index %xs[%i] : tensor<?xi32> -> i32
    %p32 = arith.trunci %place : i64 to i32
    %shift = arith.muli %p32, %bits : i32
    %shifted = arith.shrui %k, %shift : i32
    %digit = arith.andi %shifted, %mask : i32
    %p = arith.index_cast %place : i64 to index
    %d = arith.index_cast %digit : i32 to index
    %first = arith.muli %p, %digits : index
    %bin = arith.addi %first, %d : index
    soac.yield %bin, %w : index, i32
  }

  %sorted = scf.for %p = %c0 to %passes step %c1 iter_args(%ks = %xs) -> (tensor<?xi32>) {
    %p32 = arith.index_cast %p : index to i32
    %shift = arith.muli %p32, %bits : i32
    %lo = arith.muli %p, %digits : index
    %hi = arith.addi %lo, %digits : index
    %known = soac.slice %hists[%lo : %hi] : tensor<?xi32> -> tensor<?xi32>
    %counts, %next = soac.partition %n buckets 256 counts(%known : tensor<?xi32>) (%ks : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%k: i32) {
      %shifted = arith.shrui %k, %shift : i32
      %digit = arith.andi %shifted, %mask : i32
      %bucket = arith.index_cast %digit : i32 to index
      soac.yield %bucket, %k : index, i32
    }
    scf.yield %next : tensor<?xi32>
  }
  func.return %sorted : tensor<?xi32>
}
