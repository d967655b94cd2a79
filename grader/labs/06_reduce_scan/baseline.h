// Lab 06_reduce_scan's baselines, the naive kernels every step is measured against: Harris's first
// reduction kernel and a one-element-per-thread Hillis-Steele scan. Fixed: part of the grader.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "reduce_scan.h"

namespace reduce_scan_baseline {

using reduce_scan_lab::SumProblem;

// Harris's kernel 1: interleaved addressing with the divergent `t % (2 s) == 0` test, one element
// per thread, pass after pass.
void reduce_divergent(const SumProblem& problem, cudaStream_t stream);
// Hillis and Steele's scan in shared memory, one element per thread, two barriers a level; the
// blocks' totals scanned the same way; the offsets added: three kernels a level.
void scan_naive(const SumProblem& problem, cudaStream_t stream);

// Their workspaces, in bytes (the grader allocates them).
std::size_t reduce_divergent_workspace_bytes(const SumProblem& shape);
std::size_t scan_naive_workspace_bytes(const SumProblem& shape);

}  // namespace reduce_scan_baseline
