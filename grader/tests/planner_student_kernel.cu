// The planner test's "student" launching as many students first do: with <<<...>>>, which nvcc
// compiles to the runtime's own launch (since CUDA 13 its internal __cudaLaunchKernel), not to
// workbook::launch. The planner must refuse it while planning, before anything reaches a GPU.
#include "planner_student.h"

namespace planner_test {

namespace {
__global__ void fill_kernel(float* out) { out[threadIdx.x] = 1.0f; }
}  // namespace

void launches_with_chevrons(const Target& target, cudaStream_t stream) {
  fill_kernel<<<1, 32, 0, stream>>>(target.out);
}

}  // namespace planner_test
