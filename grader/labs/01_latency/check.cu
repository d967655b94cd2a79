#include "check.h"

#include <cuda_runtime.h>

#include <string>

#include "harness/device_check.cuh"
#include "workbook/cuda.h"

namespace latency_check {

namespace {

// ---------------------------------------------------------------------------------------------
// Kernels for the occupancy check: each keeps kLive floats live across a loop, and __maxnreg__ caps
// its registers just above that, so that ptxas gives it exactly kRegisters (on its own ptxas
// mostly picks multiples of 8, where the allocation unit of 256 a warp never shows). They are only
// asked about, never launched.
template <int kLive, int kRegisters>
__global__ void __maxnreg__(kRegisters) holds_registers_kernel(float* data, int rounds) {
  float v[kLive];
#pragma unroll
  for (int i = 0; i < kLive; ++i) v[i] = data[threadIdx.x + i * blockDim.x];
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int i = 0; i < kLive; ++i) v[i] = fmaf(v[i], v[(i + 1) % kLive], v[(i + 3) % kLive]);
  }
  float sum = 0;
#pragma unroll
  for (int i = 0; i < kLive; ++i) sum += v[i];
  data[threadIdx.x] = sum;
}

template <int kLive, int kRegisters = 255>
OccupancyProbe probe_of() {
  const void* kernel = reinterpret_cast<const void*>(holds_registers_kernel<kLive, kRegisters>);
  int optin = 0, device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
  CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  return {"holds_registers_kernel<" + std::to_string(kLive) + ", " + std::to_string(kRegisters) + ">",
          attributes.numRegs, attributes.maxThreadsPerBlock, kernel};
}

// ---------------------------------------------------------------------------------------------
__global__ void count_wrong_chains_kernel(const float* end, std::size_t chains, int length, float a, float b,
                                          std::uint64_t key, workbook::DeviceMismatches* result) {
  for (std::size_t c = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; c < chains;
       c += std::size_t(gridDim.x) * blockDim.x) {
    float x = workbook::random_element(key, c);
    for (int i = 0; i < length; ++i) x = fmaf(x, a, b);
    if (__float_as_uint(x) != __float_as_uint(end[c])) workbook::note_mismatch(result, c);
  }
}

}  // namespace

const std::vector<OccupancyProbe>& occupancy_probes() {
  // On sm_90 with CUDA 13.0: 10, 26, 29, 32, 37, 40, 45, 48, 53, 64, 75, 85, 113, 155, 220 and 255
  // registers. At 37, 45 and 85 the allocation unit changes how many blocks fit.
  static const std::vector<OccupancyProbe> probes = {
      probe_of<1>(),       probe_of<9>(),        probe_of<20, 29>(), probe_of<17>(),
      probe_of<27, 37>(),  probe_of<27>(),       probe_of<36, 45>(), probe_of<33>(),
      probe_of<43, 53>(),  probe_of<50>(),       probe_of<64, 75>(), probe_of<73, 85>(),
      probe_of<99, 113>(), probe_of<141, 155>(), probe_of<190>(),    probe_of<242, 255>(),
  };
  return probes;
}

int api_blocks_per_sm(const OccupancyProbe& probe, int threads, std::size_t dynamic_shared_bytes) {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, probe.kernel, threads, dynamic_shared_bytes));
  return blocks;
}

latency_lab::SmLimits sm_limits_of_this_gpu() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  latency_lab::SmLimits sm;
  sm.warp_size = p.warpSize;
  sm.max_warps = p.maxThreadsPerMultiProcessor / p.warpSize;
  sm.max_blocks = p.maxBlocksPerMultiProcessor;
  sm.registers = p.regsPerMultiprocessor;
  sm.registers_per_block = p.regsPerBlock;
  sm.shared_bytes = static_cast<int>(p.sharedMemPerMultiprocessor);
  sm.shared_reserved_per_block = static_cast<int>(p.reservedSharedMemPerBlock);
  // No property reports these. Since Volta an SM has 4 schedulers, each with a quarter of the
  // registers, allocated 256 to a warp; shared memory is allocated 128 bytes at a time since Ampere
  // (the CUDA Occupancy Calculator's tables, and cuda_occupancy.h).
  sm.schedulers = p.major >= 7 ? 4 : 2;
  sm.register_unit = 256;
  sm.shared_unit = p.major >= 8 ? 128 : 256;
  return sm;
}

void count_wrong_chains(const float* end, std::size_t chains, int length, float a, float b, std::uint64_t seed,
                        workbook::DeviceMismatches* result, cudaStream_t stream) {
  count_wrong_chains_kernel<<<workbook::check_grid(chains), workbook::kCheckThreads, 0, stream>>>(
      end, chains, length, a, b, workbook::random_key(seed), result);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace latency_check
