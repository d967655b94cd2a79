// Lab 06's device-side work of the grader: CUB (linked into the grader only, never the student's
// code), and the check of every timed call's output. The truth is computed from the input's seed
// (drawn again into the grader's own scratch), never read from the input the kernel could change,
// and by CUB, an independent implementation.
#include "check.h"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <stdexcept>
#include <string>

#include "harness/device_check.cuh"

namespace reduce_scan_check {

namespace {

void cub_ok(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(status));
}

__global__ void compare_one_kernel(const std::int32_t* got, const std::int32_t* want,
                                   workbook::DeviceMismatches* result) {
  if (threadIdx.x == 0 && blockIdx.x == 0 && *got != *want) workbook::note_mismatch(result, 0);
}

__global__ void compare_all_kernel(const std::int32_t* got, const std::int32_t* want, std::size_t n,
                                   workbook::DeviceMismatches* result) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    if (got[i] != want[i]) workbook::note_mismatch(result, i);
}

}  // namespace

std::size_t cub_sum_temp_bytes(std::size_t n) {
  std::size_t bytes = 0;
  cub_ok(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const std::int32_t*>(nullptr),
                                static_cast<std::int32_t*>(nullptr), n),
         "cub::DeviceReduce::Sum (size query)");
  return bytes < 1 ? 1 : bytes;
}

std::size_t cub_scan_temp_bytes(std::size_t n) {
  std::size_t bytes = 0;
  cub_ok(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<const std::int32_t*>(nullptr),
                                       static_cast<std::int32_t*>(nullptr), n),
         "cub::DeviceScan::ExclusiveSum (size query)");
  return bytes < 1 ? 1 : bytes;
}

void cub_sum(const std::int32_t* in, std::int32_t* out, std::size_t n, void* temp, std::size_t temp_bytes,
             cudaStream_t stream) {
  cub_ok(cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n, stream), "cub::DeviceReduce::Sum");
}

void cub_exclusive_sum(const std::int32_t* in, std::int32_t* out, std::size_t n, void* temp, std::size_t temp_bytes,
                       cudaStream_t stream) {
  if (n == 0) return;
  cub_ok(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, out, n, stream), "cub::DeviceScan::ExclusiveSum");
}

void count_wrong_sum(const std::int32_t* out, std::size_t n, std::uint64_t seed, const TruthScratch& scratch,
                     workbook::DeviceMismatches* result, cudaStream_t stream) {
  workbook::fill_random(scratch.values, n, seed, stream);
  cub_sum(scratch.values, scratch.truth, n, scratch.temp, scratch.temp_bytes, stream);
  compare_one_kernel<<<1, 1, 0, stream>>>(out, scratch.truth, result);
  CUDA_CHECK(cudaGetLastError());
}

void count_wrong_prefix_sums(const std::int32_t* out, std::size_t n, std::uint64_t seed, const TruthScratch& scratch,
                             workbook::DeviceMismatches* result, cudaStream_t stream) {
  if (n == 0) return;
  workbook::fill_random(scratch.values, n, seed, stream);
  cub_exclusive_sum(scratch.values, scratch.truth, n, scratch.temp, scratch.temp_bytes, stream);
  compare_all_kernel<<<workbook::check_grid(n), workbook::kCheckThreads, 0, stream>>>(out, scratch.truth, n, result);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace reduce_scan_check
