// Defence mutant [ceiling]: honest where the bar is judged (low occupancy, large padding), but
// wherever the occupancy is high it moves the copy onto a stream of its own, out of the timer's
// sight. Its rows at a quarter and at full occupancy then show several times cudaMemcpy's speed:
// rows that nobody's bar judges, and that are impossible. Linked, only the ceiling stands between it
// and those rows, which this mutant proves; judged, the side stream's copy is replayed on the timed one.
#include "every_step.h"
#include "honest_copy.cuh"

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  constexpr std::size_t kHighOccupancyPadding = 64 * 1024;  // below this, more than a few blocks fit per SM
  honest_copy(p, p.n, p.occupancy_padding_bytes < kHighOccupancyPadding ? own_stream() : stream);  // the defect
}
