// Lab 01's oracles, on the CPU: the end of an FMA chain, the occupancy an SM allows (with every
// resource that limits it), and what makes a pointer chase a fair measurement of latency. Plain C++
// (grader/tests/test_oracles.cpp checks them).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "latency.h"

namespace latency_oracle {

// std::fma on floats rounds once, as the GPU's FFMA does: the same bits.
inline float chain_end(float start, int length, float a, float b) {
  float x = start;
  for (int i = 0; i < length; ++i) x = std::fma(x, a, b);
  return x;
}

// What an SM holds of a block, found by adding blocks one at a time until a resource runs out (the
// lab's calculators divide instead: two ways to the same count). Every resource that stops the
// count there is a limiter.
struct SmFit {
  int blocks = 0;
  std::vector<latency_lab::Limiter> limiters;
};

inline SmFit fit_blocks(const latency_lab::BlockShape& block, const latency_lab::SmLimits& sm) {
  using latency_lab::Limiter;
  const auto round_up = [](long long value, long long unit) { return (value + unit - 1) / unit * unit; };
  const long long warps = (block.threads + sm.warp_size - 1) / sm.warp_size;
  const long long registers_per_warp = round_up(1LL * block.registers_per_thread * sm.warp_size, sm.register_unit);
  const long long shared_per_block = round_up(block.shared_bytes + sm.shared_reserved_per_block, sm.shared_unit);
  // A block is refused outright when its registers, counted in whole groups of `schedulers` warps as
  // the hardware checks them, exceed the per-block limit.
  if (registers_per_warp * round_up(warps, sm.schedulers) > sm.registers_per_block) return {0, {Limiter::kRegisters}};

  // Warps are placed on the schedulers in turn; each scheduler has its own share of the registers.
  const long long registers_per_scheduler = sm.registers / sm.schedulers;
  std::vector<long long> scheduler_registers(sm.schedulers, 0);
  const auto place_registers = [&](std::vector<long long>& used) {
    for (long long w = 0; w < warps; ++w) {
      auto emptiest = std::min_element(used.begin(), used.end());
      if (*emptiest + registers_per_warp > registers_per_scheduler) return false;
      *emptiest += registers_per_warp;
    }
    return true;
  };
  SmFit fit;
  long long used_warps = 0, used_shared = 0;
  while (true) {
    std::vector<Limiter> stops;
    if (used_warps + warps > sm.max_warps) stops.push_back(Limiter::kWarps);
    if (fit.blocks + 1 > sm.max_blocks) stops.push_back(Limiter::kBlocks);
    std::vector<long long> trial = scheduler_registers;
    if (!place_registers(trial)) stops.push_back(Limiter::kRegisters);
    if (used_shared + shared_per_block > sm.shared_bytes) stops.push_back(Limiter::kSharedMemory);
    if (!stops.empty()) {
      fit.limiters = stops;
      return fit;
    }
    ++fit.blocks;
    used_warps += warps;
    used_shared += shared_per_block;
    scheduler_registers = trial;
  }
}

// SMs that are not the GPU a step runs on, for 01.3: the CUDA API answers only for that GPU (and
// only for kernels that exist), so a calculator that asks it instead of counting fails these. The
// limits are each GPU's as NVIDIA's occupancy calculator tables give them; the last is an SM of no
// GPU, so that no calculator passes by knowing a table.
struct NamedSm {
  const char* name;
  latency_lab::SmLimits sm;
};
inline std::vector<NamedSm> other_sms() {
  //                                  warp  warps blocks registers  per block  sched unit  shared   reserved unit
  return {
      {"a V100's (sm_70)", {32, 64, 32, 65536, 65536, 4, 256, 98304, 0, 256}},
      {"a T4's (sm_75)", {32, 32, 16, 65536, 65536, 4, 256, 65536, 0, 256}},
      {"an A100's (sm_80)", {32, 64, 32, 65536, 65536, 4, 256, 167936, 1024, 128}},
      {"an RTX 3090's (sm_86)", {32, 48, 16, 65536, 65536, 4, 256, 102400, 1024, 128}},
      {"an L40's (sm_89)", {32, 48, 24, 65536, 65536, 4, 256, 102400, 1024, 128}},
      {"an SM of no GPU", {32, 40, 12, 49152, 32768, 2, 128, 131072, 512, 512}},
  };
}

inline const char* name_of(latency_lab::Limiter limiter) {
  switch (limiter) {
    case latency_lab::Limiter::kWarps: return "warps";
    case latency_lab::Limiter::kBlocks: return "blocks";
    case latency_lab::Limiter::kRegisters: return "registers";
    case latency_lab::Limiter::kSharedMemory: return "shared memory";
  }
  return "?";
}

// The chase a launcher wrote into `words` (one link per 128-byte line, latency.h): "" when it is one
// cycle through every line with no regular stride, else what is wrong with it.
//   One cycle: a chase that skips lines, or loops through a few, measures a smaller working set
//   than the one asked for.
//   No regular stride: a chase that steps a fixed distance (line k to k + 1, or k + 7) lets the
//   hardware guess the next address, so it may measure less than a load's latency. A random cycle
//   of n lines repeats its most common step only a handful of times.
inline std::string chase_defect(const std::vector<std::uint32_t>& words) {
  constexpr std::size_t kWordsPerLine = 32;
  const std::size_t lines = words.size() / kWordsPerLine;
  std::vector<bool> seen(lines, false);
  std::unordered_map<long long, std::size_t> steps;
  std::size_t line = 0;
  for (std::size_t visited = 0; visited < lines; ++visited) {
    if (seen[line]) {
      std::ostringstream why;
      why << "the chase comes back to line " << line << " after " << visited << " of the " << lines
          << " lines: it must be one cycle through every line of the working set";
      return why.str();
    }
    seen[line] = true;
    const std::uint32_t link = words[line * kWordsPerLine];
    if (link % kWordsPerLine != 0 || link / kWordsPerLine >= lines) {
      std::ostringstream why;
      why << "line " << line << "'s link (word " << line * kWordsPerLine << ") is " << link
          << ", not the first word of a line of the working set (a multiple of 32 below " << lines * kWordsPerLine
          << ")";
      return why.str();
    }
    const std::size_t next = link / kWordsPerLine;
    ++steps[(static_cast<long long>(next) - static_cast<long long>(line) + static_cast<long long>(lines)) %
            static_cast<long long>(lines)];
    line = next;
  }
  if (line != 0) return "the chase does not come back to line 0 after visiting every line";
  std::size_t most = 0;
  long long stride = 0;
  for (const auto& [step, count] : steps)
    if (count > most) most = count, stride = step;
  const std::size_t allowed = std::max<std::size_t>(16, lines / 100);
  if (most > allowed) {
    std::ostringstream why;
    why << most << " of the " << lines << " steps of the chase jump by the same " << stride
        << " lines: a regular stride lets the hardware guess the next address. Make the cycle random";
    return why.str();
  }
  return "";
}

}  // namespace latency_oracle
