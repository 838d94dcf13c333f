// A least-significant-digit radix sort of 32-bit unsigned keys (held in i32, compared as unsigned), 4 bits
// per pass, 8 passes in a loop. Each pass is a stable counting sort by one digit:
//
//   let sort_pass (ks: []u32) (shift: u32) =
//     let digit k  = (k >> shift) & 15
//     let counts   = hist (+) 0 16 (map digit ks) (replicate n 1)     -- keys per digit
//     let starts   = map2 (-) (scan (+) 0 counts) counts              -- where each digit's keys begin
//     let ranks    = scan (map2 (+)) (replicate 16 0)                 -- ranks[i][d]: keys with digit d
//                      (map (\k -> map (\d -> i32 (digit k == d)) (iota 16)) ks)  --   in ks[0..i]
//     let pos      = map2 (\k r -> starts[digit k] + r[digit k] - 1) ks ranks
//     in scatter (replicate n 0) pos ks
//   in loop ks for p < 8 do sort_pass ks (4 * p)
//
// The ranks and positions are written as one scanomap: its lambda yields the 16 one-hot counters (16 scanned i32
// values), its post lambda the key's position, so the ranks are not stored. Fusion (`soac-opt -p soac-fuse`)
// moves the digit map into the hist and the `starts` map into the small scan's post lambda. Per pass the kernels
// are the hist, the small scan, the destination's replicate and the 16-value scan, which with the look-back scan
// (GPUs) also does the scatter, so the positions are not even stored (lowering/strategies/scan_scatter.py).
// numpy: np.sort(xs.view(np.uint32)).view(np.int32).
//
//   soac-run examples/radix_sort.mlir --input '[5,-1,7,300,0,7]'
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
// structure pipeline(soac-fuse) { scf.for 1 soac.hist 1 soac.scanomap 2 soac.scatter 1 soac.map 0 soac.scan 0 }
// structure { scf.for 1 soac.hist 1 soac.scanomap 2 soac.scatter 1 soac.map 0 soac.scan 0 }

func.func @main(%xs: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %passes = arith.constant 8 : index
  %digits = arith.constant 16 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %bits = arith.constant 4 : i32
  %mask = arith.constant 15 : i32
  %c1_i32 = arith.constant 1 : i32
  %c2_i32 = arith.constant 2 : i32
  %c3_i32 = arith.constant 3 : i32
  %c4_i32 = arith.constant 4 : i32
  %c5_i32 = arith.constant 5 : i32
  %c6_i32 = arith.constant 6 : i32
  %c7_i32 = arith.constant 7 : i32
  %c8_i32 = arith.constant 8 : i32
  %c9_i32 = arith.constant 9 : i32
  %c10_i32 = arith.constant 10 : i32
  %c11_i32 = arith.constant 11 : i32
  %c12_i32 = arith.constant 12 : i32
  %c13_i32 = arith.constant 13 : i32
  %c14_i32 = arith.constant 14 : i32
  %c15_i32 = arith.constant 15 : i32

  %sorted = scf.for %p = %c0 to %passes step %c1 iter_args(%ks = %xs) -> (tensor<?xi32>) {
    %p32 = arith.index_cast %p : index to i32
    %shift = arith.muli %p32, %bits : i32

    // The digit of every key (logical shift: the keys are unsigned).
    %ds = soac.map %n (%ks : tensor<?xi32>) -> tensor<?xi32> lambda(%k: i32) {
      %k_shifted = arith.shrui %k, %shift : i32
      %d = arith.andi %k_shifted, %mask : i32
      soac.yield %d : i32
    }

    // counts[d]: how many keys have digit d.
    %empty = soac.replicate %digits, %zero : i32 -> tensor<?xi32>
    %counts = soac.hist %n (%ds : tensor<?xi32>) into(%empty : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32>
        combine(%a: i32, %b: i32) {
      %c = arith.addi %a, %b : i32
      soac.yield %c : i32
    } lambda(%d: i32) {
      %bin = arith.index_cast %d : i32 to index
      soac.yield %bin, %one : index, i32
    }

    // starts[d]: the keys of digit d begin after those of the smaller digits.
    %ends = soac.scan %digits (%counts : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
      %c = arith.addi %a, %b : i32
      soac.yield %c : i32
    }
    %starts = soac.map %digits (%ends, %counts : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%e: i32, %c: i32) {
      %s = arith.subi %e, %c : i32
      soac.yield %s : i32
    }

    // The sorted keys' array, made before the scanomap so that its kernel can scatter the keys itself.
    %fresh = soac.replicate %n, %zero : i32 -> tensor<?xi32>

    // A scanomap: each key gives one counter per digit (1 for its digit, 0 for the others); the counters' prefix
    // sums give the key's rank among the keys of its digit (from 1), and the post lambda turns it into the
    // key's place: where its digit starts, plus the rank. Only the places are stored.
    %pos = soac.scanomap %n (%ks : tensor<?xi32>) neutral(%zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero : i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> tensor<?xi32>
        combine(%a0: i32, %a1: i32, %a2: i32, %a3: i32, %a4: i32, %a5: i32, %a6: i32, %a7: i32, %a8: i32, %a9: i32, %a10: i32, %a11: i32, %a12: i32, %a13: i32, %a14: i32, %a15: i32, %b0: i32, %b1: i32, %b2: i32, %b3: i32, %b4: i32, %b5: i32, %b6: i32, %b7: i32, %b8: i32, %b9: i32, %b10: i32, %b11: i32, %b12: i32, %b13: i32, %b14: i32, %b15: i32) {
      %s0 = arith.addi %a0, %b0 : i32
      %s1 = arith.addi %a1, %b1 : i32
      %s2 = arith.addi %a2, %b2 : i32
      %s3 = arith.addi %a3, %b3 : i32
      %s4 = arith.addi %a4, %b4 : i32
      %s5 = arith.addi %a5, %b5 : i32
      %s6 = arith.addi %a6, %b6 : i32
      %s7 = arith.addi %a7, %b7 : i32
      %s8 = arith.addi %a8, %b8 : i32
      %s9 = arith.addi %a9, %b9 : i32
      %s10 = arith.addi %a10, %b10 : i32
      %s11 = arith.addi %a11, %b11 : i32
      %s12 = arith.addi %a12, %b12 : i32
      %s13 = arith.addi %a13, %b13 : i32
      %s14 = arith.addi %a14, %b14 : i32
      %s15 = arith.addi %a15, %b15 : i32
      soac.yield %s0, %s1, %s2, %s3, %s4, %s5, %s6, %s7, %s8, %s9, %s10, %s11, %s12, %s13, %s14, %s15 : i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
    } lambda(%k: i32) {
      %k_digit = arith.shrui %k, %shift : i32
      %d = arith.andi %k_digit, %mask : i32
      %is0 = arith.cmpi eq, %d, %zero : i32
      %h0 = arith.extui %is0 : i1 to i32
      %is1 = arith.cmpi eq, %d, %c1_i32 : i32
      %h1 = arith.extui %is1 : i1 to i32
      %is2 = arith.cmpi eq, %d, %c2_i32 : i32
      %h2 = arith.extui %is2 : i1 to i32
      %is3 = arith.cmpi eq, %d, %c3_i32 : i32
      %h3 = arith.extui %is3 : i1 to i32
      %is4 = arith.cmpi eq, %d, %c4_i32 : i32
      %h4 = arith.extui %is4 : i1 to i32
      %is5 = arith.cmpi eq, %d, %c5_i32 : i32
      %h5 = arith.extui %is5 : i1 to i32
      %is6 = arith.cmpi eq, %d, %c6_i32 : i32
      %h6 = arith.extui %is6 : i1 to i32
      %is7 = arith.cmpi eq, %d, %c7_i32 : i32
      %h7 = arith.extui %is7 : i1 to i32
      %is8 = arith.cmpi eq, %d, %c8_i32 : i32
      %h8 = arith.extui %is8 : i1 to i32
      %is9 = arith.cmpi eq, %d, %c9_i32 : i32
      %h9 = arith.extui %is9 : i1 to i32
      %is10 = arith.cmpi eq, %d, %c10_i32 : i32
      %h10 = arith.extui %is10 : i1 to i32
      %is11 = arith.cmpi eq, %d, %c11_i32 : i32
      %h11 = arith.extui %is11 : i1 to i32
      %is12 = arith.cmpi eq, %d, %c12_i32 : i32
      %h12 = arith.extui %is12 : i1 to i32
      %is13 = arith.cmpi eq, %d, %c13_i32 : i32
      %h13 = arith.extui %is13 : i1 to i32
      %is14 = arith.cmpi eq, %d, %c14_i32 : i32
      %h14 = arith.extui %is14 : i1 to i32
      %is15 = arith.cmpi eq, %d, %c15_i32 : i32
      %h15 = arith.extui %is15 : i1 to i32
      soac.yield %h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7, %h8, %h9, %h10, %h11, %h12, %h13, %h14, %h15 : i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
    } post(%r0: i32, %r1: i32, %r2: i32, %r3: i32, %r4: i32, %r5: i32, %r6: i32, %r7: i32, %r8: i32, %r9: i32, %r10: i32, %r11: i32, %r12: i32, %r13: i32, %r14: i32, %r15: i32, %key: i32) {
      %key_digit = arith.shrui %key, %shift : i32
      %e = arith.andi %key_digit, %mask : i32
      %at1 = arith.cmpi eq, %e, %c1_i32 : i32
      %rank1 = arith.select %at1, %r1, %r0 : i32
      %at2 = arith.cmpi eq, %e, %c2_i32 : i32
      %rank2 = arith.select %at2, %r2, %rank1 : i32
      %at3 = arith.cmpi eq, %e, %c3_i32 : i32
      %rank3 = arith.select %at3, %r3, %rank2 : i32
      %at4 = arith.cmpi eq, %e, %c4_i32 : i32
      %rank4 = arith.select %at4, %r4, %rank3 : i32
      %at5 = arith.cmpi eq, %e, %c5_i32 : i32
      %rank5 = arith.select %at5, %r5, %rank4 : i32
      %at6 = arith.cmpi eq, %e, %c6_i32 : i32
      %rank6 = arith.select %at6, %r6, %rank5 : i32
      %at7 = arith.cmpi eq, %e, %c7_i32 : i32
      %rank7 = arith.select %at7, %r7, %rank6 : i32
      %at8 = arith.cmpi eq, %e, %c8_i32 : i32
      %rank8 = arith.select %at8, %r8, %rank7 : i32
      %at9 = arith.cmpi eq, %e, %c9_i32 : i32
      %rank9 = arith.select %at9, %r9, %rank8 : i32
      %at10 = arith.cmpi eq, %e, %c10_i32 : i32
      %rank10 = arith.select %at10, %r10, %rank9 : i32
      %at11 = arith.cmpi eq, %e, %c11_i32 : i32
      %rank11 = arith.select %at11, %r11, %rank10 : i32
      %at12 = arith.cmpi eq, %e, %c12_i32 : i32
      %rank12 = arith.select %at12, %r12, %rank11 : i32
      %at13 = arith.cmpi eq, %e, %c13_i32 : i32
      %rank13 = arith.select %at13, %r13, %rank12 : i32
      %at14 = arith.cmpi eq, %e, %c14_i32 : i32
      %rank14 = arith.select %at14, %r14, %rank13 : i32
      %at15 = arith.cmpi eq, %e, %c15_i32 : i32
      %rank15 = arith.select %at15, %r15, %rank14 : i32
      %e_index = arith.index_cast %e : i32 to index
      %start = soac.index %starts[%e_index] : tensor<?xi32> -> i32
      %place = arith.addi %start, %rank15 : i32
      %at = arith.subi %place, %one : i32
      soac.yield %at : i32
    }

    %next = soac.scatter %n (%pos, %ks : tensor<?xi32>, tensor<?xi32>) into(%fresh : tensor<?xi32>) -> tensor<?xi32>
        lambda(%q: i32, %k: i32) {
      %target = arith.index_cast %q : i32 to index
      soac.yield %target, %k : index, i32
    }
    scf.yield %next : tensor<?xi32>
  }
  func.return %sorted : tensor<?xi32>
}
