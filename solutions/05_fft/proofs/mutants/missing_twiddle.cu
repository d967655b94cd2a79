// Mutant: the last pass multiplies by no twiddles: right for the first quarter of the outputs of each sub-transform only.
#include "every_step.h"
#include "honest_fft.cuh"

namespace fft_mutant {
void wrong_fft(const fft_lab::FftProblem& p, cudaStream_t stream) { honest_fft<Defect::kMissingTwiddle>(p, stream, "missing_twiddle"); }
}  // namespace fft_mutant
