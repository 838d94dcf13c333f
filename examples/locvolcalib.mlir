// A LocVolCalib-like nest (the FinPar benchmark's core, "Regular flattening"
// slides): a sequential time loop around an outer map over the rows of a grid,
// whose lambda runs scans with non-trivial operators - the shape of a
// tridiagonal solver (tridag) in every row.
//
//   loop u for t < steps do
//     map (\row ->
//            -- forward sweep of a bidiagonal solve: y[j] = row[j] + a[j] * y[j-1]
//            -- as a scan of affine maps, (a1, b1) . (a2, b2) = (a1 * a2, b1 * a2 + b2)
//            let (_, ys) = scan (.) (1, 0) (a, row)
//            -- normalise by the running maximum magnitude (at least 1):
//            -- a scanomap whose post lambda divides each y by it
//            in scanomap max (\y -> |y|) 1.0 ys  post (\m y -> y / m))
//         u
//
// numpy, per step: ys[:, j] = u[:, j] + a[j] * ys[:, j-1];
//                  u = ys / np.maximum.accumulate(np.maximum(1, abs(ys)), axis=1).
// `soac-opt -p soac-flatten` turns the rows' scans into segmented scans (or
// keeps them per row at group level, guarded by a threshold).
//
//   soac-run examples/locvolcalib.mlir --input '[[1,2,3],[0,4,-2]]' '[0.5,-0.5,0.5]' 2
//   result #0 : tensor<?x?xf32> = [[1.  0.5 1. ]
//                                  [0.  1.  0.5]]
//
// ==
// input { [[1, 2, 3], [0, 4, -2]] [0.5, -0.5, 0.5] 2i64 }
// output { [[1f32, 0.5f32, 1f32], [0f32, 1f32, 0.5f32]] }
// input { [[1, 2, 3], [0, 4, -2]] [0.5, -0.5, 0.5] 0i64 }
// output { [[1f32, 2f32, 3f32], [0f32, 4f32, -2f32]] }
// input { empty([0][5]f32) [1, 2, 3, 4, 5] 3i64 }
// output { empty([0][5]f32) }
// structure { scf.for 1 soac.segscan 4 soac.segmap 4 soac.threshold 2 }
// structure pipeline(soac-fuse) { soac.map 1 soac.scan 1 soac.scanomap 1 }

func.func @main(%u0: tensor<?x?xf32>, %a: tensor<?xf32>, %steps: index) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = tensor.dim %u0, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %u0, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32

  %u = scf.for %t = %c0 to %steps step %c1 iter_args(%grid = %u0) -> (tensor<?x?xf32>) {
    %next = soac.map %rows (%grid : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%row: tensor<?xf32>) {
      // Composition of the affine maps y -> a1*y + b1 then y -> a2*y + b2; neutral: the identity (1, 0).
      %as, %ys = soac.scan %cols (%a, %row : tensor<?xf32>, tensor<?xf32>) neutral(%one, %zero : f32, f32) -> (tensor<?xf32>, tensor<?xf32>) combine(%a1: f32, %b1: f32, %a2: f32, %b2: f32) {
        %aa = arith.mulf %a1, %a2 : f32
        %ba = arith.mulf %b1, %a2 : f32
        %bb = arith.addf %ba, %b2 : f32
        soac.yield %aa, %bb : f32, f32
      }
      %scaled = soac.scanomap %cols (%ys : tensor<?xf32>) neutral(%one : f32) -> tensor<?xf32> combine(%m1: f32, %m2: f32) {
        %m = arith.maximumf %m1, %m2 : f32
        soac.yield %m : f32
      } lambda(%y: f32) {
        %abs = math.absf %y : f32
        soac.yield %abs : f32
      } post(%m: f32, %y: f32) {
        %q = arith.divf %y, %m : f32
        soac.yield %q : f32
      }
      soac.yield %scaled : tensor<?xf32>
    }
    scf.yield %next : tensor<?x?xf32>
  }
  func.return %u : tensor<?x?xf32>
}
