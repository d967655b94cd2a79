// Lab 06_reduce_scan: Harris's reduction ladder and the scan, to CUB speed.
//
// The interface every implementation of the lab provides (the starter you edit, the reference
// solution, the grader's baseline and its mutants), so that one grader links against any of them.
// Plain C++: it compiles with the host compiler.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace reduce_scan_lab {

// Sums of 32-bit integers that wrap around (modulo 2^32), as Harris's did: every order of addition
// gives the same, exact answer, so the lab is about speed, never rounding. (Add them as unsigned
// int, whose overflow C++ defines; the bits are those of the int sum.)
struct SumProblem {
  const std::int32_t* in = nullptr;  // n ints, 4-byte aligned (the grader also passes offsets)
  // Reductions: one int, in[0] + ... + in[n - 1] (0 when n is 0).
  // Scans: n ints, the exclusive prefix sums: out[0] = 0, out[i] = in[0] + ... + in[i - 1].
  std::int32_t* out = nullptr;  // not overlapping `in`
  std::size_t n = 0;            // any count from 0
  // Device memory of the step's own (partial sums, tile states), as CUB's temporary storage: the
  // caller asks reduce_workspace_bytes() or scan_workspace_bytes() for its size and passes at least
  // that much here, 256-byte aligned. Its contents on entry are garbage (the grader poisons them).
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

// One launcher per step of the handout. Each validates the problem, sizes the grid and launches
// through workbook::launch() (which the grader reads to report the kernel's resources).
void reduce_interleaved(const SumProblem& problem, cudaStream_t stream);          // TODO(06.1)
void reduce_sequential(const SumProblem& problem, cudaStream_t stream);           // TODO(06.2)
void reduce_first_add_during_load(const SumProblem& problem, cudaStream_t stream);  // TODO(06.3)
void reduce_last_warp_shuffled(const SumProblem& problem, cudaStream_t stream);   // TODO(06.4)
void reduce_unrolled(const SumProblem& problem, cudaStream_t stream);             // TODO(06.5)
void reduce_at_cub_speed(const SumProblem& problem, cudaStream_t stream);         // TODO(06.6)
void scan_blelloch(const SumProblem& problem, cudaStream_t stream);               // TODO(06.7)
void scan_hillis_steele(const SumProblem& problem, cudaStream_t stream);          // TODO(06.8)
void scan_register_blocked(const SumProblem& problem, cudaStream_t stream);       // TODO(06.9)
void scan_decoupled_look_back(const SumProblem& problem, cudaStream_t stream);    // TODO(06.10)

// The workspace, in bytes, that a reduction step (06.1 to 06.6) or a scan step (06.7 to 06.10)
// needs for `shape` (every field set but the workspace): the most any of your steps of that kind
// needs. 0: none.
std::size_t reduce_workspace_bytes(const SumProblem& shape);  // TODO(06.1)
std::size_t scan_workspace_bytes(const SumProblem& shape);    // TODO(06.7)

}  // namespace reduce_scan_lab
