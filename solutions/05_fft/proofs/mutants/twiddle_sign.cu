// Mutant: the twiddles between passes are exp(+2 pi i ...), the inverse transform's.
#include "every_step.h"
#include "honest_fft.cuh"

namespace fft_mutant {
void wrong_fft(const fft_lab::FftProblem& p, cudaStream_t stream) { honest_fft<Defect::kTwiddleSign>(p, stream, "twiddle_sign"); }
}  // namespace fft_mutant
