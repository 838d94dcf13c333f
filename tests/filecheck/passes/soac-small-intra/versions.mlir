// RUN: soac-opt %s -p soac-standard | filecheck %s

// A batch of small matrix products through the standard pipeline (soac-flatten makes its versions): the staged version is tried before the
// outer-parallel one (a work-group per batch has as many work-items), whatever the outer parallelism; the
// thresholds choose between the outer-parallel and fully flattened versions when its guard fails.

func.func @batched(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %q = tensor.dim %a, %c0 : tensor<?x?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?x?xf32>
  %k = tensor.dim %a, %c2 : tensor<?x?x?xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %c = soac.map %q (%a, %b : tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32> lambda(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) {
    %yt = soac.transpose %y [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
    %m = tensor.dim %yt, %c0 : tensor<?x?xf32>
    %rows = soac.map %n (%x : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%row: tensor<?xf32>) {
      %cols = soac.map %m (%yt : tensor<?x?xf32>) -> tensor<?xf32> lambda(%col: tensor<?xf32>) {
        %s = soac.redomap %k (%row, %col : tensor<?xf32>, tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%u: f32, %v: f32) {
          %t = arith.addf %u, %v : f32
          soac.yield %t : f32
        } lambda(%e: f32, %f: f32) {
          %p = arith.mulf %e, %f : f32
          soac.yield %p : f32
        }
        soac.yield %s : f32
      }
      soac.yield %cols : tensor<?xf32>
    }
    soac.yield %rows : tensor<?x?xf32>
  }
  func.return %c : tensor<?x?x?xf32>
}

// CHECK-LABEL: func.func @batched
// CHECK:         %outer_suff = soac.threshold "suff_outer_par_0"
// CHECK:         %small_intra = soac.threshold "suff_small_intra_0" %inner_par default 32 device "group"
// CHECK:         %[[R:.*]] = scf.if %small_intra_ok -> (tensor<?x?x?xf32>) {
// CHECK:             soac.assert
// CHECK:             soac.assert
// CHECK-NEXT:      soac.segmap group (%q)
// CHECK-NEXT:        soac.index %a[%{{.*}}] {staged}
// CHECK-NEXT:        soac.index %b[%{{.*}}] {staged}
// CHECK:         } else {
// CHECK-NEXT:      %[[V:.*]] = scf.if %outer_suff -> (tensor<?x?x?xf32>) {
// CHECK-NEXT:        soac.transpose %b [0, 2, 1]
// CHECK-NEXT:        soac.segmap thread (%q, %n, %{{.*}})
// CHECK:           } else {
// CHECK-NEXT:        soac.transpose %b [0, 2, 1]
// CHECK:             soac.segred thread
// CHECK:           scf.yield %[[V]] : tensor<?x?x?xf32>
// CHECK:         func.return %[[R]] : tensor<?x?x?xf32>
