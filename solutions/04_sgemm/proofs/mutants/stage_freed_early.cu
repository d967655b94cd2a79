// Mutant: 04.11's hand-over with each stage's "freed" mbarrier counting one consumer warp instead
// of all eight: the producer refills a stage as soon as the fastest warp is done with it, while the
// others may still be reading. Built with WORKBOOK_MUTANT_CONTROL, it is the control: the barrier
// counts every consumer warp, and the product must be right.
#include "copy_engine_gemm.cuh"
#include "every_step.h"

namespace sgemm_mutant {
#ifdef WORKBOOK_MUTANT_CONTROL
constexpr Defect kDefect = Defect::kNone;
#else
constexpr Defect kDefect = Defect::kStageFreedEarly;
#endif
void wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream) { copy_engine_product<kDefect>(p, stream); }
}  // namespace sgemm_mutant
