// Device arrays for the grader: every output is poisoned with NaN before a run and followed by a
// guard region that must come back untouched. Plain C++ over the CUDA runtime API.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "check.h"
#include "workbook/cuda.h"

namespace workbook {

// Far enough to catch an off-by-one block (a whole extra tile), small enough to cost nothing.
inline constexpr std::size_t kGuardBytes = 64 * 1024;

template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t count) : count_(count) {
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), bytes() + kGuardBytes));
    CUDA_CHECK(cudaMemset(guard(), kGuardByte, kGuardBytes));
  }
  ~DeviceArray() { cudaFree(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void upload(std::span<const T> values) {
    if (values.size() != count_) throw std::invalid_argument("upload: size mismatch");
    CUDA_CHECK(cudaMemcpy(data_, values.data(), bytes(), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> values(count_);
    CUDA_CHECK(cudaMemcpy(values.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    return values;
  }
  // NaN for floats: an element the kernel forgot to write can never match the oracle.
  void poison(cudaStream_t stream = nullptr) {
    CUDA_CHECK(cudaMemsetAsync(data_, kPoisonByte, bytes(), stream));
  }
  // Offset in bytes past the end of the array of the first changed guard byte, or -1.
  long guard_violation() const {
    std::vector<std::uint8_t> copy(kGuardBytes);
    CUDA_CHECK(cudaMemcpy(copy.data(), guard(), kGuardBytes, cudaMemcpyDeviceToHost));
    return first_guard_violation(copy);
  }

 private:
  std::uint8_t* guard() const { return reinterpret_cast<std::uint8_t*>(data_) + bytes(); }
  T* data_ = nullptr;
  std::size_t count_;
};

// Uniform in [-1, 1), from a counter-based generator (splitmix64): the same seed gives the same
// values on any machine, and tens of millions of them take well under a second.
std::vector<float> random_floats(std::size_t count, std::uint64_t seed);

}  // namespace workbook
