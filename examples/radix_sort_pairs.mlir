// Key-value pairs sorted by key (32-bit unsigned keys held in i32, any i32 values), stably: the Onesweep radix sort
// of examples/radix_sort_onesweep.mlir (one partition per digit place given its counts, a histogram of the place's
// digits) moving each key's value with it (the partition's lambda yields both).
// With the values 0..n-1 this is argsort: numpy's np.argsort(xs.view(np.uint32), kind='stable').
//
//   soac-run examples/radix_sort_pairs.mlir --input '[5,-1,7,300,0,7]' --input '[0,1,2,3,4,5]'
//   result #0 : tensor<?xi32> = [  0   5   7   7 300  -1]
//   result #1 : tensor<?xi32> = [4 0 2 5 3 1]
//
// ==
// input { [5, -1, 7, 300, 0, 7] [0, 1, 2, 3, 4, 5] }
// output { [0, 5, 7, 7, 300, -1] [4, 0, 2, 5, 3, 1] }
// input { [3, 3, 3] [10, 20, 30] }
// output { [3, 3, 3] [10, 20, 30] }
// input { empty([0]i32) empty([0]i32) }
// output { empty([0]i32) empty([0]i32) }
// structure { soac.hist 1 scf.for 1 soac.partition 1 }

func.func @main(%xs: tensor<?xi32>, %vs: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %passes = arith.constant 4 : index
  %digits = arith.constant 256 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %bits = arith.constant 8 : i32
  %mask = arith.constant 255 : i32

  %sorted:2 = scf.for %p = %c0 to %passes step %c1 iter_args(%ks = %xs, %ws = %vs) -> (tensor<?xi32>, tensor<?xi32>) {
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
    %counts, %next_ks, %next_ws = soac.partition %n buckets 256 counts(%known : tensor<?xi32>) (%ks, %ws : tensor<?xi32>, tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) lambda(%k: i32, %w: i32) {
      %shifted = arith.shrui %k, %shift : i32
      %digit = arith.andi %shifted, %mask : i32
      %bucket = arith.index_cast %digit : i32 to index
      soac.yield %bucket, %k, %w : index, i32, i32
    }
    scf.yield %next_ks, %next_ws : tensor<?xi32>, tensor<?xi32>
  }
  func.return %sorted#0, %sorted#1 : tensor<?xi32>, tensor<?xi32>
}
