// CUB's DeviceSelect::If keeping the positive elements of n int32 (about half, from an LCG), beside two floors for
// "read the input and write the output once": a kernel reading n int32 as int2 pairs and writing n/2 int32, and
// cudaMemcpy of n int32 device to device (reads and writes n). `cub_select N RUNS` prints the three medians in ms
// (CUDA events) and whether CUB's result is right (the kept elements in order, and their count).
#include <cub/cub.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

struct Positive {
  __device__ bool operator()(int x) const { return x > 0; }
};

__global__ void half_copy(const int2 *in, int *out, long pairs) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < pairs; i += (long)gridDim.x * blockDim.x) {
    int2 v = in[i];
    out[i] = v.x ^ v.y;
  }
}

template <class F>
float median_ms(int runs, F f) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> times;
  for (int r = 0; r <= runs; r++) {
    cudaEventRecord(start);
    f();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms;
    cudaEventElapsedTime(&ms, start, stop);
    if (r) times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int main(int argc, char **argv) {
  const long n = atol(argv[1]);
  const int runs = atoi(argv[2]);
  std::vector<int> host(n), kept;
  unsigned long long state = 12345;
  for (long i = 0; i < n; i++) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    host[i] = (int)(state >> 32);
    if (host[i] > 0) kept.push_back(host[i]);
  }
  int *in, *out, *count, *copy;
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&out, n * sizeof(int));
  cudaMalloc(&copy, n * sizeof(int));
  cudaMalloc(&count, sizeof(int));
  cudaMemcpy(in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  void *temp = nullptr;
  size_t temp_bytes = 0;
  cub::DeviceSelect::If(temp, temp_bytes, in, out, count, (int)n, Positive());
  cudaMalloc(&temp, temp_bytes);
  float select = median_ms(runs, [&] { cub::DeviceSelect::If(temp, temp_bytes, in, out, count, (int)n, Positive()); });
  float floor = median_ms(runs, [&] { half_copy<<<132 * 16, 256>>>((const int2 *)in, copy, n / 2); });
  float memcpy = median_ms(runs, [&] { cudaMemcpy(copy, in, n * sizeof(int), cudaMemcpyDeviceToDevice); });
  int counted = 0;
  cudaMemcpy(&counted, count, sizeof(int), cudaMemcpyDeviceToHost);
  std::vector<int> result(counted);
  cudaMemcpy(result.data(), out, counted * sizeof(int), cudaMemcpyDeviceToHost);
  const bool ok = counted == (long)kept.size() && std::equal(result.begin(), result.end(), kept.begin());
  printf("%.4f %.4f %.4f %d\n", select, floor, memcpy, ok ? 1 : 0);
  return 0;
}
