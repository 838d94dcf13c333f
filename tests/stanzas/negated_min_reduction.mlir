// The shape NVIDIA's OpenCL compiler miscompiled (nested program seed 942; see DeviceTarget.ptx_min_max):
//
//   map (\(xs, ys) -> reduce min i32.highest (map2 (\x y -> min (-x) y) xs ys)) xss yss
//
// Compiled as C ternaries, the GPU computed min x y instead of min (-x) y; the nvidia target prints
// signed i32 min and max as inline PTX, which it compiles right. Run with `soac-test` on any device.
// ==
// input { [[10, -3, 15], [8, -20, -15], [19, 5, 3]] [[16, -7, 11], [1, 12, 5], [13, -16, 10]] }
// output { [-15, -8, -19] }
// input { [[10, -3, 15]] [[-16, -7, -11]] }
// output { [-16] }
// random input { [1000][37]i32 [1000][37]i32 }
// structure pipeline(soac-fuse) { soac.map 1 soac.redomap 1 }

func.func @main(%xss: tensor<?x?xi32>, %yss: tensor<?x?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %mins = soac.map %n (%xss, %yss : tensor<?x?xi32>, tensor<?x?xi32>) -> tensor<?xi32> lambda(%xs: tensor<?xi32>, %ys: tensor<?xi32>) {
    %vs = soac.map %m (%xs, %ys : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32, %y: i32) {
      %minus_one = arith.constant -1 : i32
      %negated = arith.muli %x, %minus_one : i32
      %v = arith.minsi %negated, %y : i32
      soac.yield %v : i32
    }
    %highest = arith.constant 2147483647 : i32
    %min = soac.reduce %m (%vs : tensor<?xi32>) neutral(%highest : i32) -> i32 combine(%a: i32, %b: i32) {
      %c = arith.minsi %a, %b : i32
      soac.yield %c : i32
    }
    soac.yield %min : i32
  }
  func.return %mins : tensor<?xi32>
}
