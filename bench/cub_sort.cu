// CUB's DeviceRadixSort on uint32 keys: `cub_sort N RUNS [keys|pairs] [uniform|few|sorted]` prints the median
// milliseconds (CUDA events, the temporary storage allocated once, the input copied back between runs and not
// timed) and whether the last result is right: the keys sorted and the same keys (a sum checksum); for pairs
// (SortPairs, uint32 values 0..N-1) also each value pointing at its key in the input, stably.
// Keys: `uniform` 32-bit (an LCG), `few` 16 distinct values, `sorted` the uniform keys sorted on the host.
#include <cub/cub.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char **argv) {
  const long n = atol(argv[1]);
  const int runs = atoi(argv[2]);
  const bool pairs = argc > 3 && strcmp(argv[3], "pairs") == 0;
  const char *kind = argc > 4 ? argv[4] : "uniform";
  std::vector<unsigned> host(n);
  unsigned long long state = 12345;
  unsigned few[16];
  for (int k = 0; k < 16; k++) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    few[k] = (unsigned)(state >> 32);
  }
  for (long i = 0; i < n; i++) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    host[i] = strcmp(kind, "few") == 0 ? few[(state >> 40) & 15] : (unsigned)(state >> 32);
  }
  if (strcmp(kind, "sorted") == 0) std::sort(host.begin(), host.end());
  const std::vector<unsigned> input = host;
  unsigned long long sum_in = 0;
  for (long i = 0; i < n; i++) sum_in += host[i];
  std::vector<unsigned> indices(n);
  for (long i = 0; i < n; i++) indices[i] = (unsigned)i;
  unsigned *original, *keys_in, *keys_out, *values_in = nullptr, *values_out = nullptr;
  cudaMalloc(&original, n * sizeof(unsigned));
  cudaMalloc(&keys_in, n * sizeof(unsigned));
  cudaMalloc(&keys_out, n * sizeof(unsigned));
  cudaMemcpy(original, host.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice);
  if (pairs) {
    cudaMalloc(&values_in, n * sizeof(unsigned));
    cudaMalloc(&values_out, n * sizeof(unsigned));
    cudaMemcpy(values_in, indices.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice);
  }
  void *temp = nullptr;
  size_t temp_bytes = 0;
  if (pairs)
    cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out, values_in, values_out, (int)n);
  else
    cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys_in, keys_out, (int)n);
  cudaMalloc(&temp, temp_bytes);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> times;
  for (int r = 0; r <= runs; r++) {
    cudaMemcpy(keys_in, original, n * sizeof(unsigned), cudaMemcpyDeviceToDevice);
    cudaEventRecord(start);
    if (pairs)
      cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out, values_in, values_out, (int)n);
    else
      cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys_in, keys_out, (int)n);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms;
    cudaEventElapsedTime(&ms, start, stop);
    if (r) times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  cudaMemcpy(host.data(), keys_out, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  bool ok = true;
  unsigned long long sum_out = 0;
  for (long i = 0; i < n; i++) {
    sum_out += host[i];
    if (i && host[i - 1] > host[i]) ok = false;
  }
  if (pairs) {
    cudaMemcpy(indices.data(), values_out, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
    for (long i = 0; i < n; i++) {
      if (input[indices[i]] != host[i]) ok = false;
      if (i && host[i - 1] == host[i] && indices[i - 1] > indices[i]) ok = false;
    }
  }
  printf("%.4f %d\n", times.empty() ? 0.0f : times[times.size() / 2], (int)(ok && sum_in == sum_out));
  return 0;
}
