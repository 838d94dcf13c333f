// RUN: soac-opt %s -p canonicalize | filecheck %s
// RUN: soac-opt %s -p soac-simplify,soac-to-kernel -t opencl | filecheck %s --check-prefix=OPENCL

// A `soac.assert` that cannot fail goes (DropAlwaysTrueAssert): a constant `true`, an `ori` with one, an `andi` of
// such conditions; the others stay. Before, a flattened map's check of rows known to match reached its kernel as
// `if (!(true))` (examples/locvolcalib.mlir).

// CHECK-LABEL: func.func @host_checks
// CHECK-NEXT:    %true = arith.constant true
// CHECK-NEXT:    %same = arith.cmpi eq, %n, %m : index
// CHECK-NEXT:    soac.assert %same, "kept {0}" (%n : index)
// CHECK-NEXT:    %either = arith.ori %same, %empty : i1
// CHECK-NEXT:    soac.assert %either, "kept too {0}" (%m : index)
// CHECK-NEXT:    %both = arith.andi %same, %true : i1
// CHECK-NEXT:    soac.assert %both, "kept as well"
// CHECK-NEXT:    func.return
func.func @host_checks(%n: index, %m: index, %empty: i1) {
  %true = arith.constant true
  soac.assert %true, "always true {0}" (%n : index)
  %or_true = arith.ori %empty, %true : i1
  soac.assert %or_true, "always true as well"
  %and_true = arith.andi %or_true, %true : i1
  soac.assert %and_true, "always true once more"
  %same = arith.cmpi eq, %n, %m : index
  soac.assert %same, "kept {0}" (%n : index)
  %either = arith.ori %same, %empty : i1
  soac.assert %either, "kept too {0}" (%m : index)
  %both = arith.andi %same, %true : i1
  soac.assert %both, "kept as well"
  func.return
}

// In a lambda the check would be a kernel's: only the one that can fail is printed.
// CHECK-LABEL: func.func @lambda_checks
// CHECK:         soac.map
// CHECK-NOT:     soac.assert %true
// CHECK:         soac.assert %small, "element {0} is too large" (%x : i32)
// CHECK-NOT:     soac.assert
// OPENCL:        __kernel void lambda_checks_map_0(
// OPENCL-NOT:    !(true)
// OPENCL:        if (!(
// OPENCL-NOT:    if (!(
// OPENCL:        }
func.func @lambda_checks(%n: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %r = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %true = arith.constant true
    soac.assert %true, "never fails {0}" (%x : i32)
    %limit = arith.constant 100 : i32
    %small = arith.cmpi slt, %x, %limit : i32
    soac.assert %small, "element {0} is too large" (%x : i32)
    %y = arith.addi %x, %x : i32
    soac.yield %y : i32
  }
  func.return %r : tensor<?xi32>
}
