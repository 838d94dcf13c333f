// A correct program, run with a pass pipeline that does not parse.
// ARGS: -p soac-fuse{
// AT: pass-pipeline:1:11
// ERROR: invalid pass pipeline: expected argument name here
func.func @double(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.addf %x, %x : f32
    soac.yield %y : f32
  }
  func.return %r : tensor<?xf32>
}
