// An 8-bit histogram on u8 data (issue 33): the program is signless (i8 pixels, i32 counts), its unsigned ops
// read the bits as Futhark's u8 (`extui` makes 200u8 bin 200, not -56), the per-bin maximum is `maxui`
// (255u8 beats 1u8), and the cases give and expect u8 and u32 values.
//
//   let counts = reduce_by_index (replicate 256 0u32) (+) 0 (map i64.u8 pixels) (replicate n 1)
//   let highest = reduce_by_index (replicate 4 0u8) u8.max 0 (map (\p -> i64.u8 (p % 4)) pixels) pixels
// ==
// input { [0u8, 200u8, 255u8, 200u8, 1u8, 128u8] }
// output { 2u32 1u32 1u32 [200u8, 1u8, 0u8, 255u8] }
// input { empty([0]u8) }
// output { 0u32 0u32 0u32 [0u8, 0u8, 0u8, 0u8] }
// random input { [5000]u8 }

func.func @main(%pixels: tensor<?xi8>) -> (i32, i32, i32, tensor<?xi8>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %pixels, %c0 : tensor<?xi8>
  %levels = arith.constant 256 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %empty = soac.replicate %levels, %zero : i32 -> tensor<?xi32>
  %ones = soac.replicate %n, %one : i32 -> tensor<?xi32>
  %counts = soac.hist %n (%pixels, %ones : tensor<?xi8>, tensor<?xi32>) into(%empty : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%p: i8, %w: i32) {
    %wide = arith.extui %p : i8 to i64
    %bin = arith.index_cast %wide : i64 to index
    soac.yield %bin, %w : index, i32
  }
  %c200 = arith.constant 200 : index
  %c255 = arith.constant 255 : index
  %c128 = arith.constant 128 : index
  %at200 = soac.index %counts[%c200] : tensor<?xi32> -> i32
  %at255 = soac.index %counts[%c255] : tensor<?xi32> -> i32
  %at128 = soac.index %counts[%c128] : tensor<?xi32> -> i32
  %four = arith.constant 4 : index
  %zero8 = arith.constant 0 : i8
  %bins = soac.replicate %four, %zero8 : i8 -> tensor<?xi8>
  %highest = soac.hist %n (%pixels : tensor<?xi8>) into(%bins : tensor<?xi8>) neutral(%zero8 : i8) -> tensor<?xi8> combine(%a: i8, %b: i8) {
    %m = arith.maxui %a, %b : i8
    soac.yield %m : i8
  } lambda(%p: i8) {
    %four8 = arith.constant 4 : i8
    %r = arith.remui %p, %four8 : i8
    %wide = arith.extui %r : i8 to i64
    %bin = arith.index_cast %wide : i64 to index
    soac.yield %bin, %p : index, i8
  }
  func.return %at200, %at255, %at128, %highest : i32, i32, i32, tensor<?xi8>
}
