// The argument and answer types of the planner test's "student" (planner_student.cpp), which the
// test (test_planner_process.cpp) sends across the pipe as bytes: one definition for both sides.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace planner_test {

struct Shape {
  int rows = 0, cols = 0;
};
struct Occupancy {
  int blocks = 0;
  int limiter = 0;
};
// The processes of a chain the planner started (chain_of_processes()): each one's pid as the
// test's process sees it.
struct Chain {
  int count = 0;
  int pids[64] = {};
};
// A launcher's buffer: the judge's address, a number in the planner.
struct Target {
  float* out = nullptr;
  std::size_t count = 0;
};

// planner_student_kernel.cu: a kernel launched with <<<...>>> into the target.
void launches_with_chevrons(const Target& target, cudaStream_t stream);
// And with workbook::launch: scale_kernel(target.out, 3.0f), 2 blocks of 64 threads.
void launches_through_workbook(const Target& target, cudaStream_t stream);

// And grid_from_the_runtime(threads): SMs x scale_kernel's blocks per SM (1000 bytes of dynamic
// shared memory) + its registers, each asked of the runtime: -1, -2 or -3 where one fails.
int grid_from_the_runtime(int threads);

}  // namespace planner_test
