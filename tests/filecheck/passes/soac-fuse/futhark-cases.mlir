// RUN: soac-opt %s -p soac-fuse | filecheck %s

// The fusion cases FU-xx of Futhark's test suite (reference/futhark-cases.md), translated into
// our IR. Each test counts the SOACs left after soac-fuse ("Screma n" in Futhark counts every
// map/reduce/scan/redomap/scanomap/scatter; "/Screma n" only the top-level ones). Where our count
// differs from Futhark's, the comment says why.

// FU-01 mapomap0: x = map (+1) arr; y = map2 (+) x arr; r = map (+5) arr. Futhark: Screma 1. Ours: 1.
// CHECK-LABEL: func.func @fu01
// CHECK-COUNT-1: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu01(%n: index, %arr: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>, tensor<?xf64>) {
  %one = arith.constant 1.0 : f64
  %five = arith.constant 5.0 : f64
  %x = soac.map %n (%arr : tensor<?xf64>) -> tensor<?xf64> lambda(%a: f64) {
    %b = arith.addf %a, %one : f64
    soac.yield %b : f64
  }
  %y = soac.map %n (%x, %arr : tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64> lambda(%a: f64, %b: f64) {
    %c = arith.addf %a, %b : f64
    soac.yield %c : f64
  }
  %r = soac.map %n (%arr : tensor<?xf64>) -> tensor<?xf64> lambda(%a: f64) {
    %b = arith.addf %a, %five : f64
    soac.yield %b : f64
  }
  func.return %r, %x, %y : tensor<?xf64>, tensor<?xf64>, tensor<?xf64>
}

// FU-03 fuseComplex1: three tuple maps (one over a row x2[1]) feeding a 5-tuple reduce. Futhark: 1. Ours: 1.
// CHECK-LABEL: func.func @fu03
// CHECK-COUNT-1: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu03(%n: index, %x1: tensor<?xf64>, %x2: tensor<?x?xf64>) -> (f64, f64, f64, f64, f64) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %two = arith.constant 2.0 : f64
  %row = soac.index %x2[%c1] : tensor<?x?xf64> -> tensor<?xf64>
  %y1, %y2, %y3 = soac.map %n (%x1, %row : tensor<?xf64>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>, tensor<?xf64>) lambda(%a1: f64, %a2: f64) {
    %m = arith.mulf %a1, %a2 : f64
    %p = arith.addf %a1, %a2 : f64
    %s = arith.subf %a1, %a2 : f64
    soac.yield %m, %p, %s : f64, f64, f64
  }
  %z1, %z2 = soac.map %n (%y1, %y2 : tensor<?xf64>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>) lambda(%a1: f64, %a2: f64) {
    %s = arith.subf %a1, %a2 : f64
    %t = arith.mulf %two, %a2 : f64
    %p = arith.addf %a1, %t : f64
    soac.yield %s, %p : f64, f64
  }
  %q1, %q2 = soac.map %n (%y3, %z1, %y2, %y3 : tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>) lambda(%a1: f64, %a2: f64, %a3: f64, %a4: f64) {
    %m1 = arith.mulf %a1, %a2 : f64
    %m2 = arith.mulf %a3, %a4 : f64
    %d = arith.subf %m1, %m2 : f64
    %s1 = arith.addf %a3, %a4 : f64
    %s2 = arith.addf %s1, %a2 : f64
    %s3 = arith.subf %s2, %a1 : f64
    soac.yield %d, %s3 : f64, f64
  }
  %r1, %r2, %r3, %r4, %r5 = soac.reduce %n (%q1, %q2, %z2, %y1, %y3 : tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>) neutral(%zero, %zero, %zero, %zero, %zero : f64, f64, f64, f64, f64) -> (f64, f64, f64, f64, f64) combine(%a1: f64, %a2: f64, %a3: f64, %a4: f64, %a5: f64, %b1: f64, %b2: f64, %b3: f64, %b4: f64, %b5: f64) {
    %c1_ = arith.addf %a1, %b1 : f64
    %c2 = arith.addf %a2, %b2 : f64
    %c3 = arith.addf %a3, %b3 : f64
    %c4 = arith.addf %a4, %b4 : f64
    %c5 = arith.addf %a5, %b5 : f64
    soac.yield %c1_, %c2, %c3, %c4, %c5 : f64, f64, f64, f64, f64
  }
  func.return %r1, %r2, %r3, %r4, %r5 : f64, f64, f64, f64, f64
}

// FU-05 fusion7: (map (+1) xs)[0] and (map (+2) xs)[0]: horizontal fusion although each result is
// only indexed. Futhark: 1. Ours: 1.
// CHECK-LABEL: func.func @fu05
// CHECK-COUNT-1: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu05(%n: index, %xs: tensor<?xi32>) -> (i32, i32) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.addi %x, %one : i32
    soac.yield %y : i32
  }
  %foo = soac.index %a[%c0] : tensor<?xi32> -> i32
  %b = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.addi %x, %two : i32
    soac.yield %y : i32
  }
  %bar = soac.index %b[%c0] : tensor<?xi32> -> i32
  func.return %foo, %bar : i32, i32
}

// FU-07 mapored1: a = map arr, b = map arr, s = reduce a, x1 = map a, x2 = map b, x3 = map arr.
// Futhark: 1. Ours: 1.
// CHECK-LABEL: func.func @fu07
// CHECK-COUNT-1: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu07(%n: index, %arr: tensor<?xf64>) -> (f64, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>) {
  %zero = arith.constant 0.0 : f64
  %c3 = arith.constant 3.0 : f64
  %c5 = arith.constant 5.0 : f64
  %c7 = arith.constant 7.0 : f64
  %c07 = arith.constant 0.7 : f64
  %a = soac.map %n (%arr : tensor<?xf64>) -> tensor<?xf64> lambda(%x: f64) {
    %y = arith.addf %x, %c3 : f64
    soac.yield %y : f64
  }
  %b = soac.map %n (%arr : tensor<?xf64>) -> tensor<?xf64> lambda(%x: f64) {
    %y = arith.addf %x, %c7 : f64
    soac.yield %y : f64
  }
  %s = soac.reduce %n (%a : tensor<?xf64>) neutral(%zero : f64) -> f64 combine(%p: f64, %q: f64) {
    %c = arith.addf %p, %q : f64
    soac.yield %c : f64
  }
  %x1 = soac.map %n (%a : tensor<?xf64>) -> tensor<?xf64> lambda(%x: f64) {
    %y = arith.mulf %x, %c3 : f64
    soac.yield %y : f64
  }
  %x2 = soac.map %n (%b : tensor<?xf64>) -> tensor<?xf64> lambda(%x: f64) {
    %y = arith.mulf %x, %c5 : f64
    soac.yield %y : f64
  }
  %x3 = soac.map %n (%arr : tensor<?xf64>) -> tensor<?xf64> lambda(%x: f64) {
    %y = arith.mulf %x, %c07 : f64
    soac.yield %y : f64
  }
  func.return %s, %x1, %x2, %x3 : f64, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>
}

// FU-09 redomap1: xy = map (a+1, a+2) arr; z = map (*2) x; w = map (*3) y; r = reduce (+) arr;
// all of r, x, y, z, w returned. Futhark: 1 (redomap with 4 map-outs). Ours: 1.
// CHECK-LABEL: func.func @fu09
// CHECK-COUNT-1: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu09(%n: index, %arr: tensor<?xf32>) -> (f32, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %x, %y = soac.map %n (%arr : tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) lambda(%a: f32) {
    %p = arith.addf %a, %one : f32
    %q = arith.addf %a, %two : f32
    soac.yield %p, %q : f32, f32
  }
  %z = soac.map %n (%x : tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32) {
    %b = arith.mulf %a, %two : f32
    soac.yield %b : f32
  }
  %w = soac.map %n (%y : tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32) {
    %b = arith.mulf %a, %three : f32
    soac.yield %b : f32
  }
  %r = soac.reduce %n (%arr : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%p: f32, %q: f32) {
    %c = arith.addf %p, %q : f32
    soac.yield %c : f32
  }
  func.return %r, %x, %y, %z, %w : f32, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// FU-11 red-red-fusion: (sum xs, f32.sum (map f32.i32 xs)). Futhark: 1. Ours: 1.
// CHECK-LABEL: func.func @fu11
// CHECK-COUNT-1: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu11(%n: index, %xs: tensor<?xi32>) -> (i32, f32) {
  %zi = arith.constant 0 : i32
  %zf = arith.constant 0.0 : f32
  %s = soac.reduce %n (%xs : tensor<?xi32>) neutral(%zi : i32) -> i32 combine(%p: i32, %q: i32) {
    %c = arith.addi %p, %q : i32
    soac.yield %c : i32
  }
  %fs = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xf32> lambda(%x: i32) {
    %f = arith.sitofp %x : i32 to f32
    soac.yield %f : f32
  }
  %t = soac.reduce %n (%fs : tensor<?xf32>) neutral(%zf : f32) -> f32 combine(%p: f32, %q: f32) {
    %c = arith.addf %p, %q : f32
    soac.yield %c : f32
  }
  func.return %s, %t : i32, f32
}

// FU-13 inner0: a map2 + reduce inside the operator of an outer reduce fuse into a redomap there.
// Futhark: Screma 2 (outer reduce + inner redomap). Ours: 2.
// CHECK-LABEL: func.func @fu13
// CHECK-COUNT-2: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu13(%n: index, %m: index, %rows: tensor<?x?xi32>, %first: tensor<?xi32>) -> tensor<?xi32> {
  %r = soac.reduce %n (%rows : tensor<?x?xi32>) neutral(%first : tensor<?xi32>) -> tensor<?xi32> combine(%a: tensor<?xi32>, %b: tensor<?xi32>) {
    %none = arith.constant 0 : i32
    %cmp = soac.map %m (%a, %b : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32, %y: i32) {
      %lt = arith.cmpi slt, %x, %y : i32
      %gt = arith.cmpi sgt, %x, %y : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %o1 = arith.select %gt, %c2, %none : i32
      %o = arith.select %lt, %c1, %o1 : i32
      soac.yield %o : i32
    }
    %some = soac.reduce %m (%cmp : tensor<?xi32>) neutral(%none : i32) -> i32 combine(%p: i32, %q: i32) {
      %pn = arith.cmpi ne, %p, %none : i32
      %c = arith.select %pn, %p, %q : i32
      soac.yield %c : i32
    }
    %c1 = arith.constant 1 : i32
    %le = arith.cmpi ne, %some, %c1 : i32
    %pick = arith.select %le, %b, %a : tensor<?xi32>
    soac.yield %pick : tensor<?xi32>
  }
  func.return %r : tensor<?xi32>
}

// FU-15 map-scan2: only the second result of a tuple map is scanned; the first is dropped. Futhark: 1. Ours: 1.
// CHECK-LABEL: func.func @fu15
// CHECK-COUNT-1: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu15(%n: index, %a: tensor<?xi32>) -> tensor<?xi32> {
  %zero = arith.constant 0 : i32
  %two = arith.constant 2 : i32
  %u, %b = soac.map %n (%a : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%x: i32) {
    %p = arith.addi %x, %two : i32
    %q = arith.subi %x, %two : i32
    soac.yield %p, %q : i32, i32
  }
  %c = soac.scan %n (%b : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%p: i32, %q: i32) {
    %s = arith.addi %p, %q : i32
    soac.yield %s : i32
  }
  func.return %c : tensor<?xi32>
}

// FU-17 scanomap-scanomap2: a = map inp; b = scan a; c = map a; d = scan (*) c; all returned.
// Futhark: 1. Ours: 1 (two scanomaps, then scanomap->scanomap through the map-out a).
// CHECK-LABEL: func.func @fu17
// CHECK-COUNT-1: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu17(%n: index, %inp: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %a = soac.map %n (%inp : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.addi %x, %one : i32
    soac.yield %y : i32
  }
  %b = soac.scan %n (%a : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%p: i32, %q: i32) {
    %s = arith.addi %p, %q : i32
    soac.yield %s : i32
  }
  %c = soac.map %n (%a : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.addi %x, %one : i32
    soac.yield %y : i32
  }
  %d = soac.scan %n (%c : tensor<?xi32>) neutral(%one : i32) -> tensor<?xi32> combine(%p: i32, %q: i32) {
    %s = arith.muli %p, %q : i32
    soac.yield %s : i32
  }
  func.return %a, %b, %c, %d : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>
}

// FU-19 maposcan0: b = map (*2) (scan (+) arr), both returned: the map becomes the post lambda.
// Futhark: 1. Ours: 1.
// CHECK-LABEL: func.func @fu19
// CHECK-COUNT-1: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu19(%n: index, %arr: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>) {
  %zero = arith.constant 0.0 : f64
  %two = arith.constant 2.0 : f64
  %sa = soac.scan %n (%arr : tensor<?xf64>) neutral(%zero : f64) -> tensor<?xf64> combine(%p: f64, %q: f64) {
    %s = arith.addf %p, %q : f64
    soac.yield %s : f64
  }
  %b = soac.map %n (%sa : tensor<?xf64>) -> tensor<?xf64> lambda(%x: f64) {
    %y = arith.mulf %x, %two : f64
    soac.yield %y : f64
  }
  func.return %sa, %b : tensor<?xf64>, tensor<?xf64>
}

// FU-21 maposcanomaposcan: sa = scan arr; b = map sa; sb = scan b; c = map sb; r = reduce (*) b.
// Futhark: 2. Ours: 2: scan arr stays alone (sb and r need its whole result); map b fuses into the
// scan b and reduce b, which join in one scanomap with a reduction part, and c becomes its post lambda.
// CHECK-LABEL: func.func @fu21
// CHECK-COUNT-2: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-SAME: n (%sa : tensor<?xf64>) neutral(%zero : f64) reduce(%one : f64)
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu21(%n: index, %arr: tensor<?xf64>) -> (f64, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>) {
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %two = arith.constant 2.0 : f64
  %five = arith.constant 5.0 : f64
  %sa = soac.scan %n (%arr : tensor<?xf64>) neutral(%zero : f64) -> tensor<?xf64> combine(%p: f64, %q: f64) {
    %s = arith.addf %p, %q : f64
    soac.yield %s : f64
  }
  %b = soac.map %n (%sa : tensor<?xf64>) -> tensor<?xf64> lambda(%x: f64) {
    %y = arith.mulf %x, %two : f64
    soac.yield %y : f64
  }
  %sb = soac.scan %n (%b : tensor<?xf64>) neutral(%zero : f64) -> tensor<?xf64> combine(%p: f64, %q: f64) {
    %s = arith.addf %p, %q : f64
    soac.yield %s : f64
  }
  %c = soac.map %n (%sb : tensor<?xf64>) -> tensor<?xf64> lambda(%x: f64) {
    %y = arith.addf %x, %five : f64
    soac.yield %y : f64
  }
  %r = soac.reduce %n (%b : tensor<?xf64>) neutral(%one : f64) -> f64 combine(%p: f64, %q: f64) {
    %s = arith.mulf %p, %q : f64
    soac.yield %s : f64
  }
  func.return %r, %sa, %b, %sb, %c : f64, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>
}

// FU-23 scanreduce0: (scan (+) 0 xs, reduce (*) 1 xs). Futhark: 1 (one Screma holds a scan and a
// reduction). Ours: 1, a scanomap with a reduction part.
// CHECK-LABEL: func.func @fu23
// CHECK-COUNT-1: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-SAME: n (%xs : tensor<?xi32>) neutral(%zero : i32) reduce(%one : i32) -> (tensor<?xi32>, i32)
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu23(%n: index, %xs: tensor<?xi32>) -> (tensor<?xi32>, i32) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %s = soac.scan %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%p: i32, %q: i32) {
    %c = arith.addi %p, %q : i32
    soac.yield %c : i32
  }
  %t = soac.reduce %n (%xs : tensor<?xi32>) neutral(%one : i32) -> i32 combine(%p: i32, %q: i32) {
    %c = arith.muli %p, %q : i32
    soac.yield %c : i32
  }
  func.return %s, %t : tensor<?xi32>, i32
}

// FU-25 iswim1: a scan whose operator is map2 (+) over rows, then a map of (map (+2)) over the rows.
// Futhark: /Screma 1 (after ISWIM). Ours: /Screma 1 too, without ISWIM: the consumer map becomes the
// post lambda of a scanomap. (Nested: the operator's map and the post lambda's map.)
// CHECK-LABEL: func.func @fu25
// CHECK:      soac.scanomap %n
// CHECK-NOT:  soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %n
func.func @fu25(%n: index, %m: index, %input: tensor<?x?xi32>, %zeros: tensor<?xi32>) -> tensor<?x?xi32> {
  %two = arith.constant 2 : i32
  %x = soac.scan %n (%input : tensor<?x?xi32>) neutral(%zeros : tensor<?xi32>) -> tensor<?x?xi32> combine(%a: tensor<?xi32>, %b: tensor<?xi32>) {
    %c = soac.map %m (%a, %b : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%p: i32, %q: i32) {
      %s = arith.addi %p, %q : i32
      soac.yield %s : i32
    }
    soac.yield %c : tensor<?xi32>
  }
  %r = soac.map %n (%x : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%row: tensor<?xi32>) {
    %y = soac.map %m (%row : tensor<?xi32>) -> tensor<?xi32> lambda(%e: i32) {
      %f = arith.addi %e, %two : i32
      soac.yield %f : i32
    }
    soac.yield %y : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}

// FU-27 consumption3: ys = map xs; xs[0] = 2; zs = map (* xs[1]) ys: not fusible. Futhark: 2. Ours: 2.
// CHECK-LABEL: func.func @fu27
// CHECK-COUNT-2: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu27(%n: index, %xs: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2 : i32
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.addi %x, %two : i32
    soac.yield %y : i32
  }
  %xs2 = soac.update %xs[%c0] = %two : tensor<?xi32>, i32
  %e = soac.index %xs2[%c1] : tensor<?xi32> -> i32
  %zs = soac.map %n (%ys : tensor<?xi32>) -> tensor<?xi32> lambda(%y: i32) {
    %z = arith.muli %y, %e : i32
    soac.yield %z : i32
  }
  func.return %xs2, %zs : tensor<?xi32>, tensor<?xi32>
}

// FU-29 horizontal0: (map (+1) x, map (+2) y): no shared input, no fusion. Futhark: 2. Ours: 2.
// CHECK-LABEL: func.func @fu29
// CHECK-COUNT-2: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu29(%n: index, %x: tensor<?xi32>, %y: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %a = soac.map %n (%x : tensor<?xi32>) -> tensor<?xi32> lambda(%e: i32) {
    %f = arith.addi %e, %one : i32
    soac.yield %f : i32
  }
  %b = soac.map %n (%y : tensor<?xi32>) -> tensor<?xi32> lambda(%e: i32) {
    %f = arith.addi %e, %two : i32
    soac.yield %f : i32
  }
  func.return %a, %b : tensor<?xi32>, tensor<?xi32>
}

// FU-31 consumption0: a1s = map transpose a0s; map (map (\row -> row with [d] = 0)) a1s.
// Futhark: /Screma 1. Ours: /Screma 1 (the update consumes a lambda parameter, which is fine).
// CHECK-LABEL: func.func @fu31
// CHECK:     %{{.*}} = soac.map %m
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %m
func.func @fu31(%m: index, %b: index, %d: index, %a0s: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %a1s = soac.map %m (%a0s : tensor<?x?x?xf32>) -> tensor<?x?x?xf32> lambda(%x: tensor<?x?xf32>) {
    %t = soac.transpose %x [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
    soac.yield %t : tensor<?x?xf32>
  }
  %r = soac.map %m (%a1s : tensor<?x?x?xf32>) -> tensor<?x?x?xf32> lambda(%a1: tensor<?x?xf32>) {
    %rows = soac.map %b (%a1 : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%row: tensor<?xf32>) {
      %u = soac.update %row[%d] = %zero : tensor<?xf32>, f32
      soac.yield %u : tensor<?xf32>
    }
    soac.yield %rows : tensor<?x?xf32>
  }
  func.return %r : tensor<?x?x?xf32>
}

// FU-33 consumption2: css = map (\b -> if b then iota n else as) bs; dss = map (\cs -> cs with [0] = 42) css;
// reduce (map2 (+)) (replicate n 0) dss. Futhark: /Screma 1. Ours: /Screma 1 (a redomap).
// CHECK-LABEL: func.func @fu33
// CHECK:     soac.redomap %m
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %m
func.func @fu33(%n: index, %m: index, %as: tensor<?xi32>, %bs: tensor<?xi1>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c42 = arith.constant 42 : i32
  %zero = arith.constant 0 : i32
  %css = soac.map %m (%bs : tensor<?xi1>) -> tensor<?x?xi32> lambda(%b: i1) {
    %cs = scf.if %b -> (tensor<?xi32>) {
      %io = soac.iota %n : tensor<?xi32>
      scf.yield %io : tensor<?xi32>
    } else {
      scf.yield %as : tensor<?xi32>
    }
    soac.yield %cs : tensor<?xi32>
  }
  %dss = soac.map %m (%css : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%cs: tensor<?xi32>) {
    %ds = soac.update %cs[%c0] = %c42 : tensor<?xi32>, i32
    soac.yield %ds : tensor<?xi32>
  }
  %zs = soac.replicate %n, %zero : i32 -> tensor<?xi32>
  %r = soac.reduce %m (%dss : tensor<?x?xi32>) neutral(%zs : tensor<?xi32>) -> tensor<?xi32> combine(%d0: tensor<?xi32>, %d1: tensor<?xi32>) {
    %s = soac.map %n (%d0, %d1 : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%p: i32, %q: i32) {
      %t = arith.addi %p, %q : i32
      soac.yield %t : i32
    }
    soac.yield %s : tensor<?xi32>
  }
  func.return %r : tensor<?xi32>
}

// FU-35 noFusion2 (no annotation in Futhark): x = map f arr; y = map f x; z = map g x; y[0] + z[0].
// Ours: 1: x fuses into z with x as a map-out for y, which then fuses too; nothing is recomputed.
// CHECK-LABEL: func.func @fu35
// CHECK-COUNT-1: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu35(%n: index, %arr: tensor<?xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %three = arith.constant 3.0 : f64
  %x = soac.map %n (%arr : tensor<?xf64>) -> tensor<?xf64> lambda(%a: f64) {
    %b = arith.addf %a, %three : f64
    soac.yield %b : f64
  }
  %y = soac.map %n (%x : tensor<?xf64>) -> tensor<?xf64> lambda(%a: f64) {
    %b = arith.addf %a, %three : f64
    soac.yield %b : f64
  }
  %z = soac.map %n (%x : tensor<?xf64>) -> tensor<?xf64> lambda(%a: f64) {
    %b = arith.mulf %a, %three : f64
    soac.yield %b : f64
  }
  %y0 = soac.index %y[%c0] : tensor<?xf64> -> f64
  %z0 = soac.index %z[%c0] : tensor<?xf64> -> f64
  %r = arith.addf %y0, %z0 : f64
  func.return %r : f64
}

// FU-37 fuse-across-reshape-transpose: map (+1) (map i32 (iota 9)) |> unflatten |> transpose |> map (map (*2)).
// Futhark: /Screma 1. Ours: /Screma 1: the reshape and transpose move onto the iota (fuse_across), and the nests fuse.
// CHECK-LABEL: func.func @fu37
// CHECK-COUNT-2: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu37(%n: index) -> tensor<?x?xi32> {
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %nn = arith.muli %n, %n : index
  %is = soac.iota %nn : tensor<?xi32>
  %a = soac.map %nn (%is : tensor<?xi32>) -> tensor<?xi32> lambda(%e: i32) {
    %f = arith.addi %e, %one : i32
    soac.yield %f : i32
  }
  %b = soac.reshape %a (%n, %n) : tensor<?xi32> -> tensor<?x?xi32>
  %c = soac.transpose %b [1, 0] : tensor<?x?xi32> -> tensor<?x?xi32>
  %d = soac.map %n (%c : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%row: tensor<?xi32>) {
    %r = soac.map %n (%row : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
      %f = arith.muli %x, %two : i32
      soac.yield %f : i32
    }
    soac.yield %r : tensor<?xi32>
  }
  func.return %d : tensor<?x?xi32>
}

// FU-39 fuse-across-reshape5: map (\a -> map (\b -> (a+1)*b) B) A |> flatten |> map (sqrt . f64).
// Futhark: 1. Ours: 2, one 2-deep nest followed by the flatten: the nest maps over B, an array free in its outer
// lambda, so the flatten cannot move onto its inputs; it moves after the element-wise consumer instead
// (fuse_across.pull_out_of_nest), which then reads the nest's own result and fuses with it.
// CHECK-LABEL: func.func @fu39
// CHECK:         soac.map %n (%A : tensor<?xi32>)
// CHECK:           soac.map %m (%B : tensor<?xi32>)
// CHECK:             math.sqrt
// CHECK:         soac.reshape
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu39(%n: index, %m: index, %A: tensor<?xi32>, %B: tensor<?xi32>) -> tensor<?xf64> {
  %one = arith.constant 1 : i32
  %prod = soac.map %n (%A : tensor<?xi32>) -> tensor<?x?xi32> lambda(%a: i32) {
    %a1 = arith.addi %a, %one : i32
    %r = soac.map %m (%B : tensor<?xi32>) -> tensor<?xi32> lambda(%b: i32) {
      %p = arith.muli %a1, %b : i32
      soac.yield %p : i32
    }
    soac.yield %r : tensor<?xi32>
  }
  %nm = arith.muli %n, %m : index
  %flat = soac.reshape %prod (%nm) : tensor<?x?xi32> -> tensor<?xi32>
  %roots = soac.map %nm (%flat : tensor<?xi32>) -> tensor<?xf64> lambda(%e: i32) {
    %f = arith.sitofp %e : i32 to f64
    %s = math.sqrt %f : f64
    soac.yield %s : f64
  }
  func.return %roots : tensor<?xf64>
}

// FU-41 fuse-across-transpose1: b = map (map (+1)) a; c = map (map (*3)) (transpose b).
// Futhark: 2 (one 2-deep nest, fused by rearranging the nest). Ours: 2: the transpose moves onto a (fuse_across),
// where the widths are a's sizes, as Futhark's types say.
// CHECK-LABEL: func.func @fu41
// CHECK-COUNT-2: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu41(%a: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xi32>
  %m = tensor.dim %a, %c1 : tensor<?x?xi32>
  %one = arith.constant 1 : i32
  %three = arith.constant 3 : i32
  %b = soac.map %n (%a : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%row: tensor<?xi32>) {
    %r = soac.map %m (%row : tensor<?xi32>) -> tensor<?xi32> lambda(%e: i32) {
      %f = arith.addi %e, %one : i32
      soac.yield %f : i32
    }
    soac.yield %r : tensor<?xi32>
  }
  %t = soac.transpose %b [1, 0] : tensor<?x?xi32> -> tensor<?x?xi32>
  %c = soac.map %m (%t : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%row: tensor<?xi32>) {
    %r = soac.map %n (%row : tensor<?xi32>) -> tensor<?xi32> lambda(%e: i32) {
      %f = arith.muli %e, %three : i32
      soac.yield %f : i32
    }
    soac.yield %r : tensor<?xi32>
  }
  func.return %c : tensor<?x?xi32>
}

// FU-43 fuse-across-transpose4: two map nests over transposed inputs, then map2 over their rows.
// Futhark: /Screma 1. Ours: /Screma 1 (the transposes are of the inputs, not between producer and
// consumer); inside, the three row maps fuse into one.
// CHECK-LABEL: func.func @fu43
// CHECK-COUNT-2: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu43(%n: index, %m: index, %a: tensor<?x?xi32>, %b: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %one = arith.constant 1 : i32
  %ta = soac.transpose %a [1, 0] : tensor<?x?xi32> -> tensor<?x?xi32>
  %tb = soac.transpose %b [1, 0] : tensor<?x?xi32> -> tensor<?x?xi32>
  %a2 = soac.map %m (%ta : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%row: tensor<?xi32>) {
    %r = soac.map %n (%row : tensor<?xi32>) -> tensor<?xi32> lambda(%e: i32) {
      %f = arith.addi %e, %one : i32
      soac.yield %f : i32
    }
    soac.yield %r : tensor<?xi32>
  }
  %b2 = soac.map %m (%tb : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%row: tensor<?xi32>) {
    %r = soac.map %n (%row : tensor<?xi32>) -> tensor<?xi32> lambda(%e: i32) {
      %f = arith.addi %e, %one : i32
      soac.yield %f : i32
    }
    soac.yield %r : tensor<?xi32>
  }
  %c = soac.map %m (%a2, %b2 : tensor<?x?xi32>, tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%rx: tensor<?xi32>, %ry: tensor<?xi32>) {
    %r = soac.map %n (%rx, %ry : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%p: i32, %q: i32) {
      %s = arith.addi %p, %q : i32
      soac.yield %s : i32
    }
    soac.yield %r : tensor<?xi32>
  }
  func.return %c : tensor<?x?xi32>
}

// FU-45 slicemap1: map (+3) ((map (+2) xs)[::2]). Futhark: 1 (the strided slice moves onto the
// producer's input). soac-fuse alone: 2 (our slices are contiguous and have another width). `canonicalize`
// moves the slice onto the input when the map's width is the input's length, as in Futhark; then it is 1
// (after-canonicalize.mlir). Here the width is a separate argument, so the slice stays even then.
// CHECK-LABEL: func.func @fu45
// CHECK-COUNT-2: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu45(%n: index, %k: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2 : i32
  %three = arith.constant 3 : i32
  %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.addi %x, %two : i32
    soac.yield %y : i32
  }
  %s = soac.slice %a[%c0 : %k] : tensor<?xi32> -> tensor<?xi32>
  %b = soac.map %k (%s : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.addi %x, %three : i32
    soac.yield %y : i32
  }
  func.return %b : tensor<?xi32>
}

// FU-47 slicemap0: (map (+2) xs)[::2], a GPU-structure test (Index 1) about pushing the slice into
// the map's input. soac-fuse leaves the map and the slice as they are (1 SOAC, 1 slice); `canonicalize`
// pushes the slice into the input when the width is the input's length (after-canonicalize.mlir).
// CHECK-LABEL: func.func @fu47
// CHECK-COUNT-1: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK: soac.slice
func.func @fu47(%n: index, %k: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2 : i32
  %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.addi %x, %two : i32
    soac.yield %y : i32
  }
  %s = soac.slice %a[%c0 : %k] : tensor<?xi32> -> tensor<?xi32>
  func.return %s : tensor<?xi32>
}

// FU-49 tabulate1: ys = map (\i -> xs[i]) (iota n); map (\i -> ys[i] * xs[i]) (iota n).
// Futhark: 1 (it turns indexing by the iota into a proper map input first). soac-fuse alone: 2, since the
// second map reads ys by indexing inside its lambda, a use other than as an input (hindrance). Running
// `canonicalize` first rewrites that read into an input, and then it is 1 (iota-indexing.mlir).
// CHECK-LABEL: func.func @fu49
// CHECK-COUNT-2: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu49(%n: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %io = soac.iota %n : tensor<?xindex>
  %ys = soac.map %n (%io : tensor<?xindex>) -> tensor<?xi32> lambda(%i: index) {
    %x = soac.index %xs[%i] : tensor<?xi32> -> i32
    soac.yield %x : i32
  }
  %zs = soac.map %n (%io : tensor<?xindex>) -> tensor<?xi32> lambda(%i: index) {
    %y = soac.index %ys[%i] : tensor<?xi32> -> i32
    %x = soac.index %xs[%i] : tensor<?xi32> -> i32
    %z = arith.muli %y, %x : i32
    soac.yield %z : i32
  }
  func.return %zs : tensor<?xi32>
}

// FU-51 map-write-fusion-not-possible0: a map computes the scatter indices and a returned "baggage"
// array. Futhark: 1 (scatter is an accumulator map there, which can return extra arrays). Ours: 2:
// soac.scatter has no map-out results, so a map whose results are used elsewhere does not fuse into it
// (the comment of the Futhark file describes exactly this older behaviour).
// CHECK-LABEL: func.func @fu51
// CHECK-COUNT-2: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu51(%k: index, %indexes: tensor<?xindex>, %values: tensor<?xi32>, %array: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %is, %baggage = soac.map %k (%indexes, %values : tensor<?xindex>, tensor<?xi32>) -> (tensor<?xindex>, tensor<?xi32>) lambda(%i: index, %v: i32) {
    %j = arith.addi %i, %c1 : index
    %w = arith.addi %v, %one : i32
    soac.yield %j, %w : index, i32
  }
  %r = soac.scatter %k (%is, %values : tensor<?xindex>, tensor<?xi32>) into(%array : tensor<?xi32>) -> tensor<?xi32> lambda(%i: index, %v: i32) {
    soac.yield %i, %v : index, i32
  }
  func.return %r, %baggage : tensor<?xi32>, tensor<?xi32>
}

// FU-53 write-write-fusion0: two scatters with the same indices into different arrays. Futhark: 1. Ours: 1.
// CHECK-LABEL: func.func @fu53
// CHECK-COUNT-1: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu53(%k: index, %indexes: tensor<?xindex>, %values1: tensor<?xi32>, %values2: tensor<?xi32>, %array1: tensor<?xi32>, %array2: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %r1 = soac.scatter %k (%indexes, %values1 : tensor<?xindex>, tensor<?xi32>) into(%array1 : tensor<?xi32>) -> tensor<?xi32> lambda(%i: index, %v: i32) {
    soac.yield %i, %v : index, i32
  }
  %r2 = soac.scatter %k (%indexes, %values2 : tensor<?xindex>, tensor<?xi32>) into(%array2 : tensor<?xi32>) -> tensor<?xi32> lambda(%i: index, %v: i32) {
    soac.yield %i, %v : index, i32
  }
  func.return %r1, %r2 : tensor<?xi32>, tensor<?xi32>
}

// FU-55 write-fusion-mix1: four maps over numbers feed two scatters. Futhark: 1. Ours: 1 (each pair of
// maps fuses into its scatter, then the scatters fuse horizontally over numbers).
// CHECK-LABEL: func.func @fu55
// CHECK-COUNT-1: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu55(%k: index, %numbers: tensor<?xi64>, %array0: tensor<?xi64>, %array1: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>) {
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %c4 = arith.constant 4 : i64
  %indexes0 = soac.map %k (%numbers : tensor<?xi64>) -> tensor<?xindex> lambda(%x: i64) {
    %y = arith.addi %x, %c1 : i64
    %i = arith.index_cast %y : i64 to index
    soac.yield %i : index
  }
  %indexes1 = soac.map %k (%numbers : tensor<?xi64>) -> tensor<?xindex> lambda(%x: i64) {
    %y = arith.addi %x, %c2 : i64
    %i = arith.index_cast %y : i64 to index
    soac.yield %i : index
  }
  %values0 = soac.map %k (%numbers : tensor<?xi64>) -> tensor<?xi64> lambda(%x: i64) {
    %y = arith.addi %x, %c3 : i64
    soac.yield %y : i64
  }
  %values1 = soac.map %k (%numbers : tensor<?xi64>) -> tensor<?xi64> lambda(%x: i64) {
    %y = arith.addi %x, %c4 : i64
    soac.yield %y : i64
  }
  %r0 = soac.scatter %k (%indexes0, %values0 : tensor<?xindex>, tensor<?xi64>) into(%array0 : tensor<?xi64>) -> tensor<?xi64> lambda(%i: index, %v: i64) {
    soac.yield %i, %v : index, i64
  }
  %r1 = soac.scatter %k (%indexes1, %values1 : tensor<?xindex>, tensor<?xi64>) into(%array1 : tensor<?xi64>) -> tensor<?xi64> lambda(%i: index, %v: i64) {
    soac.yield %i, %v : index, i64
  }
  func.return %r0, %r1 : tensor<?xi64>, tensor<?xi64>
}

// FU-57 hist horizontal-fusion: two reduce_by_index over maps of one image. Futhark: Screma 0, Hist 1.
// Our dialect has no histogram (reduce_by_index) op, so this case has no translation.

// FU-59 unused-reduce: a reduce over pairs of which only the first result is used. Futhark removes
// the unused half of the operator (Screma/BinOp 1). soac-fuse leaves the operator whole (still 1 SOAC):
// dropping unused parts is a simplification, which `canonicalize` does (tests/filecheck/dialect/canonicalize.mlir).
// CHECK-LABEL: func.func @fu59
// CHECK-COUNT-1: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu59(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>) -> i32 {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %x, %y = soac.reduce %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) neutral(%zero, %one : i32, i32) -> (i32, i32) combine(%x1: i32, %y1: i32, %x2: i32, %y2: i32) {
    %s = arith.addi %x1, %x2 : i32
    %p = arith.muli %y1, %y2 : i32
    soac.yield %s, %p : i32, i32
  }
  func.return %x : i32
}
