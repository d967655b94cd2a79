// Lab 04 experiment: 04.8's kernel with larger thread tiles (8 x 16, 16 x 8), as cuBLAS's kernel
// has, against 04.8's own 8 x 8 and cuBLAS. Needs variants.patch (README.md).
#include "../sgemm.cu"
#include "compare.h"

namespace sgemm_lab {
namespace {
// A blocked-kernel policy: an M x N tile of C, depth D, TM x TN outputs per thread.
template <int M, int N, int D, int TM, int TN>
struct Tiles {
  static constexpr int kTileM = M, kTileN = N, kDepth = D, kThreadM = TM, kThreadN = TN;
  static constexpr int kThreads = (M / TM) * (N / TN), kPad = 4;
  static constexpr int kLoadsA = M * D / 4 / kThreads, kLoadsB = D * N / 4 / kThreads;
};
}  // namespace
}  // namespace sgemm_lab

int main() {
  using namespace sgemm_lab;
  compare_at({int3{4096, 4096, 4096}, int3{8192, 8192, 8192}, int3{4095, 4097, 4093}, int3{1000, 1000, 1000}}, [](Comparison& compare, int3 s) {
    const GemmProblem p = compare.problem();
#define TILES(M, N, D, TM, TN)                                           \
  compare.run("", "blocked " #M "x" #N "x" #D " t" #TM "x" #TN,          \
              [&] { launch_blocked_kernel<Tiles<M, N, D, TM, TN>, true>(p, nullptr); });
    TILES(128, 128, 16, 8, 8)
    TILES(128, 256, 8, 8, 16)
    TILES(256, 128, 8, 16, 8)
    if (s.x == 4096) {
      TILES(128, 128, 8, 8, 16)
      TILES(128, 128, 8, 16, 8)
      TILES(64, 256, 8, 8, 16)
      TILES(128, 128, 16, 8, 16)
      TILES(256, 64, 8, 16, 8)
    }
  });
}
