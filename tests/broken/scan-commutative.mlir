// `commutative` is for reductions only.
// AT: 5:18
// ERROR: 'soac.scan' cannot be marked commutative
func.func @scan(%n: index, %xs: tensor<?xf32>, %z: f32) -> tensor<?xf32> {
  %s = soac.scan commutative %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  }
  func.return %s : tensor<?xf32>
}
