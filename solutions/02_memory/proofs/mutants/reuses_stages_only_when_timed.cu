// Mutant: the copy engine's ring that waits for each store to read its stage at every size but the
// timed one (2^26 floats), where it loads each stage again straight after its store has started
// (copy_engine_ring.cuh, as stage_reused_before_read does everywhere). Its correctness cases name
// only the waiting kernel, and its timed calls only the other. The machine-code check once read the
// kernels of the correctness cases alone, and this passed 02.6 on an H200 (63.94x, 93.5%
// of cudaMemcpy); it reads every kernel a plan of the step names now, the timed plans' too.
#include "copy_engine_ring.cuh"
#include "every_step.h"

namespace memory_mutant {
constexpr std::size_t kTimedFloats = std::size_t{1} << 26;  // the size 02.6 is timed at (the grader's)

void wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  if (p.n == kTimedFloats) ring_copy<true, false>(p, stream);  // the defect: stages reused early, timed only
  else ring_copy<true, true>(p, stream);
}
}  // namespace memory_mutant
