// A correct program, run with a pass option of the wrong type.
// ARGS: -p memref-streamify{streams=many}
// AT: pass-pipeline:1:18
// ERROR: option 'streams' of pass 'memref-streamify' takes a value of type int, not 'many'
func.func @double(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.addf %x, %x : f32
    soac.yield %y : f32
  }
  func.return %r : tensor<?xf32>
}
