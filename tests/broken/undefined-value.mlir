// A lambda that uses a value defined nowhere.
// AT: 6:25
// ERROR: use of undefined value %scale
func.func @undefined_value(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.mulf %x, %scale : f32
    soac.yield %y : f32
  }
  func.return %r : tensor<?xf32>
}
