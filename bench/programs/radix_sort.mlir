// Radix sort of 32-bit keys (held in i32, compared as u32): 32 stable partition steps (examples/radix_sort_step.mlir).
// numpy: np.sort(xs.view(np.uint32)).view(np.int32)

func.func @main(%keys: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %sorted = scf.for %t = %c0 to %c32 step %c1 iter_args(%xs = %keys) -> (tensor<?xi32>) {
    %digit = arith.index_cast %t : index to i32
    %next = func.call @step(%xs, %digit) : (tensor<?xi32>, i32) -> tensor<?xi32>
    scf.yield %next : tensor<?xi32>
  }
  func.return %sorted : tensor<?xi32>
}

func.func @step(%xs: tensor<?xi32>, %digit: i32) -> tensor<?xi32> {
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
