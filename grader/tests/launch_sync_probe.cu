// Does workbook::launch() return before its kernel has finished? It must not in the debug preset
// (WORKBOOK_SYNC_EVERY_LAUNCH: a fault then surfaces at the launch that caused it), and must in
// every other build (the grader times launches that return at once). GPU test; exit 77 without one.
// usage: launch_sync_probe --expect-sync | --expect-async
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "workbook/launch.cuh"

namespace {

// Spins for about `cycles` SM clock cycles: long enough that an asynchronous launch is still running
// when the host asks.
__global__ void spin_kernel(long long cycles, int* done) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
  *done = 1;
}

}  // namespace

int main(int argc, char** argv) {
  const bool expect_sync = argc == 2 && std::strcmp(argv[1], "--expect-sync") == 0;
  const bool expect_async = argc == 2 && std::strcmp(argv[1], "--expect-async") == 0;
  if (!expect_sync && !expect_async) {
    std::fprintf(stderr, "usage: %s --expect-sync | --expect-async\n", argv[0]);
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA GPU: skipped\n");
    return 77;
  }
  cudaStream_t stream = nullptr;
  int* done = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMalloc(&done, sizeof(int)));
  CUDA_CHECK(cudaMemset(done, 0, sizeof(int)));
  CUDA_CHECK(cudaDeviceSynchronize());

  constexpr long long kCycles = 200'000'000;  // about 0.1 s at 2 GHz
  workbook::launch(spin_kernel, dim3(1), dim3(1), 0, stream, kCycles, done);
  const cudaError_t state = cudaStreamQuery(stream);  // cudaSuccess: the kernel has finished
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const bool synchronized = state == cudaSuccess;
  if (state != cudaSuccess && state != cudaErrorNotReady) {
    std::printf("FAIL: cudaStreamQuery returned %s\n", cudaGetErrorString(state));
    return 1;
  }
  std::printf("workbook::launch returned %s its kernel finished (this build: WORKBOOK_SYNC_EVERY_LAUNCH %s)\n",
              synchronized ? "after" : "before", workbook::kSyncEveryLaunch ? "on" : "off");
  if (synchronized != expect_sync) {
    std::printf("FAIL: expected it to return %s\n", expect_sync ? "after (the debug preset synchronizes)" : "before");
    return 1;
  }
  CUDA_CHECK(cudaFree(done));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
