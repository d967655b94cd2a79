// A mutant of lab 02_memory is one wrong copy, wrong_copy(), used for every step: the grader must
// reject every step it is tested on. Each mutant's .cu defines wrong_copy() and includes this
// header once: it provides the lab's six launchers on top of it.
#pragma once

#include "memory.h"

namespace memory_mutant {
void wrong_copy(const memory_lab::CopyProblem& problem, cudaStream_t stream);
}

namespace memory_lab {
void copy_several_floats(const CopyProblem& p, cudaStream_t s) { memory_mutant::wrong_copy(p, s); }
void copy_float2(const CopyProblem& p, cudaStream_t s) { memory_mutant::wrong_copy(p, s); }
void copy_float4(const CopyProblem& p, cudaStream_t s) { memory_mutant::wrong_copy(p, s); }
void copy_many_float4(const CopyProblem& p, cudaStream_t s) { memory_mutant::wrong_copy(p, s); }
void copy_at_memcpy_speed(const CopyProblem& p, cudaStream_t s) { memory_mutant::wrong_copy(p, s); }
void copy_with_copy_engine(const CopyProblem& p, cudaStream_t s) { memory_mutant::wrong_copy(p, s); }
}  // namespace memory_lab
