// What workbook::launch() remembers about each kernel launch, so that the grader can report the
// resources (registers, shared memory, spills, occupancy) of the kernels a launcher really ran,
// with the launch shape it really used. Plain C++.
#pragma once

#include <cstddef>
#include <vector>

namespace workbook {

struct LaunchRecord {
  const void* kernel = nullptr;  // the __global__ function, as cudaFuncGetAttributes takes it
  unsigned grid_blocks = 0;      // gridDim.x * gridDim.y * gridDim.z
  unsigned threads_per_block = 0;
  std::size_t dynamic_shared_bytes = 0;
};

// Launches since the last clear, oldest first. The grader clears it before it calls a launcher.
std::vector<LaunchRecord>& recorded_launches();
void clear_recorded_launches();

}  // namespace workbook
