// RUN: soac-opt %s -p 'soac-flatten' --split-input-file | filecheck %s

// Incremental flattening of map (\row -> reduce (+) 0 row): the outer-parallel version (a sequential
// reduction per thread) and the fully flattened segred, chosen by suff_outer_par_0 (Par = n), whose default the
// device gives (its resident work-items). No intra-group version: one inner SOAC does not make one worth it
// (Futhark's worthIntrablock; heuristics.mlir has the rules).
// CHECK-LABEL: func.func @sum_rows(%n: index, %m: index, %xss: tensor<?x?xf32>, %z: f32) -> tensor<?xf32> {
// CHECK:         %outer_suff = soac.threshold "suff_outer_par_0" %n default 32768 device "resident"
// CHECK-NEXT:    %sums = scf.if %outer_suff -> (tensor<?xf32>) {
// CHECK-NEXT:      %0 = soac.segmap thread (%n) -> tensor<?xf32> lambda(%i: index) {
// CHECK-NEXT:        %row = soac.index %xss[%i] : tensor<?x?xf32> -> tensor<?xf32>
// CHECK-NEXT:        %s = soac.reduce %m (%row : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
// CHECK-NEXT:          %c = arith.addf %a, %b : f32
// CHECK-NEXT:          soac.yield %c : f32
// CHECK-NEXT:        }
// CHECK-NEXT:        soac.yield %s : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %0 : tensor<?xf32>
// CHECK-NEXT:    } else {
// CHECK-NOT:       soac.threshold
// CHECK:           %s_1 = soac.segred thread (%n, %m) neutral(%z : f32) -> tensor<?xf32> combine(%a_1: f32, %b_1: f32) {
// CHECK-NEXT:        %c_1 = arith.addf %a_1, %b_1 : f32
// CHECK-NEXT:        soac.yield %c_1 : f32
// CHECK-NEXT:      } lambda(%i_1: index, %j: index) {
// CHECK-NEXT:        %1 = soac.index %xss[%i_1, %j] : tensor<?x?xf32> -> f32
// CHECK-NEXT:        soac.yield %1 : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %s_1 : tensor<?xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %sums : tensor<?xf32>
// CHECK-NEXT:  }
func.func @sum_rows(%n: index, %m: index, %xss: tensor<?x?xf32>, %z: f32) -> tensor<?xf32> {
  %sums = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?xf32> lambda(%row: tensor<?xf32>) {
    %s = soac.reduce %m (%row : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
      %c = arith.addf %a, %b : f32
      soac.yield %c : f32
    }
    soac.yield %s : f32
  }
  func.return %sums : tensor<?xf32>
}

// -----

// A map with no inner parallelism has one version only: no threshold.
// CHECK-LABEL: func.func @no_versions(%n: index, %m: index, %xss: tensor<?x?xf32>) -> tensor<?x?xf32> {
// CHECK:         %r = soac.segmap thread (%n, %m) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
// CHECK-NEXT:      %x = soac.index %xss[%i, %j] : tensor<?x?xf32> -> f32
// CHECK-NEXT:      %y = arith.negf %x : f32
// CHECK-NEXT:      soac.yield %y : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?x?xf32>
// CHECK-NEXT:  }
func.func @no_versions(%n: index, %m: index, %xss: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%xs: tensor<?xf32>) {
    %ys = soac.map %m (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      %y = arith.negf %x : f32
      soac.yield %y : f32
    }
    soac.yield %ys : tensor<?xf32>
  }
  func.return %r : tensor<?x?xf32>
}

// -----

// Two inner SOACs of widths m and k (intra-group worth it: score 2): Par(intra) is the smaller, the group size the larger; the flattened
// version versions the inner map again, with Par = n * m (arith.muli).
// CHECK-LABEL: func.func @two_inner(%n: index, %m: index, %k: index, %xss: tensor<?x?xi32>, %ys: tensor<?xi32>, %z: i32) -> tensor<?x?xi32> {
// CHECK:         %outer_suff = soac.threshold "suff_outer_par_0" %n default 32768 device "resident"
// CHECK-NEXT:    %r = scf.if %outer_suff -> (tensor<?x?xi32>) {
// CHECK-NEXT:      %0 = soac.segmap thread (%n) -> tensor<?x?xi32> lambda(%i: index) {
// CHECK-NEXT:        %s = soac.reduce %k (%ys : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%a: i32, %b: i32) {
// CHECK-NEXT:          %c = arith.addi %a, %b : i32
// CHECK-NEXT:          soac.yield %c : i32
// CHECK-NEXT:        }
// CHECK-NEXT:        %xs = soac.index %xss[%i] : tensor<?x?xi32> -> tensor<?xi32>
// CHECK-NEXT:        %ws = soac.map %m (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
// CHECK-NEXT:          %t = soac.reduce %k (%ys : tensor<?xi32>) neutral(%x : i32) -> i32 combine(%a_1: i32, %b_1: i32) {
// CHECK-NEXT:            %c_1 = arith.maxsi %a_1, %b_1 : i32
// CHECK-NEXT:            soac.yield %c_1 : i32
// CHECK-NEXT:          }
// CHECK-NEXT:          %w = arith.addi %t, %s : i32
// CHECK-NEXT:          soac.yield %w : i32
// CHECK-NEXT:        }
// CHECK-NEXT:        soac.yield %ws : tensor<?xi32>
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %0 : tensor<?x?xi32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %1 = arith.minui %k, %m : index
// CHECK-NEXT:      %2 = arith.maxui %k, %m : index
// CHECK-NEXT:      %intra_suff = soac.threshold "suff_intra_par_1" %1 default 32 device "group"
// CHECK-NEXT:      %max_group_size = arith.constant 1024 : index
// CHECK-NEXT:      %fits_group = arith.cmpi ule, %2, %max_group_size : index
// CHECK-NEXT:      %intra_ok = arith.andi %intra_suff, %fits_group : i1
// CHECK-NEXT:      %3 = scf.if %intra_ok -> (tensor<?x?xi32>) {
// CHECK-NEXT:        %4 = soac.segmap group (%n) -> tensor<?x?xi32> lambda(%i_1: index) {
// CHECK:               %s_1 = soac.segred thread (%k) neutral(%z : i32) -> i32 combine(%a_2: i32, %b_2: i32) {
// CHECK-NEXT:            %c_2 = arith.addi %a_2, %b_2 : i32
// CHECK-NEXT:            soac.yield %c_2 : i32
// CHECK-NEXT:          } lambda(%i_2: index) {
// CHECK-NEXT:            %5 = soac.index %ys[%i_2] : tensor<?xi32> -> i32
// CHECK-NEXT:            soac.yield %5 : i32
// CHECK-NEXT:          }
// CHECK-NEXT:          %xs_1 = soac.index %xss[%i_1] : tensor<?x?xi32> -> tensor<?xi32>
// CHECK:               %w_1 = soac.segmap thread (%m) -> tensor<?xi32> lambda(%i_3: index) {
// CHECK-NEXT:            %x_1 = soac.index %xs_1[%i_3] : tensor<?xi32> -> i32
// CHECK-NEXT:            %t_1 = soac.reduce %k (%ys : tensor<?xi32>) neutral(%x_1 : i32) -> i32 combine(%a_3: i32, %b_3: i32) {
// CHECK-NEXT:              %c_3 = arith.maxsi %a_3, %b_3 : i32
// CHECK-NEXT:              soac.yield %c_3 : i32
// CHECK-NEXT:            }
// CHECK-NEXT:            %w_2 = arith.addi %t_1, %s_1 : i32
// CHECK-NEXT:            soac.yield %w_2 : i32
// CHECK-NEXT:          }
// CHECK-NEXT:          soac.yield %w_1 : tensor<?xi32>
// CHECK-NEXT:        }
// CHECK-NEXT:        scf.yield %4 : tensor<?x?xi32>
// CHECK-NEXT:      } else {
// CHECK:             %s_2 = soac.segred thread (%n, %k) neutral(%z : i32) -> tensor<?xi32> combine(%a_4: i32, %b_4: i32) {
// CHECK-NEXT:          %c_4 = arith.addi %a_4, %b_4 : i32
// CHECK-NEXT:          soac.yield %c_4 : i32
// CHECK-NEXT:        } lambda(%i_4: index, %j: index) {
// CHECK-NEXT:          %6 = soac.index %ys[%j] : tensor<?xi32> -> i32
// CHECK-NEXT:          soac.yield %6 : i32
// CHECK-NEXT:        }
// CHECK:             %par = arith.muli %n, %m : index
// CHECK-NEXT:        %outer_suff_1 = soac.threshold "suff_outer_par_2" %par default 32768 device "resident"
// CHECK-NEXT:        %ws_1 = scf.if %outer_suff_1 -> (tensor<?x?xi32>) {
// CHECK-NEXT:          %7 = soac.segmap thread (%n, %m) -> tensor<?x?xi32> lambda(%i_5: index, %j_1: index) {
// CHECK-NEXT:            %x_2 = soac.index %xss[%i_5, %j_1] : tensor<?x?xi32> -> i32
// CHECK-NEXT:            %t_2 = soac.reduce %k (%ys : tensor<?xi32>) neutral(%x_2 : i32) -> i32 combine(%a_5: i32, %b_5: i32) {
// CHECK-NEXT:              %c_5 = arith.maxsi %a_5, %b_5 : i32
// CHECK-NEXT:              soac.yield %c_5 : i32
// CHECK-NEXT:            }
// CHECK-NEXT:            %s_3 = soac.index %s_2[%i_5] : tensor<?xi32> -> i32
// CHECK-NEXT:            %w_3 = arith.addi %t_2, %s_3 : i32
// CHECK-NEXT:            soac.yield %w_3 : i32
// CHECK-NEXT:          }
// CHECK-NEXT:          scf.yield %7 : tensor<?x?xi32>
// CHECK-NEXT:        } else {
// CHECK-NEXT:          %w_4 = soac.segmap thread (%n, %m) -> tensor<?x?xi32> lambda(%i_6: index, %j_2: index) {
// CHECK-NEXT:            %x_3 = soac.index %xss[%i_6, %j_2] : tensor<?x?xi32> -> i32
// CHECK-NEXT:            %t_3 = soac.reduce %k (%ys : tensor<?xi32>) neutral(%x_3 : i32) -> i32 combine(%a_6: i32, %b_6: i32) {
// CHECK-NEXT:              %c_6 = arith.maxsi %a_6, %b_6 : i32
// CHECK-NEXT:              soac.yield %c_6 : i32
// CHECK-NEXT:            }
// CHECK-NEXT:            %s_4 = soac.index %s_2[%i_6] : tensor<?xi32> -> i32
// CHECK-NEXT:            %w_5 = arith.addi %t_3, %s_4 : i32
// CHECK-NEXT:            soac.yield %w_5 : i32
// CHECK-NEXT:          }
// CHECK-NEXT:          scf.yield %w_4 : tensor<?x?xi32>
// CHECK-NEXT:        }
// CHECK-NEXT:        scf.yield %ws_1 : tensor<?x?xi32>
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %3 : tensor<?x?xi32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?x?xi32>
// CHECK-NEXT:  }
func.func @two_inner(%n: index, %m: index, %k: index, %xss: tensor<?x?xi32>, %ys: tensor<?xi32>, %z: i32) -> tensor<?x?xi32> {
  %r = soac.map %n (%xss : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%xs: tensor<?xi32>) {
    %s = soac.reduce %k (%ys : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%a: i32, %b: i32) {
      %c = arith.addi %a, %b : i32
      soac.yield %c : i32
    }
    %ws = soac.map %m (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
      %t = soac.reduce %k (%ys : tensor<?xi32>) neutral(%x : i32) -> i32 combine(%a: i32, %b: i32) {
        %c = arith.maxsi %a, %b : i32
        soac.yield %c : i32
      }
      %w = arith.addi %t, %s : i32
      soac.yield %w : i32
    }
    soac.yield %ws : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}
