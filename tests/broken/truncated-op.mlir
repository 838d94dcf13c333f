// The file ends in the middle of an op inside a lambda.
// AT: 6:24
// ERROR: unexpected end of file, expected operand
func.func @truncated(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %s = arith.addf %x,