// Mutant: every step calls cuBLAS. The answer is right and fast, and it is not the exercise. The
// grader rejects it twice: at run time, because no kernel was launched through workbook::launch()
// (so no registers or occupancy can be reported), and statically, because student code must not
// include or link a vendor library (the test "04_sgemm.static: the vendor check catches
// mutant_calls_cublas"). This target alone links cuBLAS, so that it builds at all.
#include <cublas_v2.h>

#include <algorithm>
#include <stdexcept>

#include "every_step.h"

namespace sgemm_mutant {

void wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream) {
  static cublasHandle_t handle = nullptr;
  if (handle == nullptr && cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate");
  if (p.m <= 0 || p.n <= 0) return;
  const float one = 1.0f, zero = 0.0f;
  cublasSetStream(handle, stream);
  if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, p.n, p.m, p.k, &one, p.b, std::max(1, p.n), p.a, std::max(1, p.k),
                  &zero, p.c, std::max(1, p.n)) != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error("cublasSgemm");
}

}  // namespace sgemm_mutant
