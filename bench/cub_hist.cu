// CUB's DeviceHistogram::HistogramEven on int32 samples: `cub_hist N BINS RUNS` prints the median milliseconds
// (CUDA events, the temporary storage allocated once) and a checksum of the counts.
#include <cub/cub.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  const long n = atol(argv[1]);
  const int bins = atoi(argv[2]);
  const int runs = atoi(argv[3]);
  std::vector<int> host(n);
  unsigned state = 12345;
  for (long i = 0; i < n; i++) { state = state * 1664525u + 1013904223u; host[i] = (int)((state >> 8) % bins); }
  int *samples, *counts;
  cudaMalloc(&samples, n * sizeof(int));
  cudaMalloc(&counts, bins * sizeof(int));
  cudaMemcpy(samples, host.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  void *temp = nullptr;
  size_t temp_bytes = 0;
  cub::DeviceHistogram::HistogramEven(temp, temp_bytes, samples, counts, bins + 1, 0, bins, (int)n);
  cudaMalloc(&temp, temp_bytes);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> times;
  for (int r = 0; r <= runs; r++) {
    cudaEventRecord(start);
    cub::DeviceHistogram::HistogramEven(temp, temp_bytes, samples, counts, bins + 1, 0, bins, (int)n);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms;
    cudaEventElapsedTime(&ms, start, stop);
    if (r) times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  std::vector<int> out(bins);
  cudaMemcpy(out.data(), counts, bins * sizeof(int), cudaMemcpyDeviceToHost);
  long total = 0;
  for (int b = 0; b < bins; b++) total += out[b];
  printf("%.4f %ld\n", times[times.size() / 2], total);
  return 0;
}
