// The radix sort of examples/radix_sort_partition.mlir (32-bit unsigned keys held in i32, 8-bit digits, 4 passes)
// as Onesweep does it: each pass one stable partition given its place's counts, a histogram of the keys' digits
// (the digits' counts do not depend on the keys' order, so they are known before the partition runs):
//
//   loop ks for p < 4 do (partition 256 (digit p) ks given (hist (+) 0 256 (map (digit p) ks) 1)).1
//
// On a GPU (a target whose scan has forward progress) each pass is two kernels: the histogram reads the keys once,
// and the partition's tiles take tickets, rank their keys in local memory and find where each digit's keys of the
// tiles before them go by decoupled look-back (lowering/strategies/partition.py), reading and writing each key once.
// (One histogram of the four places' 4n rows, each dividing its row by 4, took 1.6 ms for 10^8 keys on the H200
// where four of these took 0.9: bench/digit_hist.py.) numpy: np.sort(xs.view(np.uint32)).view(np.int32).
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

  %sorted = scf.for %p = %c0 to %passes step %c1 iter_args(%ks = %xs) -> (tensor<?xi32>) {
    %p32 = arith.index_cast %p : index to i32
    %shift = arith.muli %p32, %bits : i32
    %empty = soac.replicate %digits, %zero : i32 -> tensor<?xi32>
    %ones = soac.replicate %n, %one : i32 -> tensor<?xi32>
    %known = soac.hist %n (%ks, %ones : tensor<?xi32>, tensor<?xi32>) into(%empty : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32>
        combine(%a: i32, %b: i32) {
      %s = arith.addi %a, %b : i32
      soac.yield %s : i32
    } lambda(%k: i32, %w: i32) {
      %shifted = arith.shrui %k, %shift : i32
      %digit = arith.andi %shifted, %mask : i32
      %d = arith.index_cast %digit : i32 to index
      soac.yield %d, %w : index, i32
    }
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
