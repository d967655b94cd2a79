// Mutant: the copy engine's ring without the wait on a stage's barrier: each stage is stored as soon
// as its load has started, so the store sends what the stage held before (copy_engine_ring.cuh).
// Built with WORKBOOK_MUTANT_CONTROL, the wait is back: the control, which must be correct.
#include "copy_engine_ring.cuh"
#include "every_step.h"

namespace memory_mutant {
#ifdef WORKBOOK_MUTANT_CONTROL
constexpr bool kWaitsForLanding = true;
#else
constexpr bool kWaitsForLanding = false;
#endif
void wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) { ring_copy<kWaitsForLanding, true>(p, stream); }
}  // namespace memory_mutant
