// A correct program, run with an option that the pass does not have.
// ARGS: -p soac-fuse{sideways=true}
// AT: pass-pipeline:1:11
// ERROR: pass 'soac-fuse' has no option 'sideways'
func.func @double(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.addf %x, %x : f32
    soac.yield %y : f32
  }
  func.return %r : tensor<?xf32>
}
