// (max, argmax) over two destinations: each bin's largest weight and the first row that has it
// (%rows: 0, 1, 2, ...). No hardware atomic
// does both: soac packs the (f32, i32) pair into one 64-bit compare-and-swap (or locks each bin, if forced).
func.func @main(%is: tensor<?xi32>, %ws: tensor<?xf32>, %rows: tensor<?xi32>, %best: tensor<?xf32>, %arg: tensor<?xi32>)
    -> (tensor<?xf32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xi32>
  %lowest = arith.constant 0xFF800000 : f32
  %none = arith.constant -1 : i32
  %h, %a = soac.hist %n (%is, %ws, %rows : tensor<?xi32>, tensor<?xf32>, tensor<?xi32>)
      into(%best, %arg : tensor<?xf32>, tensor<?xi32>) neutral(%lowest, %none : f32, i32)
      -> (tensor<?xf32>, tensor<?xi32>) combine(%x: f32, %i: i32, %y: f32, %j: i32) {
    %gt = arith.cmpf ogt, %y, %x : f32
    %eq = arith.cmpf oeq, %y, %x : f32
    %first = arith.cmpi ult, %j, %i : i32
    %tie = arith.andi %eq, %first : i1
    %take = arith.ori %gt, %tie : i1
    %v = arith.select %take, %y, %x : f32
    %k = arith.select %take, %j, %i : i32
    soac.yield %v, %k : f32, i32
  } lambda(%b: i32, %w: f32, %row: i32) {
    %bin = arith.index_cast %b : i32 to index
    soac.yield %bin, %w, %row : index, f32, i32
  }
  func.return %h, %a : tensor<?xf32>, tensor<?xi32>
}
