// Mutant: its points held in FP16 (__half2) between passes, as a kernel that halves its shared-memory traffic would. FP16's 11 significant bits are some 60 times the FP32 tolerance, and beyond Higham's bound.
#include "every_step.h"
#include "honest_fft.cuh"

namespace fft_mutant {
void wrong_fft(const fft_lab::FftProblem& p, cudaStream_t stream) { honest_fft<Defect::kHalfPrecision>(p, stream, "half_precision"); }
}  // namespace fft_mutant
