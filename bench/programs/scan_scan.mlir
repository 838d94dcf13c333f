// Two scans over one input (the thesis' horizontal scanomap-scanomap benchmark), written unfused:
//   sq = map (\x -> x*x) inp; sums = scan (+) 0 sq; maxs = scan max lowest inp
// soac-fuse: map->scan (vertical) gives a scanomap, then horizontal fusion one scanomap with two results.
// numpy: np.cumsum(inp * inp), np.maximum.accumulate(inp)
func.func @main(%inp: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %inp, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %lowest = arith.constant -2147483648 : i32
  %sq = soac.map %n (%inp : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.muli %x, %x : i32
    soac.yield %y : i32
  }
  %sums = soac.scan %n (%sq : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  }
  %maxs = soac.scan %n (%inp : tensor<?xi32>) neutral(%lowest : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %m = arith.maxsi %a, %b : i32
    soac.yield %m : i32
  }
  func.return %sums, %maxs : tensor<?xi32>, tensor<?xi32>
}
