// Mutant: a product that is right only at the shapes the grader used to check (a fixed list) and
// at the timed ones; at any other it leaves the last row of C unwritten. Only shapes drawn from the
// seed (drawn_sizes.h) can catch it.
#include <algorithm>
#include <array>

#include "every_step.h"
#include "tile_gemm.cuh"

namespace {
bool in_the_old_list(int m, int n, int k) {
  struct Mnk {
    int m, n, k;
  };
  constexpr std::array<Mnk, 24> kFixed = {{{0, 0, 0},       {0, 5, 3},       {5, 0, 3},       {1, 1, 1},
                                           {1, 1, 0},       {3, 5, 0},       {2, 3, 4},       {17, 17, 17},
                                           {33, 65, 129},   {31, 33, 1},     {1, 300, 7},     {300, 1, 7},
                                           {64, 64, 64},    {128, 128, 8},   {129, 127, 9},   {127, 129, 17},
                                           {160, 96, 44},   {100, 130, 1000}, {1000, 1000, 1000}, {1023, 1025, 1027},
                                           {4095, 4097, 4093}, {4096, 4096, 4096}, {64, 64, 64},   {33, 65, 129}}};
  return std::any_of(kFixed.begin(), kFixed.end(), [&](const Mnk& s) { return s.m == m && s.n == n && s.k == k; });
}
}  // namespace

void sgemm_mutant::wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream) {
  tile_gemm(p, stream, in_the_old_list(p.m, p.n, p.k) ? p.m : p.m - 1);  // the defect: C's last row at any other shape
}
