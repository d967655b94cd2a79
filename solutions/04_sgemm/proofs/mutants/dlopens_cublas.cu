// Host-code mutant (judged): cuBLAS reached at run time through dlopen and dlsym, so
// that no relocation names it, and a token kernel through workbook::launch so that the step has a
// kernel to report. The product is cuBLAS's, right and fast.
#include <dlfcn.h>

#include "every_step.h"
#include "workbook/launch.cuh"

namespace {
__global__ void token_kernel() {}

// cublasStatus_t cublasSgemm_v2(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)
using Create = int (*)(void**);
using SetStream = int (*)(void*, cudaStream_t);
using Sgemm = int (*)(void*, int, int, int, int, int, const float*, const float*, int, const float*, int, const float*,
                      float*, int);
}  // namespace

void sgemm_mutant::wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream) {
  static void* const library = dlopen("libcublas.so", RTLD_NOW);  // the defect
  static void* handle = nullptr;
  if (library == nullptr) throw std::runtime_error("no cuBLAS to reach");
  if (handle == nullptr) reinterpret_cast<Create>(dlsym(library, "cublasCreate_v2"))(&handle);
  reinterpret_cast<SetStream>(dlsym(library, "cublasSetStream_v2"))(handle, stream);
  const float one = 1.0f, zero = 0.0f;  // C = A B, row-major: C^T = B^T A^T in cuBLAS's column-major
  reinterpret_cast<Sgemm>(dlsym(library, "cublasSgemm_v2"))(handle, 0, 0, p.n, p.m, p.k, &one, p.b, p.n, p.a, p.k, &zero,
                                                            p.c, p.n);
  workbook::launch(token_kernel, dim3(1), dim3(32), 0, stream);
}
