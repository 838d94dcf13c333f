// CUB's DeviceRadixSort::SortKeys on uint32 keys: `cub_sort N RUNS` prints the median milliseconds (CUDA events,
// the temporary storage allocated once, the keys copied back into the input between runs and not timed) and
// whether the last result is sorted and holds the same keys (a sum checksum).
#include <cub/cub.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  const long n = atol(argv[1]);
  const int runs = atoi(argv[2]);
  std::vector<unsigned> host(n);
  unsigned long long state = 12345;
  unsigned long long sum_in = 0;
  for (long i = 0; i < n; i++) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    host[i] = (unsigned)(state >> 32);
    sum_in += host[i];
  }
  unsigned *original, *keys_in, *keys_out;
  cudaMalloc(&original, n * sizeof(unsigned));
  cudaMalloc(&keys_in, n * sizeof(unsigned));
  cudaMalloc(&keys_out, n * sizeof(unsigned));
  cudaMemcpy(original, host.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice);
  void *temp = nullptr;
  size_t temp_bytes = 0;
  cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys_in, keys_out, (int)n);
  cudaMalloc(&temp, temp_bytes);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> times;
  for (int r = 0; r <= runs; r++) {
    cudaMemcpy(keys_in, original, n * sizeof(unsigned), cudaMemcpyDeviceToDevice);
    cudaEventRecord(start);
    cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys_in, keys_out, (int)n);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms;
    cudaEventElapsedTime(&ms, start, stop);
    if (r) times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  cudaMemcpy(host.data(), keys_out, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  bool sorted = true;
  unsigned long long sum_out = 0;
  for (long i = 0; i < n; i++) {
    sum_out += host[i];
    if (i && host[i - 1] > host[i]) sorted = false;
  }
  printf("%.4f %d\n", times[times.size() / 2], (int)(sorted && sum_in == sum_out));
  return 0;
}
