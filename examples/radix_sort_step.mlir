// One step of radix sort, after the thesis' appendix A (radix_sort_step):
// a stable partition of xs by bit `digit` - elements whose bit is 0 first,
// then those whose bit is 1, each group in its original order.
//
//   let bits       = map (\x -> (x >> digit) & 1) xs
//   let bits_inv   = map (\b -> 1 - b) bits
//   let ps0        = scan (+) 0 bits_inv
//   let ps0_clean  = map (*) bits_inv ps0
//   let ps1        = scan (+) 0 bits
//   let ps0_offset = reduce (+) 0 bits_inv
//   let ps1_clean  = map (+ ps0_offset) ps1
//   let ps1_clean' = map (*) bits ps1_clean
//   let ps         = map (+) ps0_clean ps1_clean'
//   let ps_actual  = map (\p -> p - 1) ps
//   in scatter (copy xs) ps_actual xs
//
// The u32 data of the thesis is held in i32 (the shift is logical, arith.shrui).
// numpy: b = (xs.view(np.uint32) >> digit) & 1; np.concatenate([xs[b == 0], xs[b == 1]]).
// Fusion (`soac-opt -p soac-fuse`) turns the maps and scans into scanomaps.
//
//   soac-run examples/radix_sort_step.mlir --input '[5,2,7,4,1,6]' 0
//   result #0 : tensor<?xi32> = [2 4 6 5 7 1]
//
// ==
// input { [5, 2, 7, 4, 1, 6] 0 }
// output { [2, 4, 6, 5, 7, 1] }
// input { [5, 2, 7, 4, 1, 6] 1 }
// output { [5, 4, 1, 2, 7, 6] }
// input { empty([0]i32) 3 }
// output { empty([0]i32) }
// structure pipeline(soac-fuse) { soac.scanomap 1 soac.scatter 1 soac.map 0 soac.scan 0 soac.reduce 0 }

func.func @main(%xs: tensor<?xi32>, %digit: i32) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32

  %bits = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %shifted = arith.shrui %x, %digit : i32
    %bit = arith.andi %shifted, %one : i32
    soac.yield %bit : i32
  }
  %bits_inv = soac.map %n (%bits : tensor<?xi32>) -> tensor<?xi32> lambda(%b: i32) {
    %nb = arith.subi %one, %b : i32
    soac.yield %nb : i32
  }

  // ps0[i]: how many elements up to i have bit 0 (their 1-based rank among those).
  %ps0 = soac.scan %n (%bits_inv : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  }
  %ps0_clean = soac.map %n (%bits_inv, %ps0 : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%b: i32, %p: i32) {
    %r = arith.muli %b, %p : i32
    soac.yield %r : i32
  }

  // ps1[i]: how many elements up to i have bit 1; they go after all the bit-0 elements.
  %ps1 = soac.scan %n (%bits : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  }
  %ps0_offset = soac.reduce commutative %n (%bits_inv : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  }
  %ps1_clean = soac.map %n (%ps1 : tensor<?xi32>) -> tensor<?xi32> lambda(%p: i32) {
    %r = arith.addi %p, %ps0_offset : i32
    soac.yield %r : i32
  }
  %ps1_clean2 = soac.map %n (%bits, %ps1_clean : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%b: i32, %p: i32) {
    %r = arith.muli %b, %p : i32
    soac.yield %r : i32
  }

  // The new (0-based) position of every element.
  %ps = soac.map %n (%ps0_clean, %ps1_clean2 : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%p: i32, %q: i32) {
    %r = arith.addi %p, %q : i32
    soac.yield %r : i32
  }
  %ps_actual = soac.map %n (%ps : tensor<?xi32>) -> tensor<?xi32> lambda(%p: i32) {
    %r = arith.subi %p, %one : i32
    soac.yield %r : i32
  }

  // scatter consumes its destination, so it writes into a copy of xs (an identity map).
  %dest = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    soac.yield %x : i32
  }
  %sorted = soac.scatter %n (%ps_actual, %xs : tensor<?xi32>, tensor<?xi32>) into(%dest : tensor<?xi32>) -> tensor<?xi32> lambda(%p: i32, %x: i32) {
    %i = arith.index_cast %p : i32 to index
    soac.yield %i, %x : index, i32
  }
  func.return %sorted : tensor<?xi32>
}
