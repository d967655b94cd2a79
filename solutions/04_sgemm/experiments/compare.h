// Lab 04 experiments: time kernel variants against cuBLAS SGEMM at one shape, in one process.
// Each timing is the median of runs with L2 flushed before each; cuBLAS is timed before and after
// the variant and the faster of the two is kept. Included after the variant file (../sgemm.cu).
#pragma once

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <vector>

#include "workbook/median_time.h"

using workbook::median_ms;

class Comparison {
 public:
  Comparison(cublasHandle_t handle, int m, int n, int k) : handle_(handle), m_(m), n_(n), k_(k) {
    cudaMalloc(&a_, 4ull * m * k);
    cudaMalloc(&b_, 4ull * k * n);
    cudaMalloc(&c_, 4ull * m * n);
    cudaMalloc(&reference_, 4ull * m * n);
    cudaMalloc(&flush_, kFlushBytes);
    std::vector<float> values(std::max(std::size_t(m) * k, std::size_t(k) * n));
    for (float& x : values) x = (std::rand() % 2001 - 1000) / 1000.0f;
    cudaMemcpy(a_, values.data(), 4ull * m * k, cudaMemcpyHostToDevice);
    cudaMemcpy(b_, values.data(), 4ull * k * n, cudaMemcpyHostToDevice);
    cublas();
    cudaDeviceSynchronize();
    expected_.resize(std::size_t(m) * n);
    cudaMemcpy(expected_.data(), reference_, 4ull * m * n, cudaMemcpyDeviceToHost);
  }
  ~Comparison() {
    for (void* p : {static_cast<void*>(a_), static_cast<void*>(b_), static_cast<void*>(c_),
                    static_cast<void*>(reference_), static_cast<void*>(flush_), workspace_})
      cudaFree(p);
  }
  Comparison(const Comparison&) = delete;
  Comparison& operator=(const Comparison&) = delete;

  // The problem, with a workspace of at least `workspace_bytes` (kept and grown between calls, as a
  // caller of CUB keeps its temporary storage).
  sgemm_lab::GemmProblem problem(std::size_t workspace_bytes = 0) {
    if (workspace_bytes > workspace_bytes_) {
      cudaFree(workspace_);
      cudaMalloc(&workspace_, workspace_bytes);
      workspace_bytes_ = workspace_bytes;
    }
    sgemm_lab::GemmProblem p{a_, b_, c_, m_, n_, k_};
    p.workspace = workspace_;
    p.workspace_bytes = workspace_bytes_;
    return p;
  }

  // Checks `variant` against cuBLAS (largest difference on a sample of C), then times both.
  void run(const char* label, const char* name, const std::function<void()>& variant) {
    cudaMemset(c_, 0xff, 4ull * m_ * n_);
    variant();
    const cudaError_t error = cudaDeviceSynchronize();
    std::vector<float> got(std::size_t(m_) * n_);
    cudaMemcpy(got.data(), c_, 4ull * m_ * n_, cudaMemcpyDeviceToHost);
    double largest = 0;
    for (std::size_t i = 0; i < got.size(); i += 97)
      largest = std::max(largest, std::isnan(got[i]) ? 1e30 : double(std::fabs(got[i] - expected_[i])));
    const auto cublas_call = [this] { cublas(); };
    const float cublas_before = time(cublas_call), variant_ms = time(variant), cublas_after = time(cublas_call);
    const float cublas_ms = std::min(cublas_before, cublas_after);
    const double flop = 2.0 * m_ * n_ * k_;
    std::printf("%s %5dx%5dx%5d %-34s %s maxdiff %.2e  %7.0f GFLOP/s  %5.1f%% of cuBLAS (%5.0f)\n", label, m_, n_, k_,
                name, cudaGetErrorString(error), largest, flop / variant_ms / 1e6, 100 * cublas_ms / variant_ms,
                flop / cublas_ms / 1e6);
    std::fflush(stdout);
  }

 private:
  static constexpr std::size_t kFlushBytes = 128u << 20;  // more than L2

  void cublas() {  // row-major C = A B as column-major C^T = B^T A^T
    const float one = 1, zero = 0;
    cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n_, m_, k_, &one, b_, n_, a_, k_, &zero, reference_, n_);
  }
  float time(const std::function<void()>& f) { return median_ms(f, m_ >= 8192 ? 6 : 12, flush_, kFlushBytes); }

  cublasHandle_t handle_;
  int m_, n_, k_;
  float *a_ = nullptr, *b_ = nullptr, *c_ = nullptr, *reference_ = nullptr;
  char* flush_ = nullptr;
  void* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;
  std::vector<float> expected_;
};

// Calls variants(compare, shape) at each shape (m, n, k), with one cuBLAS handle for all.
inline void compare_at(std::initializer_list<int3> shapes, const std::function<void(Comparison&, int3)>& variants) {
  cublasHandle_t handle;
  cublasCreate(&handle);
  for (const int3 shape : shapes) {
    Comparison compare(handle, shape.x, shape.y, shape.z);
    variants(compare, shape);
  }
  cublasDestroy(handle);
}
