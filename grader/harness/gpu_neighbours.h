// Who else holds a context on the judge's GPU while a step is timed. The timing assumes an idle
// GPU: another context's kernels take time slices from the judge's, and a long kernel (a baseline)
// loses more of them than a short one, so a busy GPU inflates a step's speedup. No process of the
// student's can hold one (a planner and all it starts may make no ioctl, planner_process.h, and are
// ended before anything is timed); this is the measurement that says so, from NVML, the driver's
// management library (loaded at run time: where it is missing the judge says it could not look).
#pragma once

#include <string>
#include <vector>

namespace workbook {

struct GpuNeighbours {
  std::vector<std::string> of_this_grading;  // "pid (name)": descendants of this process
  std::vector<std::string> others;           // every other process NVML lists on this GPU
  std::string unknown;                       // why NVML could not be asked ("" when it was)
};
// This process's GPU's compute processes but this process.
GpuNeighbours gpu_neighbours();

// Before a step is timed: throws std::runtime_error, naming them, when other processes hold a
// context on the GPU: one of this grading's (the student's code started it), or anyone's (then the
// step is not timed, and says to grade again on an idle GPU).
void check_gpu_not_shared();

}  // namespace workbook
