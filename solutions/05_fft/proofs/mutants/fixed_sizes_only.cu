// Mutant: an FFT that is right only at the batches the grader used to check (0, 1, 3, 65) and the
// timed ones; above 256 transforms it drops the tail of any batch that is not a multiple of 64. A
// kernel tuned to the old list passes it; only batches drawn from the seed (drawn_sizes.h) catch it.
#include "every_step.h"
#include "honest_fft.cuh"

namespace fft_mutant {
void wrong_fft(const fft_lab::FftProblem& p, cudaStream_t stream) {
  fft_lab::FftProblem cut = p;
  if (p.batch > 256) cut.batch = p.batch / 64 * 64;  // the defect: the last, partial group of 64 transforms
  honest_fft<Defect::kNone>(cut, stream, "fixed_sizes_only");
}
}  // namespace fft_mutant
