// An integer op on floats: the op's assembly format refuses the type while parsing, before the op exists.
// AT: 6:10
// ERROR: 'arith.addi' does not accept type f32
func.func @op_types(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.addi %x, %x : f32
    soac.yield %y : f32
  }
  func.return %ys : tensor<?xf32>
}
