// An op of a dialect that does not exist.
// AT: 6:10
// ERROR: unknown dialect 'futhark' in operation 'futhark.map'
func.func @unknown_dialect(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = futhark.map %x : f32
    soac.yield %y : f32
  }
  func.return %r : tensor<?xf32>
}
