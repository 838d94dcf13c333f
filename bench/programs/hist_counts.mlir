// Counts: bins[is[j]] += 1 for every j, the histogram of CUB's DeviceHistogram::HistogramEven and torch.bincount.
func.func @main(%is: tensor<?xi32>, %bins: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xi32>
  %z = arith.constant 0 : i32
  %h = soac.hist %n (%is : tensor<?xi32>) into(%bins : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32>
      combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: i32) {
    %j = arith.index_cast %i : i32 to index
    %one = arith.constant 1 : i32
    soac.yield %j, %one : index, i32
  }
  func.return %h : tensor<?xi32>
}
