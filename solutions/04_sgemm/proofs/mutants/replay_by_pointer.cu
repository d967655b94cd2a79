// Defence mutant [remembered-work]: keys a stored C on the pointers and sizes it is called with.
// After two full calls with the same arguments it computes only the top half of C and copies the
// bottom half from the C it stored: the same inputs at the same addresses give the same product,
// unless someone changes the inputs. The grader draws them afresh before every timed call.
#include <tuple>

#include "every_step.h"
#include "tile_gemm.cuh"

void sgemm_mutant::wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream) {
  static std::tuple<const float*, const float*, float*, int, int, int> last{};
  static int repeats = 0;
  static float* stored = nullptr;
  const auto arguments = std::make_tuple(p.a, p.b, p.c, p.m, p.n, p.k);
  repeats = arguments == last ? repeats + 1 : 0;
  last = arguments;
  const std::size_t floats = std::size_t(p.m) * p.n, top = std::size_t(p.m / 2) * p.n;
  if (repeats < 2 || stored == nullptr) {
    tile_gemm(p, stream);
    if (repeats == 1 && floats > 0) {  // remember this product
      if (stored != nullptr) CUDA_CHECK(cudaFree(stored));
      CUDA_CHECK(cudaMalloc(&stored, floats * sizeof(float)));
      CUDA_CHECK(cudaMemcpyAsync(stored, p.c, floats * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    }
    return;
  }
  tile_gemm(p, stream, p.m / 2);  // the defect: the bottom half is replayed
  CUDA_CHECK(cudaMemcpyAsync(p.c + top, stored + top, (floats - top) * sizeof(float), cudaMemcpyDeviceToDevice, stream));
}
