#include "check.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <random>
#include <utility>

#include "device_check.cuh"
#include "workbook/cuda.h"

namespace latency_check {

namespace {

// ---------------------------------------------------------------------------------------------
// The grader's own chain: unrolled, so that the loop's counter does not sit between two FMAs.
__global__ void timed_chain_kernel(float* value, long long* cycles, float a, float b, int length) {
  float x = *value;  // read from memory: nothing to fold at compile time
  const long long begin = clock64();
#pragma unroll 128
  for (int i = 0; i < length; ++i) x = fmaf(x, a, b);
  const long long finish = clock64();
  *value = x;  // stored: the chain cannot be dropped
  *cycles = finish - begin;
}

// The grader's own chase, the same loop a student writes.
__global__ void timed_chase_kernel(const std::uint32_t* lines, int warmup_loads, int timed_loads, std::uint32_t* last,
                                   long long* cycles) {
  std::uint32_t link = 0;
  for (int i = 0; i < warmup_loads; ++i) link = lines[link];
  const long long begin = clock64();
  for (int i = 0; i < timed_loads; ++i) link = lines[link];
  const long long finish = clock64();
  *last = link;
  *cycles = finish - begin;
}

// A device word or two for the measurements, freed with the scope.
template <typename T>
struct DeviceWords {
  explicit DeviceWords(std::size_t count) { CUDA_CHECK(cudaMalloc(&data, count * sizeof(T))); }
  ~DeviceWords() { cudaFree(data); }
  DeviceWords(const DeviceWords&) = delete;
  DeviceWords& operator=(const DeviceWords&) = delete;
  T* data = nullptr;
};

long long read_back(const long long* device_value) {
  long long value = 0;
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(&value, device_value, sizeof(value), cudaMemcpyDeviceToHost));
  return value;
}

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
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  return {"holds_registers_kernel<" + std::to_string(kLive) + ", " + std::to_string(kRegisters) + ">", attributes.numRegs,
          attributes.maxThreadsPerBlock, kernel};
}

// ---------------------------------------------------------------------------------------------
__global__ void count_wrong_chains_kernel(const float* end, std::size_t chains, int length, float a, float b,
                                          std::uint64_t key, workbook::DeviceMismatches* result) {
  for (std::size_t c = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; c < chains; c += std::size_t(gridDim.x) * blockDim.x) {
    float x = workbook::random_element(key, c);
    for (int i = 0; i < length; ++i) x = fmaf(x, a, b);
    if (__float_as_uint(x) != __float_as_uint(end[c])) workbook::note_mismatch(result, c);
  }
}

}  // namespace

double fma_latency_cycles() {
  static const double cycles = [] {
    DeviceWords<float> value(1);
    DeviceWords<long long> clock(1);
    const auto best_of_five = [&](int length) {
      long long best = -1;
      for (int run = 0; run < 5; ++run) {
        const float one = 1.0f;
        CUDA_CHECK(cudaMemcpy(value.data, &one, sizeof(one), cudaMemcpyHostToDevice));
        timed_chain_kernel<<<1, 1>>>(value.data, clock.data, 0.999f, 0.001f, length);
        CUDA_CHECK(cudaGetLastError());
        const long long c = read_back(clock.data);
        if (best < 0 || c < best) best = c;
      }
      return best;
    };
    constexpr int kLength = 1 << 14;
    return double(best_of_five(2 * kLength) - best_of_five(kLength)) / kLength;
  }();
  return cycles;
}

double load_latency_cycles(std::size_t bytes, int warmup_loads, int timed_loads, std::uint64_t seed) {
  constexpr std::size_t kWordsPerLine = 32;
  const std::size_t lines = bytes / 128;
  // Line numbers in random order (Fisher-Yates), each linked to the next and the last to the first:
  // one cycle through every line.
  std::vector<std::uint32_t> order(lines);
  for (std::size_t i = 0; i < lines; ++i) order[i] = static_cast<std::uint32_t>(i);
  std::mt19937_64 random(seed);
  for (std::size_t i = lines; i > 1; --i) std::swap(order[i - 1], order[std::uniform_int_distribution<std::size_t>(0, i - 1)(random)]);
  std::vector<std::uint32_t> words(lines * kWordsPerLine, 0u);
  for (std::size_t i = 0; i < lines; ++i)
    words[order[i] * kWordsPerLine] = static_cast<std::uint32_t>(order[(i + 1) % lines] * kWordsPerLine);

  DeviceWords<std::uint32_t> device_lines(words.size()), last(1);
  DeviceWords<long long> clock(1);
  CUDA_CHECK(cudaMemcpy(device_lines.data, words.data(), bytes, cudaMemcpyHostToDevice));
  // Each run starts with L2 full of something else: a run must not find the lines its predecessor
  // left there (the timed loads of a set larger than L2 would then be L2 hits).
  int device = 0, l2_bytes = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  DeviceWords<char> flush(2 * std::size_t(l2_bytes));
  long long best = -1;
  for (int run = 0; run < 3; ++run) {
    CUDA_CHECK(cudaMemset(flush.data, run, 2 * std::size_t(l2_bytes)));
    timed_chase_kernel<<<1, 1>>>(device_lines.data, warmup_loads, timed_loads, last.data, clock.data);
    CUDA_CHECK(cudaGetLastError());
    const long long c = read_back(clock.data);
    if (best < 0 || c < best) best = c;
  }
  return double(best) / timed_loads;
}

const std::vector<OccupancyProbe>& occupancy_probes() {
  // On sm_90 with CUDA 13.0: 10, 26, 29, 32, 37, 40, 45, 48, 53, 64, 75, 85, 113, 155, 220 and 255
  // registers. At 37, 45 and 85 the allocation unit changes how many blocks fit.
  static const std::vector<OccupancyProbe> probes = {
      probe_of<1>(),       probe_of<9>(),       probe_of<20, 29>(), probe_of<17>(),      probe_of<27, 37>(),
      probe_of<27>(),      probe_of<36, 45>(),  probe_of<33>(),     probe_of<43, 53>(),  probe_of<50>(),
      probe_of<64, 75>(),  probe_of<73, 85>(),  probe_of<99, 113>(), probe_of<141, 155>(), probe_of<190>(),
      probe_of<242, 255>(),
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
