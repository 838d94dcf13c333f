// A lambda that computes a value but never yields it.
// AT: 6:5
// ERROR: 'soac.map' lambda must end with soac.yield, but it ends with arith.mulf
func.func @missing_yield(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.mulf %x, %x : f32
  }
  func.return %r : tensor<?xf32>
}
