// Lab 01's reference occupancy calculator against occupancies the CUDA API measured on the H100:
// lab 04's steps, whose registers, shared memory and occupancy the grader reported
// (solutions/04_sgemm/NOTES.md), and hand-worked cases for each limiter. CPU only; the lab's grader
// will check any calculator against the API itself over a few hundred configurations.
#include <doctest/doctest.h>

#include "occupancy.h"

using latency_lab::BlockShape;
using latency_lab::Limiter;
using latency_lab::occupancy_of;
using latency_lab::SmLimits;

TEST_CASE("occupancy calculator: lab 04's kernels, as the CUDA API measured them on the H100") {
  const SmLimits h100;
  struct Known {
    BlockShape block;
    double percent;  // the grader's report, from cudaOccupancyMaxActiveBlocksPerMultiprocessor
  };
  const Known known[] = {
      {{256, 32, 8192}, 100.0},    // 04.2: 32 x 8 threads
      {{512, 32, 8192}, 100.0},    // 04.3: 32 x 16
      {{256, 44, 8192}, 62.5},     // 04.4: 44 registers round up to 1536 a warp: 42 warps, 5 blocks
      {{128, 54, 8192}, 56.25},    // 04.5: 1792 a warp: 36 warps, 9 blocks
      {{256, 128, 2048}, 25.0},    // 04.6
      {{256, 128, 16640}, 25.0},   // 04.7
      {{256, 128, 49152}, 25.0},   // 04.10: 48 KiB of dynamic shared memory
  };
  for (const Known& k : known) {
    CAPTURE(k.block.threads);
    CAPTURE(k.block.registers_per_thread);
    CAPTURE(k.block.shared_bytes);
    CHECK(100.0 * occupancy_of(k.block, h100).fraction(h100) == doctest::Approx(k.percent));
  }
}

TEST_CASE("occupancy calculator: each limiter, worked by hand") {
  const SmLimits h100;
  SUBCASE("warps: 8 blocks of 8 warps fill the 64 slots (registers would allow as many)") {
    const auto o = occupancy_of({256, 32, 0}, h100);
    CHECK(o.blocks == 8);
    CHECK(o.warps == 64);
    CHECK(o.limiter == Limiter::kWarps);
  }
  SUBCASE("blocks: one-warp blocks stop at 32 blocks, half the warp slots") {
    const auto o = occupancy_of({32, 16, 0}, h100);
    CHECK(o.blocks == 32);
    CHECK(o.warps == 32);
    CHECK(o.limiter == Limiter::kBlocks);
  }
  SUBCASE("registers: 255 a thread round up to 8192 a warp, 8 warps an SM") {
    const auto o = occupancy_of({128, 255, 0}, h100);
    CHECK(o.blocks == 2);
    CHECK(o.warps == 8);
    CHECK(o.limiter == Limiter::kRegisters);
  }
  SUBCASE("registers: the allocation unit matters (41 a thread is 1536 a warp, not 1312)") {
    const auto o = occupancy_of({256, 41, 0}, h100);
    CHECK(o.blocks == 5);  // 1312 a warp would allow 49 warps, 6 blocks
    CHECK(o.limiter == Limiter::kRegisters);
  }
  SUBCASE("shared memory: 48 KiB plus the 1 KiB reserve, four blocks in 228 KiB") {
    const auto o = occupancy_of({256, 32, 48 * 1024}, h100);
    CHECK(o.blocks == 4);
    CHECK(o.warps == 32);
    CHECK(o.limiter == Limiter::kSharedMemory);
  }
  SUBCASE("a block of 100 threads takes 4 warps") {
    CHECK(occupancy_of({100, 0, 0}, h100).warps == 64);
  }
}
