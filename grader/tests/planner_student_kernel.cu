// The planner test's "student" launching as many students first do: with <<<...>>>, which nvcc
// compiles to the runtime's own launch (since CUDA 13 its internal __cudaLaunchKernel), not to
// workbook::launch. The planner must refuse it while planning, before anything reaches a GPU.
// And as every student must: with workbook::launch, which the planner records, naming the kernel as
// its device code does without starting CUDA (the test runs with no GPU).
#include "planner_student.h"
#include "workbook/launch.cuh"

namespace planner_test {

namespace {
__global__ void fill_kernel(float* out) { out[threadIdx.x] = 1.0f; }
}  // namespace

void launches_with_chevrons(const Target& target, cudaStream_t stream) {
  fill_kernel<<<1, 32, 0, stream>>>(target.out);
}

__global__ void scale_kernel(float* out, float by) { out[threadIdx.x] *= by; }

void launches_through_workbook(const Target& target, cudaStream_t stream) {
  workbook::launch(scale_kernel, dim3(2), dim3(64), 0, stream, target.out, 3.0f);
}

// As a launcher sizing a grid does: the SMs and this kernel's blocks per SM, from the runtime, which
// in a planner asks the judge.
int grid_from_the_runtime(int threads) {
  int device = -1, sms = 0, per_sm = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    return -1;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scale_kernel, threads, 1000) != cudaSuccess) return -2;
  cudaFuncAttributes attributes{};
  if (cudaFuncGetAttributes(&attributes, scale_kernel) != cudaSuccess) return -3;
  return sms * per_sm + attributes.numRegs;
}

}  // namespace planner_test
