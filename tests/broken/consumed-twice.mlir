// An in-place update of an array that is read afterwards.
// AT: 5:3
// ERROR: 'soac.update' consumes %xs, but 'soac.index' uses it afterwards
func.func @consumed(%xs: tensor<?xf32>, %i: index, %v: f32) -> (tensor<?xf32>, f32) {
  %ys = soac.update %xs[%i] = %v : tensor<?xf32>, f32
  %old = soac.index %xs[%i] : tensor<?xf32> -> f32
  func.return %ys, %old : tensor<?xf32>, f32
}
