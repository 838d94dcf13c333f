// The file ends in the middle of a map lambda.
// AT: 8:24
// ERROR: unexpected end of file, expected '}' to close the region opened at
func.func @truncated(%n: index, %xs: tensor<?xf32>, %ys: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs, %ys : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32, %y: f32) {
    %s = arith.addf %x, %y : f32
    %t = arith.mulf %s, %s : f32
    soac.yield %t : f32
