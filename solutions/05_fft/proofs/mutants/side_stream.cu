// Boundary mutant: a correct FFT, launched through workbook::launch on a stream of the launcher's
// own. The timer sees only the stream it gave; judged, the plan's launch is replayed on that stream,
// and timed like any other.
#include "every_step.h"
#include "honest_fft.cuh"

namespace {
cudaStream_t own_stream() {
  static cudaStream_t own = [] {
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
  }();
  return own;
}
}  // namespace

namespace fft_mutant {
void wrong_fft(const fft_lab::FftProblem& p, cudaStream_t) {
  honest_fft<Defect::kNone>(p, own_stream(), "side_stream");  // the defect: not its stream
}
}  // namespace fft_mutant
