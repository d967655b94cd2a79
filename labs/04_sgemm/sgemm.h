// Lab 04_sgemm: register blocking and lower occupancy, to cuBLAS speed.
//
// The interface every implementation of the lab provides (the starter you edit, the reference
// solution, the grader's baseline and its mutants), so that one grader links against any of them.
// Plain C++: it compiles with the host compiler.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace sgemm_lab {

// C = A B in single precision, on the CUDA cores' FP32 FMA (no tensor cores, no TF32).
// All three matrices are row-major: element (i, j) of C is c[i * n + j]; A is m x k, B is k x n.
// C is overwritten, never accumulated into: calling twice gives the same C.
struct GemmProblem {
  const float* a = nullptr;  // m * k floats, 4-byte aligned (the grader also passes offsets)
  const float* b = nullptr;  // k * n floats, 4-byte aligned
  float* c = nullptr;        // m * n floats, 4-byte aligned, overlapping neither input
  int m = 0;                 // any sizes from 0, not only multiples of a tile; k = 0 gives C = 0
  int n = 0;
  int k = 0;
  // Device memory of the step's own (split-k's partial products, packed operands), as CUB's
  // temporary storage: the caller asks the step's *_workspace_bytes() for its size, allocates at
  // least that much (256-byte aligned) and passes it here. Its contents on entry are undefined
  // (the grader poisons them): nothing may be kept in it from one call to the next.
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

// One launcher per step of the handout. Each validates the problem, sizes the grid and launches
// through workbook::launch() (which the grader reads to report registers and occupancy).
void sgemm_coalesced(const GemmProblem& problem, cudaStream_t stream);             // TODO(04.1)
void sgemm_shared_tiles(const GemmProblem& problem, cudaStream_t stream);          // TODO(04.2)
void sgemm_2_outputs_per_thread(const GemmProblem& problem, cudaStream_t stream);  // TODO(04.3)
void sgemm_4_outputs_per_thread(const GemmProblem& problem, cudaStream_t stream);  // TODO(04.4)
void sgemm_8_outputs_per_thread(const GemmProblem& problem, cudaStream_t stream);  // TODO(04.5)
void sgemm_rank1_updates(const GemmProblem& problem, cudaStream_t stream);         // TODO(04.6)
void sgemm_register_blocked(const GemmProblem& problem, cudaStream_t stream);      // TODO(04.7)
void sgemm_double_buffered(const GemmProblem& problem, cudaStream_t stream);       // TODO(04.8)
void sgemm_split_k(const GemmProblem& problem, cudaStream_t stream);               // TODO(04.9)
void sgemm_packed_pipeline(const GemmProblem& problem, cudaStream_t stream);       // TODO(04.10)
void sgemm_warp_specialized(const GemmProblem& problem, cudaStream_t stream);      // TODO(04.11), sm_90

// The workspace the steps that need one ask for, in bytes, for `shape` (every field set but the
// workspace; the answer may depend on the GPU and on the pointers' alignment). 0: none.
std::size_t sgemm_split_k_workspace_bytes(const GemmProblem& shape);          // TODO(04.9)
std::size_t sgemm_packed_pipeline_workspace_bytes(const GemmProblem& shape);  // TODO(04.10)
std::size_t sgemm_warp_specialized_workspace_bytes(const GemmProblem& shape);  // TODO(04.11)

}  // namespace sgemm_lab
