// Defence mutant [remembered-work]: an FFT that keys what it did on the pointers and batch it is
// called with. After two full calls with the same arguments it transforms only the first sixteenth
// of the batch and leaves the rest as the second call wrote it: the same inputs at the same address
// give the same outputs, unless someone changes the inputs. The grader draws them afresh before
// every timed call, and poisons the outputs.
#include <tuple>

#include "every_step.h"
#include "honest_fft.cuh"

namespace fft_mutant {
void wrong_fft(const fft_lab::FftProblem& p, cudaStream_t stream) {
  // A call captured into a graph is never run, so a copy recorded there would remember nothing:
  // such a call is honest and does not count. (The grader once captured one call per
  // measurement; the mutant still guards against it.)
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  CUDA_CHECK(cudaStreamIsCapturing(stream, &capturing));
  if (capturing != cudaStreamCaptureStatusNone) return honest_fft<Defect::kNone>(p, stream, "replay_by_pointer");
  static std::tuple<const float2*, float2*, int> last{};
  static int repeats = 0;
  static float2* remembered = nullptr;  // the second call's outputs
  static std::size_t remembered_points = 0;
  const auto arguments = std::make_tuple(p.in, p.out, p.batch);
  repeats = arguments == last ? repeats + 1 : 0;
  last = arguments;
  const std::size_t points = std::size_t(p.batch) * fft_lab::kPoints;
  if (repeats < 2) {
    honest_fft<Defect::kNone>(p, stream, "replay_by_pointer");
    if (repeats == 1 && points > 0) {
      if (remembered_points < points) {
        CUDA_CHECK(cudaFree(remembered));
        CUDA_CHECK(cudaMalloc(&remembered, points * sizeof(float2)));
        remembered_points = points;
      }
      CUDA_CHECK(cudaMemcpyAsync(remembered, p.out, points * sizeof(float2), cudaMemcpyDeviceToDevice, stream));
    }
    return;
  }
  // The defect: the last fifteen sixteenths are the outputs of the inputs of two calls ago.
  const int head = p.batch / 16;
  honest_fft<Defect::kNone>({p.in, p.out, head}, stream, "replay_by_pointer");
  const std::size_t head_points = std::size_t(head) * fft_lab::kPoints;
  CUDA_CHECK(cudaMemcpyAsync(p.out + head_points, remembered + head_points, (points - head_points) * sizeof(float2),
                             cudaMemcpyDeviceToDevice, stream));
}
}  // namespace fft_mutant
