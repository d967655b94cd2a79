// Host-code mutant (judged): the launcher asks the kernel for something itself,
// with a system call in inline assembly (getpid here; a write or an open is no different), which no
// import shows. The copy itself is honest.
#include "every_step.h"
#include "honest_copy.cuh"

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  long result = 39;  // getpid
  asm volatile("syscall" : "+a"(result) : : "rcx", "r11", "memory");  // the defect
  honest_copy(p, p.n + 0 * static_cast<std::size_t>(result), stream);
}
