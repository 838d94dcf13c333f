func.func @all(%n: index, %xs: tensor<?xf32>, %ys: tensor<?xf32>, %is: tensor<?xindex>, %m: tensor<?x?xf32>, %z: f32, %i: index) -> (tensor<?xf32>, f32) {
  %r = soac.map %n (%xs, %ys : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32, %y: f32) {
    %s = arith.addf %x, %y : f32
    soac.yield %s : f32
  }
  %sum = soac.reduce commutative %n (%r : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  }
  %sc = soac.scan %n (%r : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  }
  %rm, %mo = soac.redomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> (f32, tensor<?xf32>) combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    %d = arith.mulf %x, %x : f32
    soac.yield %d, %d : f32, f32
  }
  %so = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xi1> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    soac.yield %x : f32
  } post(%s: f32, %x: f32) {
    %p = arith.cmpf ogt, %s, %x : f32
    soac.yield %p : i1
  }
  %sf = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    %d = arith.mulf %x, %x : f32
    soac.yield %x, %d : f32, f32
  } post(%s: f32, %x: f32, %d: f32) {
    %e = arith.subf %s, %d : f32
    soac.yield %e : f32
  }
  %ss, %smax = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) reduce commutative(%z : f32) -> (tensor<?xf32>, f32) combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } reduce_combine(%a: f32, %b: f32) {
    %c = arith.maximumf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    soac.yield %x, %x : f32, f32
  }
  %sct = soac.scatter %n (%is, %xs : tensor<?xindex>, tensor<?xf32>) into(%ys : tensor<?xf32>) -> tensor<?xf32> lambda(%j: index, %v: f32) {
    soac.yield %j, %v : index, f32
  }
  %bins = soac.replicate %n, %z : f32 -> tensor<?xf32>
  %pcounts, %parts = soac.partition %n buckets 4 (%xs : tensor<?xf32>) -> (tensor<?xi32>, tensor<?xf32>) lambda(%px: f32) {
    %pi = arith.fptosi %px : f32 to i32
    %pb = arith.index_cast %pi : i32 to index
    soac.yield %pb, %px : index, f32
  }
  %hst = soac.hist %n (%is, %xs : tensor<?xindex>, tensor<?xf32>) into(%bins : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%j: index, %v: f32) {
    soac.yield %j, %v : index, f32
  }
  %seg = soac.segmap thread (%n, %n) -> tensor<?x?xf32> lambda(%i0: index, %j0: index) {
    %e = soac.index %m[%i0, %j0] : tensor<?x?xf32> -> f32
    soac.yield %e : f32
  }
  %sr = soac.segred thread (%n, %n) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%i0: index, %j0: index) {
    %e = soac.index %m[%i0, %j0] : tensor<?x?xf32> -> f32
    soac.yield %e : f32
  }
  %zeros = soac.replicate %n, %z : f32 -> tensor<?xf32>
  %rows = soac.replicate %n, %zeros : tensor<?xf32> -> tensor<?x?xf32>
  %sh = soac.seghist thread (%n, %n) into(%rows : tensor<?x?xf32>) neutral(%z : f32) -> tensor<?x?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%i0: index, %j0: index) {
    %bin = soac.index %is[%j0] : tensor<?xindex> -> index
    %e = soac.index %m[%i0, %j0] : tensor<?x?xf32> -> f32
    soac.yield %bin, %e : index, f32
  }
  %t = soac.transpose %m [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %nn = arith.muli %n, %n : index
  %flat = soac.reshape %m (%nn) : tensor<?x?xf32> -> tensor<?xf32>
  %back = soac.reverse %t [0, 1] : tensor<?x?xf32>
  %turned = soac.rotate %back by %n : tensor<?x?xf32>
  %tiled = soac.tiled_redomap (%n, %n) reduce %n tile "tile_0" block [64, 64] reg [4, 4] chunk 16 reads(%m[d0, k], %t[d1, k] : tensor<?x?xf32>, tensor<?x?xf32>) neutral(%z : f32) -> tensor<?x?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32, %y: f32) {
    %p = arith.mulf %x, %y : f32
    soac.yield %p : f32
  }
  %blur = soac.stencil (%n, %n) window [1, 3] mirror (%m : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%w: f32, %c: f32, %e: f32) {
    %s = arith.addf %w, %e : f32
    soac.yield %s : f32
  }
  %lap = soac.stencil (%n) window [3] constant(%z : f32) tile [128] (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%lf: f32, %c: f32, %rt: f32) {
    %s = arith.addf %lf, %rt : f32
    soac.yield %s : f32
  }
  %io = soac.iota %n : tensor<?xi32>
  %rep = soac.replicate %n, %z : f32 -> tensor<?xf32>
  %row = soac.index %m[%i] : tensor<?x?xf32> -> tensor<?xf32>
  %sl = soac.slice %xs[%i : %n] : tensor<?xf32> -> tensor<?xf32>
  %up = soac.update %rep[%i] = %z : tensor<?xf32>, f32
  %th = soac.threshold "suff_outer_par_0" %n default 32768
  soac.assert %th, "'soac.map': width {0} does not match the outer size {1} of input #0" (%n, %i : index, index)
  func.return %r, %sum : tensor<?xf32>, f32
}
