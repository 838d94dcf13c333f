// RUN: soac-opt %s -p 'soac-flatten{mode=full}' | filecheck %s

// map (hist of rows): soac-flatten first makes each hist of rows a hist of elements (soac-hist-rows), whose number
// of bins is read from the outer array; the nest then flattens to a seghist over (maps, elements of the rows) into
// the flattened destinations of every row, reshaped back to rows of bins. The bins are read (and cast) where an
// element needs its row's bin.
// CHECK-LABEL: func.func @max_rows_per_batch
// CHECK:         %bins = tensor.dim %dests, %{{.*}} : tensor<?x?x?xf32>
// CHECK:         %elements = arith.muli %n, %d : index
// CHECK:         %bin_elements = arith.muli %bins, %d : index
// CHECK:         %dest_flat = soac.reshape %dests (%b, %{{.*}}) : tensor<?x?x?xf32> -> tensor<?x?xf32>
// CHECK:         %ps_flat = soac.reshape %pss (%b, %{{.*}}) : tensor<?x?x?xf32> -> tensor<?x?xf32>
// CHECK:         %h_flat = soac.seghist thread (%b, %elements) into(%dest_flat : tensor<?x?xf32>) neutral(%z : f32) -> tensor<?x?xf32> combine(%x: f32, %y: f32) {
// CHECK-NEXT:      %t = arith.maximumf %x, %y : f32
// CHECK:           %cs = soac.index %css[%{{.*}}] : tensor<?x?xi32> -> tensor<?xi32>
// CHECK-NEXT:      %c = soac.index %cs[%{{.*}}] : tensor<?xi32> -> i32
// CHECK-NEXT:      %[[C:.*]] = arith.index_cast %c : i32 to index
// CHECK-NEXT:      %inside = arith.cmpi ult, %[[C]], %bins : index
// CHECK:           %v = soac.index %ps_flat[%{{.*}}, %{{.*}}] : tensor<?x?xf32> -> f32
// CHECK-NEXT:      soac.yield %bin, %v : index, f32
// CHECK-NEXT:    }
// CHECK:         %r = soac.reshape %h_flat (%b, %bins, %d) : tensor<?x?xf32> -> tensor<?x?x?xf32>
// CHECK-NEXT:    func.return %r : tensor<?x?x?xf32>
func.func @max_rows_per_batch(%css: tensor<?x?xi32>, %pss: tensor<?x?x?xf32>, %dests: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %css, %c0 : tensor<?x?xi32>
  %n = tensor.dim %css, %c1 : tensor<?x?xi32>
  %d = tensor.dim %dests, %c2 : tensor<?x?x?xf32>
  %z = arith.constant 0xFF800000 : f32
  %lowest = soac.replicate %d, %z : f32 -> tensor<?xf32>
  %r = soac.map %b (%css, %pss, %dests : tensor<?x?xi32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32> lambda(%cs: tensor<?xi32>, %ps: tensor<?x?xf32>, %dest: tensor<?x?xf32>) {
    %h = soac.hist %n (%cs, %ps : tensor<?xi32>, tensor<?x?xf32>) into(%dest : tensor<?x?xf32>) neutral(%lowest : tensor<?xf32>) -> tensor<?x?xf32> combine(%a: tensor<?xf32>, %bb: tensor<?xf32>) {
      %s = soac.map %d (%a, %bb : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32, %y: f32) {
        %t = arith.maximumf %x, %y : f32
        soac.yield %t : f32
      }
      soac.yield %s : tensor<?xf32>
    } lambda(%c: i32, %p: tensor<?xf32>) {
      %ci = arith.index_cast %c : i32 to index
      soac.yield %ci, %p : index, tensor<?xf32>
    }
    soac.yield %h : tensor<?x?xf32>
  }
  func.return %r : tensor<?x?x?xf32>
}
