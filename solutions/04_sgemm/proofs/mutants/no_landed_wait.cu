// Mutant: 04.11's hand-over with the consumers' wait on the "landed" mbarrier left out. They read
// each stage before (or while) the copy engine writes it: wrong on every shape it multiplies. Built
// with WORKBOOK_MUTANT_CONTROL, it is the control: the same code with the wait, which must be right.
#include "copy_engine_gemm.cuh"
#include "every_step.h"

namespace sgemm_mutant {
#ifdef WORKBOOK_MUTANT_CONTROL
constexpr Defect kDefect = Defect::kNone;
#else
constexpr Defect kDefect = Defect::kNoLandedWait;
#endif
void wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream) { copy_engine_product<kDefect>(p, stream); }
}  // namespace sgemm_mutant
