// A map whose declared result does not match what its lambda yields.
// AT: 5:3
// ERROR: 'soac.map' has result types (tensor<?xf32>), expected (tensor<?xi1>) from its lambdas
func.func @result_types(%n: index, %xs: tensor<?xf32>, %t: f32) -> tensor<?xf32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %p = arith.cmpf ogt, %x, %t : f32
    soac.yield %p : i1
  }
  func.return %r : tensor<?xf32>
}
