// Mutant: the copy engine's ring without the wait for a store to read its stage: each stage is
// loaded again straight after its store has started, and the next chunk's bytes may overwrite the
// ones still being stored (copy_engine_ring.cuh). On the H100 it is never wrong: its copy engine
// works in order, so a store has read its stage before a later load's bytes land (0 wrong floats
// in solutions/02_memory/experiments/stage_reuse.cu). The machine-code check [stage-reuse] rejects
// it; without that check it clears 02.6's bar. Built with WORKBOOK_MUTANT_CONTROL, the wait is back:
// the control, which must pass the check.
#include "copy_engine_ring.cuh"
#include "every_step.h"

namespace memory_mutant {
#ifdef WORKBOOK_MUTANT_CONTROL
constexpr bool kWaitsForRead = true;
#else
constexpr bool kWaitsForRead = false;
#endif
void wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) { ring_copy<true, kWaitsForRead>(p, stream); }
}  // namespace memory_mutant
