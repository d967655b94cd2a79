// Lab 01 on the CPU. The reference occupancy calculator, and the grader's own count that judges students' (it adds
// blocks one at a time where the calculator divides), against occupancies the CUDA API measured on
// the H100 (lab 04's kernels, as its grader reported them: solutions/04_sgemm/NOTES.md) and cases
// worked by hand for each limiter (on a GPU, step 01.3 checks both against the API itself). And the
// oracles of 01.1 and 01.2: a chain's end, and what makes a chase a fair measurement.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "01_latency/oracle.h"
#include "latency.h"

using latency_lab::BlockShape;
using latency_lab::Limiter;
using latency_lab::occupancy_of;
using latency_lab::SmLimits;

namespace {
// The calculator and the grader's count agree on the blocks, and the calculator names one of the
// limiters the count finds.
latency_lab::Occupancy both(const BlockShape& block, const SmLimits& sm) {
  const latency_lab::Occupancy calculated = occupancy_of(block, sm);
  const latency_oracle::SmFit counted = latency_oracle::fit_blocks(block, sm);
  CHECK(calculated.blocks == counted.blocks);
  CHECK(std::find(counted.limiters.begin(), counted.limiters.end(), calculated.limiter) != counted.limiters.end());
  return calculated;
}
}  // namespace

TEST_CASE("occupancy: lab 04's kernels, as the CUDA API measured them on the H100") {
  const SmLimits h100;
  struct Known {
    BlockShape block;
    double percent;  // the grader's report, from cudaOccupancyMaxActiveBlocksPerMultiprocessor
  };
  const Known known[] = {
      {{256, 32, 8192}, 100.0},   // 04.2: 32 x 8 threads
      {{512, 32, 8192}, 100.0},   // 04.3: 32 x 16
      {{256, 44, 8192}, 62.5},    // 04.4: 44 registers round up to 1536 a warp: 10 warps a scheduler, 5 blocks
      {{128, 54, 8192}, 56.25},   // 04.5: 1792 a warp: 9 warps a scheduler, 9 blocks
      {{256, 128, 2048}, 25.0},   // 04.6
      {{256, 128, 16640}, 25.0},  // 04.7
      {{256, 128, 49152}, 25.0},  // 04.10: 48 KiB of dynamic shared memory
  };
  for (const Known& k : known) {
    CAPTURE(k.block.threads);
    CAPTURE(k.block.registers_per_thread);
    CAPTURE(k.block.shared_bytes);
    CHECK(100.0 * both(k.block, h100).fraction(h100) == doctest::Approx(k.percent));
  }
}

TEST_CASE("occupancy: each limiter, worked by hand") {
  const SmLimits h100;
  SUBCASE("warps: 8 blocks of 8 warps fill the 64 slots (registers allow as many: both limit)") {
    const auto o = both({256, 32, 0}, h100);
    CHECK(o.blocks == 8);
    CHECK(o.warps == 64);
  }
  SUBCASE("blocks: one-warp blocks stop at 32 blocks, half the warp slots") {
    const auto o = both({32, 16, 0}, h100);
    CHECK(o.blocks == 32);
    CHECK(o.warps == 32);
    CHECK(o.limiter == Limiter::kBlocks);
  }
  SUBCASE("registers: 255 a thread round up to 8192 a warp, 2 warps a scheduler") {
    const auto o = both({128, 255, 0}, h100);
    CHECK(o.blocks == 2);
    CHECK(o.warps == 8);
    CHECK(o.limiter == Limiter::kRegisters);
  }
  SUBCASE("registers: the allocation unit matters (41 a thread is 1536 a warp, not 1312)") {
    const auto o = both({256, 41, 0}, h100);
    CHECK(o.blocks == 5);  // 1312 a warp would allow 12 warps a scheduler, 6 blocks
    CHECK(o.limiter == Limiter::kRegisters);
  }
  SUBCASE("registers: each scheduler has its own quarter (44 a thread, 2-warp blocks: 20 blocks, not 21)") {
    const auto o = both({64, 44, 0}, h100);  // 65536 / 1536 = 42 warps for the SM, but 4 x 10 for its schedulers
    CHECK(o.blocks == 20);
    CHECK(o.limiter == Limiter::kRegisters);
  }
  SUBCASE("registers: a 1024-thread block at 72 a thread exceeds the 65536 a block may hold") {
    const auto o = both({1024, 72, 0}, h100);
    CHECK(o.blocks == 0);
    CHECK(o.limiter == Limiter::kRegisters);
  }
  SUBCASE("shared memory: 48 KiB plus the 1 KiB reserve, four blocks in 228 KiB") {
    const auto o = both({256, 32, 48 * 1024}, h100);
    CHECK(o.blocks == 4);
    CHECK(o.warps == 32);
    CHECK(o.limiter == Limiter::kSharedMemory);
  }
  SUBCASE("a block of 100 threads takes 4 warps") { CHECK(both({100, 0, 0}, h100).warps == 64); }
}

TEST_CASE("occupancy: on other GPUs' SMs (01.3's second half) the calculator and the grader's count agree") {
  int shapes = 0;
  for (const latency_oracle::NamedSm& other : latency_oracle::other_sms())
    for (int registers : {1, 24, 41, 85, 255})
      for (int threads : {32, 96, 256, 1024})
        for (int shared : {0, 3000, 50000}) {
          CAPTURE(other.name);
          CAPTURE(registers);
          CAPTURE(threads);
          CAPTURE(shared);
          both({threads, registers, shared}, other.sm);
          ++shapes;
        }
  CHECK(shapes == 6 * 5 * 4 * 3);
  // The SM of no GPU differs from the H100's where a calculator could hard-code it: 2 schedulers of
  // 24576 registers, allocated 128 at a time; 512-byte shared-memory units; 12 blocks.
  const SmLimits none = latency_oracle::other_sms().back().sm;
  CHECK(occupancy_of({64, 40, 0}, none).blocks == 12);
  CHECK(occupancy_of({64, 40, 0}, none).limiter == Limiter::kBlocks);
  CHECK(occupancy_of({256, 41, 0}, none).blocks == 4);  // 1408 a warp (11 units): 17 warps a scheduler, 34 an SM
}

TEST_CASE("chain oracle: one rounding per step, and the closed form is near but not the same bits") {
  CHECK(latency_oracle::chain_end(1.5f, 1, 2.0f, 0.25f) == 3.25f);
  CHECK(latency_oracle::chain_end(1.0f, 3, 1.0f, 1.0f) == 4.0f);
  // x -> a x + b, 512 times: a^512 x0 + b (1 - a^512) / (1 - a), computed in double, differs from
  // the rounded chain in the last bits but agrees to about 1e-6: the chain is what the GPU computes.
  const float a = 1.0f - 1.0f / 512, b = 1.0f / 1024, x0 = 0.75f;
  const double closed = std::pow(double(a), 512) * x0 + b * (1 - std::pow(double(a), 512)) / (1 - double(a));
  CHECK(latency_oracle::chain_end(x0, 512, a, b) == doctest::Approx(closed).epsilon(1e-5));
}

namespace {
// Links in the order `order`: word 32 order[i] holds 32 order[i + 1], the last back to the first.
std::vector<std::uint32_t> links_in_order(const std::vector<std::uint32_t>& order) {
  std::vector<std::uint32_t> words(order.size() * 32, 0);
  for (std::size_t i = 0; i < order.size(); ++i) words[order[i] * 32] = order[(i + 1) % order.size()] * 32;
  return words;
}
std::vector<std::uint32_t> shuffled_lines(std::size_t lines, std::uint64_t seed) {
  std::vector<std::uint32_t> order(lines);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  return order;
}
}  // namespace

TEST_CASE("chase oracle: a random cycle through every line passes, at every working set the lab uses") {
  for (std::size_t lines : {std::size_t{4096 / 128}, std::size_t{512}, std::size_t{32768}, std::size_t{1} << 21})
    for (std::uint64_t seed : {1, 2, 3}) {
      CAPTURE(lines);
      CHECK(latency_oracle::chase_defect(links_in_order(shuffled_lines(lines, seed))).empty());
    }
}

TEST_CASE("chase oracle: regular strides, short cycles and stray links are rejected") {
  constexpr std::size_t kLines = 512;
  SUBCASE("line k to k + 1") {
    std::vector<std::uint32_t> order(kLines);
    std::iota(order.begin(), order.end(), 0u);
    CHECK(latency_oracle::chase_defect(links_in_order(order)).find("same 1 lines") != std::string::npos);
  }
  SUBCASE("line k to k + 7 (a cycle too: 7 and 512 share no factor)") {
    std::vector<std::uint32_t> order(kLines);
    for (std::size_t i = 0; i < kLines; ++i) order[i] = static_cast<std::uint32_t>(i * 7 % kLines);
    CHECK(latency_oracle::chase_defect(links_in_order(order)).find("same 7 lines") != std::string::npos);
  }
  SUBCASE("two cycles of half the lines each") {
    std::vector<std::uint32_t> words = links_in_order(shuffled_lines(kLines, 9));
    const std::vector<std::uint32_t> order = shuffled_lines(kLines / 2, 4);
    for (std::size_t i = 0; i < order.size(); ++i) words[order[i] * 32] = order[(i + 1) % order.size()] * 32;
    CHECK(latency_oracle::chase_defect(words).find("comes back to line") != std::string::npos);
  }
  SUBCASE("a link into the middle of a line") {
    std::vector<std::uint32_t> words = links_in_order(shuffled_lines(kLines, 5));
    words[0] += 1;
    CHECK(latency_oracle::chase_defect(words).find("not the first word of a line") != std::string::npos);
  }
}
