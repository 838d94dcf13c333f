// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia}' | filecheck %s
// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia partition-index=i64 partition-lookback=1 partition-rows=load}' | filecheck %s --check-prefix=WIDE

// On the nvidia target a Onesweep partition gets a 32-bit version of its ranking kernel (`index_bitwidth 32`),
// launched where the rows and status words fit below 2^31, and a 64-bit one for the rest (given no work-items
// otherwise); the tile's keys are loaded into registers before the rounds, and the look-back reads two tiles' status
// words a step. `partition-index=i64` keeps only the 64-bit kernel.

// CHECK:      %narrow = arith.andi
// CHECK:      %narrow_size = arith.select %narrow, %global_size, %{{.*}} : index
// CHECK:      %wide_size = arith.select %narrow, %{{.*}}, %global_size : index
// CHECK:      kernel.launch @main_partition_onesweep_0({{.*}}) global %narrow_size
// CHECK:      kernel.launch @main_partition_onesweep_1({{.*}}) global %wide_size
// CHECK:      kernel.func @main_partition_onesweep_0({{.*}}) index_bitwidth 32 {
// CHECK:        %{{.*}} = kernel.private_alloc 16 : !kernel.buffer<private, i32>
// CHECK-COUNT-2: kernel.atomic_load
// CHECK:      kernel.func @main_partition_onesweep_1({{.*}}) {

// WIDE:       kernel.launch @main_partition_onesweep_0({{.*}}) global %global_size
// WIDE-NOT:   index_bitwidth
// WIDE-NOT:   kernel.private_alloc
// WIDE-NOT:   @main_partition_onesweep_1

func.func @main(%xs: tensor<?xi32>, %known: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %mask = arith.constant 255 : i32
  %counts, %ys = soac.partition %n buckets 256 counts(%known : tensor<?xi32>) (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>)
      lambda(%x: i32) {
    %d = arith.andi %x, %mask : i32
    %b = arith.index_cast %d : i32 to index
    soac.yield %b, %x : index, i32
  }
  func.return %ys : tensor<?xi32>
}
