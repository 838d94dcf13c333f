// A histogram of values in [0, 1): how many fall in each of k equal bins, and their sum per bin (seed 003's
// histogram on `permute` with (+); Futhark's `hist`):
//
//   let bins   = map (\x -> if x < 0 then -1 else i32 (x * f32 k)) xs
//   let counts = hist (+) 0 k bins (replicate n 1)
//   let sums   = hist (+) 0 k bins xs
//
// A value outside [0, 1) gets a bin outside [0, k) and is skipped. soac-fuse moves the bin map into the histograms'
// lambdas and joins the two histograms over the same bins into one of two destinations.
// numpy: np.bincount(b[ok], minlength=k), np.bincount(b[ok], weights=xs[ok], minlength=k).
//
//   soac-run examples/histogram.mlir --input '[0.1,0.5,0.55,-0.2,1.5,0.99]' --input 4
//   result #0 : tensor<?xi32> = [1 0 2 1]
//   result #1 : tensor<?xf32> = [0.1  0.   1.05 0.99]
//
// ==
// input { [0.1f32, 0.5f32, 0.55f32, -0.2f32, 1.5f32, 0.99f32] 4i64 }
// output { [1, 0, 2, 1] [0.1f32, 0.0f32, 1.05f32, 0.99f32] }
// input { empty([0]f32) 3i64 }
// output { [0, 0, 0] [0.0f32, 0.0f32, 0.0f32] }
// input { [0.5f32] 0i64 }
// output { empty([0]i32) empty([0]f32) }
// structure pipeline(soac-fuse) { soac.hist 1 soac.map 0 }

func.func @main(%xs: tensor<?xf32>, %k: i64) -> (tensor<?xi32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %width = arith.index_cast %k : i64 to index
  %kf = arith.sitofp %k : i64 to f32
  %zero = arith.constant 0.000000e+00 : f32
  %none = arith.constant 0 : i32

  // bins = map (\x -> if x < 0 then -1 else i32 (x * f32 k)) xs
  %bins = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xi32> lambda(%x: f32) {
    %negative = arith.cmpf olt, %x, %zero : f32
    %scaled = arith.mulf %x, %kf : f32
    %bin = arith.fptosi %scaled : f32 to i32
    %outside = arith.constant -1 : i32
    %b = arith.select %negative, %outside, %bin : i32
    soac.yield %b : i32
  }

  // counts = hist (+) 0 k bins (replicate n 1)
  %empty_counts = soac.replicate %width, %none : i32 -> tensor<?xi32>
  %counts = soac.hist %n (%bins : tensor<?xi32>) into(%empty_counts : tensor<?xi32>) neutral(%none : i32) -> tensor<?xi32>
      combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: i32) {
    %j = arith.index_cast %i : i32 to index
    %one = arith.constant 1 : i32
    soac.yield %j, %one : index, i32
  }

  // sums = hist (+) 0 k bins xs
  %empty_sums = soac.replicate %width, %zero : f32 -> tensor<?xf32>
  %sums = soac.hist %n (%bins, %xs : tensor<?xi32>, tensor<?xf32>) into(%empty_sums : tensor<?xf32>) neutral(%zero : f32)
      -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %s = arith.addf %a, %b : f32
    soac.yield %s : f32
  } lambda(%i: i32, %x: f32) {
    %j = arith.index_cast %i : i32 to index
    soac.yield %j, %x : index, f32
  }
  func.return %counts, %sums : tensor<?xi32>, tensor<?xf32>
}
