// Defence mutant [remembered-work]: a sum that keys what it stored on the pointers and size it is
// called with. After two full calls with the same arguments it adds up only the first sixteenth of
// the ints, and takes the sum of the rest from the second call: the same inputs at the same address
// give the same sum, unless someone changes the inputs. The grader draws them afresh before every
// timed call.
#include <tuple>

#include "every_step.h"
#include "tile_scan.cuh"

namespace reduce_scan_mutant {
void wrong_sum(const reduce_scan_lab::SumProblem& p, cudaStream_t stream) {
  static std::tuple<const std::int32_t*, std::int32_t*, std::size_t> last{};
  static int repeats = 0;
  static std::int32_t* stored = nullptr;  // the sum of in[head ...]
  const auto arguments = std::make_tuple(p.in, p.out, p.n);
  repeats = arguments == last ? repeats + 1 : 0;
  last = arguments;
  const std::size_t head = p.n / 16;
  if (stored == nullptr) CUDA_CHECK(cudaMalloc(&stored, sizeof(std::int32_t)));
  if (repeats < 2) {
    grid_sum(p, stream, "replay_by_pointer");
    if (repeats == 1) {  // remember the rest's sum
      CUDA_CHECK(cudaMemsetAsync(stored, 0, sizeof(std::int32_t), stream));
      add_sum(p.in + head, p.n - head, stored, stream);
    }
    return;
  }
  reduce_scan_lab::validate(p, "replay_by_pointer", reduce_scan_lab::Output::kOneSum);
  // The defect: the rest's sum is the one the inputs had two calls ago.
  CUDA_CHECK(cudaMemcpyAsync(p.out, stored, sizeof(std::int32_t), cudaMemcpyDeviceToDevice, stream));
  add_sum(p.in, head, p.out, stream);
}
void wrong_scan(const reduce_scan_lab::SumProblem&, cudaStream_t) { not_this_mutant("scans"); }
std::size_t sum_workspace_bytes(const reduce_scan_lab::SumProblem&) { return 0; }
std::size_t scan_workspace_bytes(const reduce_scan_lab::SumProblem&) { return 0; }
}  // namespace reduce_scan_mutant
