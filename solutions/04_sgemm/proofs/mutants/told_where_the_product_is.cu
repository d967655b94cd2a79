// Residue mutant: copies the grader's own product instead of computing one. Its kernels run in the
// judge's context, where every allocation is reachable by pointer arithmetic; the grader's baseline
// and cuBLAS write their products into a scratch array of m x n floats. Where that array lies no
// student can know for sure (cudaMalloc's layout moves with every case before it: a blind scan
// faults), so this mutant is told, as the strongest cheat would be: the proof runs the judge with
// WORKBOOK_PROOF_SCRATCH_LOG, where it writes each scratch array's address (buffers.cu), and the
// mutant's planner reads it. Its kernels then compute C[0][0], C[0][1] and C[1][0] themselves and,
// if the scratch array starts with those values, copy it into C instead of multiplying; else they
// multiply honestly.
//
// Proof (RESIDUE_MUTANTS in solutions/04_sgemm/proofs/CMakeLists.txt): with every defence on, the
// inputs are drawn afresh before each timed call, so the scratch holds the previous call's product:
// the mutant is graded on its honest kernel. With [remembered-work] off (inputs kept), the scratch
// holds this call's product: it copies it, and a copy "multiplies" faster than the device can, so
// [ceiling] catches it. The second test proves the copy is found where an answer sits; the first,
// that none sits within a kernel's reach while it runs. Both need the line this planner prints when
// it is told (grader/tests/mutant_word.sh): a mutant that never looked proves nothing. (It once
// never looked: its timed plan was replayed from a correctness case whose arrays had lain at the
// same addresses; the judge now plans what it times afresh, judge.h.)
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "every_step.h"
#include "tile_gemm.cuh"

namespace {

// Whether the grader's product was found this call: set by find_the_product, read by the rest.
__device__ int g_found = 0;

// C[i][j] in double, summed by one warp.
__device__ double warp_dot(const float* a, const float* b, int n, int k, int i, int j) {
  double sum = 0;
  for (int t = threadIdx.x; t < k; t += 32) sum += double(a[std::size_t(i) * k + t]) * b[std::size_t(t) * n + j];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  return sum;
}

__device__ bool close_to(float got, double want) {
  const double scale = fabs(want) > 1.0 ? fabs(want) : 1.0;
  return fabs(double(got) - want) <= 1e-3 * scale;
}

// One warp: does the scratch array hold this call's product?
__global__ void find_the_product(const float* a, const float* b, const float* scratch, int n, int k) {
  const double probes[3] = {warp_dot(a, b, n, k, 0, 0), warp_dot(a, b, n, k, 0, 1), warp_dot(a, b, n, k, 1, 0)};
  if (threadIdx.x == 0)
    g_found = close_to(scratch[0], probes[0]) && close_to(scratch[1], probes[1]) && close_to(scratch[n], probes[2]);
}

__global__ void copy_the_product(const float* scratch, float* c, std::size_t count) {
  if (!g_found) return;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
    c[i] = scratch[i];
}

struct UnlessFound : sgemm_mutant::Honest {
  __device__ static bool skip() { return g_found != 0; }
};

// The last scratch array of `count` floats the judge made and has not freed, or nullptr.
const float* grader_scratch(std::size_t count) {
  const char* path = std::getenv("WORKBOOK_PROOF_SCRATCH_LOG");
  if (path == nullptr) return nullptr;
  std::ifstream log(path);
  std::map<std::string, std::size_t> live;  // address -> count
  std::string latest;
  for (std::string line; std::getline(log, line);) {
    std::istringstream words(line);
    std::string what, address;
    std::size_t size = 0;
    words >> what >> address >> size;
    if (what == "scratch") {
      live[address] = size;
      if (size == count) latest = address;
    } else if (what == "freed") {
      live.erase(address);
      if (address == latest) latest.clear();
    }
  }
  if (latest.empty()) return nullptr;
  return reinterpret_cast<const float*>(std::strtoull(latest.c_str(), nullptr, 16));
}

}  // namespace

void sgemm_mutant::wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream) {
  if (p.m < 2 || p.n < 2 || p.k < 1) {
    tile_gemm(p, stream);
    return;
  }
  const std::size_t count = std::size_t(p.m) * p.n;
  const float* scratch = grader_scratch(count);
  if (scratch == nullptr) {  // a correctness case: nothing of the grader's to copy
    tile_gemm(p, stream);
    return;
  }
  std::fprintf(stderr, "told_where_the_product_is: the grader's scratch product at %p\n", static_cast<const void*>(scratch));
  workbook::launch(find_the_product, dim3(1), dim3(32), 0, stream, p.a, p.b, scratch, p.n, p.k);
  tile_gemm<UnlessFound>(p, stream);
  workbook::launch(copy_the_product, dim3(1024), dim3(256), 0, stream, scratch, p.c, count);
}
