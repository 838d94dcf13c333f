// CUB peers of bench/run.py's 1-D programs, built as a shared library (peers.cub_peers) and called with host arrays:
//   float soac_cub(int op, const int *in, int *out0, int *out1, long n, int runs)
// copies `in` to the GPU, runs the op once to warm up and `runs` more times, each timed with CUDA events (the
// temporary storage allocated once, outside the timing), copies the last results back and gives the median ms.
//   op 0 map_scan:  out0 = DeviceScan::InclusiveSum over a transform iterator (x*3+1)   (the fused map->scan)
//   op 1 scan:      out0 = DeviceScan::InclusiveSum of `in` as it is                     (the plain 1-D scan)
//   op 2 sum:       out0[0] = DeviceReduce::Sum over a transform iterator (x*3+1)        (the fused redomap)
//   op 3 scan_scan: out0 = InclusiveSum over (x*x), out1 = InclusiveScan of x with max   (two scans, one input)
// A negative result is a CUDA error code (negated).
#include <cub/cub.cuh>
#include <thrust/iterator/transform_iterator.h>
#include <algorithm>
#include <vector>

struct TimesThreePlusOne {
  __host__ __device__ int operator()(int x) const { return x * 3 + 1; }
};
struct Square {
  __host__ __device__ int operator()(int x) const { return x * x; }
};
struct Max {
  __host__ __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

static cudaError_t run_op(int op, void *temp, size_t &temp_bytes, const int *in, int *out0, int *out1, int n) {
  auto mapped = thrust::make_transform_iterator(in, TimesThreePlusOne());
  auto squared = thrust::make_transform_iterator(in, Square());
  switch (op) {
    case 0:
      return cub::DeviceScan::InclusiveSum(temp, temp_bytes, mapped, out0, n);
    case 1:
      return cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out0, n);
    case 2:
      return cub::DeviceReduce::Sum(temp, temp_bytes, mapped, out0, n);
    default: {
      size_t sum_bytes = temp_bytes, max_bytes = temp_bytes;
      cudaError_t e = cub::DeviceScan::InclusiveSum(temp, sum_bytes, squared, out0, n);
      if (e != cudaSuccess) return e;
      e = cub::DeviceScan::InclusiveScan(temp, max_bytes, in, out1, Max(), n);
      if (temp == nullptr) temp_bytes = std::max(sum_bytes, max_bytes);
      return e;
    }
  }
}

extern "C" float soac_cub(int op, const int *host_in, int *host_out0, int *host_out1, long n, int runs) {
  int *in = nullptr, *out0 = nullptr, *out1 = nullptr;
  void *temp = nullptr;
  size_t temp_bytes = 0;
  const size_t bytes = (size_t)n * sizeof(int);
  const size_t out0_bytes = op == 2 ? sizeof(int) : bytes;
  cudaEvent_t start, stop;
  std::vector<float> times;
  cudaError_t e = cudaMalloc(&in, bytes > 0 ? bytes : 4);
  if (e == cudaSuccess) e = cudaMalloc(&out0, bytes > 0 ? bytes : 4);
  if (e == cudaSuccess) e = cudaMalloc(&out1, op == 3 && bytes > 0 ? bytes : 4);
  if (e == cudaSuccess) e = cudaMemcpy(in, host_in, bytes, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = run_op(op, nullptr, temp_bytes, in, out0, out1, (int)n);
  if (e == cudaSuccess) e = cudaMalloc(&temp, temp_bytes > 0 ? temp_bytes : 4);
  if (e == cudaSuccess) e = cudaEventCreate(&start);
  if (e == cudaSuccess) e = cudaEventCreate(&stop);
  for (int r = 0; r <= runs && e == cudaSuccess; r++) {
    cudaEventRecord(start);
    e = run_op(op, temp, temp_bytes, in, out0, out1, (int)n);
    cudaEventRecord(stop);
    if (e == cudaSuccess) e = cudaEventSynchronize(stop);
    float ms = 0;
    if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, start, stop);
    if (r) times.push_back(ms);
  }
  if (e == cudaSuccess) e = cudaMemcpy(host_out0, out0, out0_bytes, cudaMemcpyDeviceToHost);
  if (e == cudaSuccess && op == 3) e = cudaMemcpy(host_out1, out1, bytes, cudaMemcpyDeviceToHost);
  cudaFree(in);
  cudaFree(out0);
  cudaFree(out1);
  cudaFree(temp);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (e != cudaSuccess) return -(float)e;
  std::sort(times.begin(), times.end());
  return times.empty() ? 0.0f : times[times.size() / 2];
}
