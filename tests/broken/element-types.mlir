// A reduction whose operator works on f64 while the array holds f32.
// AT: 6:3
// ERROR: 'soac.reduce' combine operator parameter #0 has type f64, expected f32 from the neutral elements (twice)
func.func @element_types(%n: index, %xs: tensor<?xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %s = soac.reduce %n (%xs : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%a: f64, %b: f64) {
    %c = arith.addf %a, %b : f64
    soac.yield %c : f64
  }
  func.return %s : f32
}
