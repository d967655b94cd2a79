// Lab 03's device-side check of a timed call: out must be the transpose of what the generator put
// in `in` (computed from its seed, not read back from `in`).
#include "check.h"

#include "harness/device_check.cuh"

namespace transpose_check {

namespace {
__global__ void count_untransposed_kernel(const float* out, int rows, int cols, std::uint64_t key,
                                          workbook::DeviceMismatches* result) {
  const std::size_t count = std::size_t(rows) * cols;
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < count;
       e += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t c = e / rows, r = e % rows;  // out[c * rows + r] = in[r * cols + c]
    if (__float_as_uint(out[e]) != __float_as_uint(workbook::random_element(key, r * cols + c)))
      workbook::note_mismatch(result, e);
  }
}
}  // namespace

void count_untransposed(const float* out, int rows, int cols, std::uint64_t in_seed, workbook::DeviceMismatches* result,
                        cudaStream_t stream) {
  const std::size_t count = std::size_t(rows) * cols;
  if (count == 0) return;
  count_untransposed_kernel<<<workbook::check_grid(count), workbook::kCheckThreads, 0, stream>>>(
      out, rows, cols, workbook::random_key(in_seed), result);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace transpose_check
