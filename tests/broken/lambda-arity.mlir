// A map over two arrays whose lambda takes one parameter.
// AT: 5:3
// ERROR: 'soac.map' lambda takes 1 parameter but 2 are expected (the input rows: (f32, i32))
func.func @lambda_arity(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs, %is : tensor<?xf32>, tensor<?xi32>) -> tensor<?xf32> lambda(%x: f32) {
    soac.yield %x : f32
  }
  func.return %r : tensor<?xf32>
}
