// A misspelt soac op.
// AT: 5:8
// ERROR: unknown operation 'soac.mapp': dialect 'soac' has no such operation (did you mean 'soac.map'?)
func.func @unknown_op(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.mapp %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    soac.yield %x : f32
  }
  func.return %r : tensor<?xf32>
}
