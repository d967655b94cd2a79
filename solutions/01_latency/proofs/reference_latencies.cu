// The grader's own measurements of what 01.1 and 01.2 ask a student to measure: a chain of dependent
// FMAs and a pointer chase through each of 01.2's working sets. Written as a student would write
// those steps, so they are the instructor's: linked only into the solution's grader, where they
// register with grader/harness/reference_values.h. There they are what ./workbook calibrate writes
// into a GPU's bars profile, and what the test "01_latency reference values agree with the grader's
// own measurement on this GPU" checks the values grading uses against. Grading itself never runs them.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "check.h"  // the chase's shape and the values' keys
#include "harness/reference_values.h"
#include "workbook/cuda.h"

namespace latency_reference {

namespace {

// The chain, unrolled, so that the loop's counter does not sit between two FMAs.
__global__ void timed_chain_kernel(float* value, long long* cycles, float a, float b, int length) {
  float x = *value;  // read from memory: nothing to fold at compile time
  const long long begin = clock64();
#pragma unroll 128
  for (int i = 0; i < length; ++i) x = fmaf(x, a, b);
  const long long finish = clock64();
  *value = x;  // stored: the chain cannot be dropped
  *cycles = finish - begin;
}

// The chase: `warmup_loads` links untimed, then `timed_loads` timed.
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

// A few device words for one measurement, freed with the scope.
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

// A dependent FP32 FMA's latency in cycles: chains of 2^14 and 2^15 FMAs, the best of five runs
// each; their difference over 2^14, so that the cost of reading the clock cancels out.
double fma_latency_cycles() {
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
}

// A load's latency in cycles for a working set of `bytes`, chased as 01.2 asks (check.h's shape):
// one random cycle through every 128-byte line; the best of three runs, each after L2 was filled
// with something else, so that no run finds the lines its predecessor left there.
double load_latency_cycles(std::size_t bytes) {
  constexpr std::size_t kWordsPerLine = latency_check::kLineBytes / sizeof(std::uint32_t);
  const std::size_t lines = bytes / latency_check::kLineBytes;
  std::vector<std::uint32_t> order(lines);  // line numbers in random order (Fisher-Yates)
  for (std::size_t i = 0; i < lines; ++i) order[i] = static_cast<std::uint32_t>(i);
  std::mt19937_64 random(0x1A7E2C7ull + bytes);
  for (std::size_t i = lines; i > 1; --i) std::swap(order[i - 1], order[std::uniform_int_distribution<std::size_t>(0, i - 1)(random)]);
  std::vector<std::uint32_t> words(lines * kWordsPerLine, 0u);
  for (std::size_t i = 0; i < lines; ++i)  // each line linked to the next, the last to the first
    words[order[i] * kWordsPerLine] = static_cast<std::uint32_t>(order[(i + 1) % lines] * kWordsPerLine);

  DeviceWords<std::uint32_t> device_lines(words.size()), last(1);
  DeviceWords<long long> clock(1);
  CUDA_CHECK(cudaMemcpy(device_lines.data, words.data(), bytes, cudaMemcpyHostToDevice));
  int device = 0, l2_bytes = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  DeviceWords<char> flush(2 * std::size_t(l2_bytes));
  long long best = -1;
  for (int run = 0; run < 3; ++run) {
    CUDA_CHECK(cudaMemset(flush.data, run, 2 * std::size_t(l2_bytes)));
    timed_chase_kernel<<<1, 1>>>(device_lines.data, latency_check::warmup_loads_for(bytes), latency_check::kTimedLoads,
                                 last.data, clock.data);
    CUDA_CHECK(cudaGetLastError());
    const long long c = read_back(clock.data);
    if (best < 0 || c < best) best = c;
  }
  return double(best) / latency_check::kTimedLoads;
}

template <std::size_t kLevel>
double level_latency_cycles() {
  return load_latency_cycles(latency_check::kChaseLevels[kLevel].bytes);
}

const bool kRegistered = workbook::register_reference_measurements(
    "01_latency", {{latency_check::kFmaReferenceKey, fma_latency_cycles},
                   {latency_check::load_reference_key(latency_check::kChaseLevels[0].bytes), level_latency_cycles<0>},
                   {latency_check::load_reference_key(latency_check::kChaseLevels[1].bytes), level_latency_cycles<1>},
                   {latency_check::load_reference_key(latency_check::kChaseLevels[2].bytes), level_latency_cycles<2>}});

}  // namespace

}  // namespace latency_reference
