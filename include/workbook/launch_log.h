// What workbook::launch() remembers about each kernel launch, so that the grader can report the
// resources (registers, shared memory, spills, occupancy) of the kernels a launcher really ran,
// with the launch shape it really used.
// Plain C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

namespace workbook {

struct LaunchRecord {
  const void* kernel = nullptr;  // the __global__ function, as cudaFuncGetAttributes takes it
  dim3 grid{};
  dim3 block{};
  std::size_t dynamic_shared_bytes = 0;
  cudaStream_t stream = nullptr;
  // While planning (below): each of the kernel's parameters, as the bytes the launch passes it.
  std::vector<std::vector<unsigned char>> arguments;

  unsigned grid_blocks() const { return grid.x * grid.y * grid.z; }
  unsigned threads_per_block() const { return block.x * block.y * block.z; }
};

// Launches since the last clear, oldest first. The grader clears it before it calls a launcher.
std::vector<LaunchRecord>& recorded_launches();
void clear_recorded_launches();

// The GPU time of each launch of one call, for the grader, which times every call this way: between
// start_timing_launches() and stop_timing_launches(), workbook::launch() (and a judge's replay)
// records an event on the launch's stream before each kernel but the first, so that a call of one
// launch holds no event but the call's own, and every call holds the same. stop_timing_launches()
// takes the call's own start and stop events, waits for them, and returns each launch's milliseconds,
// in launch order: from the event before it (or the call's start) to the event after it (or the
// call's stop). Outside that window the marks do nothing.
void start_timing_launches();
void mark_launch(cudaStream_t stream);
std::vector<double> stop_timing_launches(cudaEvent_t call_start, cudaEvent_t call_stop);

// True in the planner (the trust boundary, docs/integrity.md part 1): the process that runs a launcher to
// learn what it would launch. There workbook::launch() records each launch with its arguments and
// launches nothing; the judge, which runs none of the launcher's host code, replays the record.
// Set only by the planner's main().
bool& planning_launches();

}  // namespace workbook
