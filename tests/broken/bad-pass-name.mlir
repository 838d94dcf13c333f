// A correct program, run with a pass that does not exist.
// ARGS: -p canonicalize,soac-fusion
// AT: pass-pipeline:1:14
// ERROR: unknown pass 'soac-fusion' (did you mean 'soac-fuse'?)
func.func @double(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.addf %x, %x : f32
    soac.yield %y : f32
  }
  func.return %r : tensor<?xf32>
}
