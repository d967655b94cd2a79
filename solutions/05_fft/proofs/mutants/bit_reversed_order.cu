// Mutant: output k is written at the bit reversal of k, as an in-place decimation-in-frequency FFT leaves it without its final reordering.
#include "every_step.h"
#include "honest_fft.cuh"

namespace fft_mutant {
void wrong_fft(const fft_lab::FftProblem& p, cudaStream_t stream) { honest_fft<Defect::kBitReversedOrder>(p, stream, "bit_reversed_order"); }
}  // namespace fft_mutant
