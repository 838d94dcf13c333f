// Key-value pairs sorted by key (32-bit unsigned keys held in i32, any i32 values), stably: the radix sort of
// examples/radix_sort_partition.mlir moving each key's value with it (the partition's lambda yields both).
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
// structure { scf.for 1 soac.partition 1 }

func.func @main(%xs: tensor<?xi32>, %vs: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %passes = arith.constant 4 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %bits = arith.constant 8 : i32
  %mask = arith.constant 255 : i32
  %sorted:2 = scf.for %p = %c0 to %passes step %c1 iter_args(%ks = %xs, %ws = %vs) -> (tensor<?xi32>, tensor<?xi32>) {
    %p32 = arith.index_cast %p : index to i32
    %shift = arith.muli %p32, %bits : i32
    %counts, %next_ks, %next_ws = soac.partition %n buckets 256 (%ks, %ws : tensor<?xi32>, tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) lambda(%k: i32, %w: i32) {
      %shifted = arith.shrui %k, %shift : i32
      %digit = arith.andi %shifted, %mask : i32
      %bucket = arith.index_cast %digit : i32 to index
      soac.yield %bucket, %k, %w : index, i32, i32
    }
    scf.yield %next_ks, %next_ws : tensor<?xi32>, tensor<?xi32>
  }
  func.return %sorted#0, %sorted#1 : tensor<?xi32>, tensor<?xi32>
}
