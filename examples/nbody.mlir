// One step of all-pairs gravity (Accelerate's and Futhark's nbody): each body's acceleration is a reduction over
// all bodies of a 3-tuple, then its velocity moves by dt.
//
//   map (\(x, y, z, v) -> v + dt * reduce vadd (0, 0, 0) (map (force (x, y, z)) xs ys zs ms)) bodies
//
// After soac-flatten both versions (a work-item per body, and the segred over all pairs) are nests whose
// work-items all read xs, ys, zs and ms: soac-tile (in `soac-standard`) makes each a soac.tiled_redomap, so that a
// work-group stages a chunk of the four arrays in local memory for all its bodies.
//
//   soac-run examples/nbody.mlir --input '[0, 1]' '[0, 0]' '[0, 0]' '[1, 1]' '[0, 0]' '[0, 0]' '[0, 0]' '1'
//   result #0 : tensor<?xf32> = [ 0.99985003 -0.99985003]
//   result #1 : tensor<?xf32> = [0. 0.]
//   result #2 : tensor<?xf32> = [0. 0.]
//
// ==
// input { [0f32, 1f32] [0f32, 0f32] [0f32, 0f32] [1f32, 1f32] [0f32, 0f32] [0f32, 0f32] [0f32, 0f32] 1f32 }
// output { [0.99985003f32, -0.99985003f32] [0f32, 0f32] [0f32, 0f32] }
// random input { [300]f32 [300]f32 [300]f32 [300]f32 [300]f32 [300]f32 [300]f32 f32 }
// structure pipeline(soac-standard) { soac.tiled_redomap 2 soac.redomap 0 soac.segred 0 }

func.func @main(%xs: tensor<?xf32>, %ys: tensor<?xf32>, %zs: tensor<?xf32>, %ms: tensor<?xf32>, %vx: tensor<?xf32>, %vy: tensor<?xf32>, %vz: tensor<?xf32>, %dt: f32) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 0.0001 : f32
  %nx, %ny, %nz = soac.map %n (%xs, %ys, %zs, %vx, %vy, %vz : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) lambda(%xi: f32, %yi: f32, %zi: f32, %vxi: f32, %vyi: f32, %vzi: f32) {
    %ax, %ay, %az = soac.redomap %n (%xs, %ys, %zs, %ms : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) neutral(%zero, %zero, %zero : f32, f32, f32) -> (f32, f32, f32) combine(%a0: f32, %a1: f32, %a2: f32, %b0: f32, %b1: f32, %b2: f32) {
      %s0 = arith.addf %a0, %b0 : f32
      %s1 = arith.addf %a1, %b1 : f32
      %s2 = arith.addf %a2, %b2 : f32
      soac.yield %s0, %s1, %s2 : f32, f32, f32
    } lambda(%xj: f32, %yj: f32, %zj: f32, %mj: f32) {
      %dx = arith.subf %xj, %xi : f32
      %dy = arith.subf %yj, %yi : f32
      %dz = arith.subf %zj, %zi : f32
      %dx2 = arith.mulf %dx, %dx : f32
      %dy2 = arith.mulf %dy, %dy : f32
      %dz2 = arith.mulf %dz, %dz : f32
      %d2 = arith.addf %dx2, %dy2 : f32
      %d3 = arith.addf %d2, %dz2 : f32
      %r2 = arith.addf %d3, %eps : f32
      %r = math.sqrt %r2 : f32
      %r3 = arith.mulf %r2, %r : f32
      %s = arith.divf %mj, %r3 : f32
      %fx = arith.mulf %dx, %s : f32
      %fy = arith.mulf %dy, %s : f32
      %fz = arith.mulf %dz, %s : f32
      soac.yield %fx, %fy, %fz : f32, f32, f32
    }
    %dvx = arith.mulf %ax, %dt : f32
    %dvy = arith.mulf %ay, %dt : f32
    %dvz = arith.mulf %az, %dt : f32
    %wx = arith.addf %vxi, %dvx : f32
    %wy = arith.addf %vyi, %dvy : f32
    %wz = arith.addf %vzi, %dvz : f32
    soac.yield %wx, %wy, %wz : f32, f32, f32
  }
  func.return %nx, %ny, %nz : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}
