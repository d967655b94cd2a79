// The few helpers that every lab, baseline, mutant and the grader share. Plain C++: this header
// compiles with the host compiler as well as with nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <concepts>
#include <stdexcept>
#include <string>

namespace workbook {

// A failed CUDA call. It is an exception rather than exit() so that doctest reports the failing
// step and carries on with the next one.
class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

// Thrown by a starter launcher whose TODO is still open. The grader turns it into a failed check
// that says which TODO, instead of running a kernel that does not exist.
class NotImplemented : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* expression, const char* file, int line);

inline void cuda_check(cudaError_t code, const char* expression, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, expression, file, line);
}

// The project's one macro: it needs the expression's text and its place in the source.
#define CUDA_CHECK(expression) ::workbook::cuda_check((expression), #expression, __FILE__, __LINE__)

template <std::integral T>
constexpr T ceil_div(T numerator, T denominator) {
  return (numerator + denominator - 1) / denominator;
}

}  // namespace workbook
