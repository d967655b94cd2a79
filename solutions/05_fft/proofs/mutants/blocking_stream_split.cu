// Boundary mutant: the first half of the batch goes, with <<<>>>, to a blocking
// stream of the launcher's own, and the given stream waits for it through an event. The half starts
// at once, while the grader's gate still holds the given stream, so most of it runs before the
// start event; the wait puts the rest inside the timed window, so nothing is left running, and no
// launch record names the other stream. Judged, its planner refuses the <<<>>>.
#include "every_step.h"
#include "honest_fft.cuh"

namespace {
cudaStream_t blocking_stream() {
  static cudaStream_t own = [] {
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreate(&s));
    return s;
  }();
  return own;
}
cudaEvent_t first_half_done() {
  static cudaEvent_t done = [] {
    cudaEvent_t e = nullptr;
    CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    return e;
  }();
  return done;
}
}  // namespace

namespace fft_mutant {
void wrong_fft(const fft_lab::FftProblem& p, cudaStream_t stream) {
  fft_lab::validate(p, "blocking_stream_split");
  const int half = p.batch / 2;
  if (half > 0)  // the defect: not the given stream
    honest::fft_kernel<Defect::kNone><<<half, honest::kThreads, 0, blocking_stream()>>>(p.in, p.out);
  CUDA_CHECK(cudaEventRecord(first_half_done(), blocking_stream()));
  CUDA_CHECK(cudaStreamWaitEvent(stream, first_half_done()));
  fft_lab::FftProblem rest = p;
  rest.in += static_cast<std::size_t>(half) * fft_lab::kPoints;
  rest.out += static_cast<std::size_t>(half) * fft_lab::kPoints;
  rest.batch -= half;
  honest_fft<Defect::kNone>(rest, stream, "blocking_stream_split");
}
}  // namespace fft_mutant
