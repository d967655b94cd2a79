// Lab 02_memory: hide memory latency with fewer threads.
//
// The interface every implementation of the lab provides (the starter you edit, the reference
// solution, the grader's baseline and its mutants), so that one grader links against any of them.
// Plain C++: it compiles with the host compiler.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace memory_lab {

// Copy n floats from `in` to `out`. The grader chooses the launch shape so that every step is
// measured at the same occupancy as the baseline: honour both fields.
struct CopyProblem {
  const float* in = nullptr;  // n floats, 16-byte aligned (cudaMalloc gives 256)
  float* out = nullptr;       // n floats, 16-byte aligned, not overlapping `in`
  std::size_t n = 0;          // any count, 0 included
  int threads_per_block = 128;  // a multiple of 32, at most 1024
  // Dynamic shared memory for each block that the kernel never touches. It is how the grader
  // limits the number of blocks resident on an SM, and so the occupancy, as Volkov did (2010).
  std::size_t occupancy_padding_bytes = 0;
};

// One launcher per step of the handout. Each validates the problem, sizes the grid and launches
// through workbook::launch() (which the grader reads to report the kernel's resources).
void copy_several_floats(const CopyProblem& problem, cudaStream_t stream);   // TODO(02.1)
void copy_float2(const CopyProblem& problem, cudaStream_t stream);           // TODO(02.2)
void copy_float4(const CopyProblem& problem, cudaStream_t stream);           // TODO(02.3)
void copy_many_float4(const CopyProblem& problem, cudaStream_t stream);      // TODO(02.4)
void copy_at_memcpy_speed(const CopyProblem& problem, cudaStream_t stream);  // TODO(02.5)
// Compute capability 9.0 (Hopper) and later: one thread per block drives the bulk-copy engine.
void copy_with_copy_engine(const CopyProblem& problem, cudaStream_t stream);  // TODO(02.6)

}  // namespace memory_lab
