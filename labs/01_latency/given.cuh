// Lab 01_latency, given (you use it, you do not edit it): the checks every launcher makes, and the
// layout of the pointer chase.
//
// The starter and the reference solution include this one copy, so that the difference between
// them is only the lesson.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "latency.h"

namespace latency_lab {

// The chase's layout (latency.h): one link per 128-byte line, the line's first word.
inline constexpr std::size_t kLineBytes = 128;
inline constexpr std::uint32_t kWordsPerLine = kLineBytes / sizeof(std::uint32_t);

// Every launcher of a chain (01.1, 01.4) checks this first.
inline void validate_chains(const FmaChains& c, const char* step) {
  const std::string where = std::string(step) + ": ";
  if (c.chains == 0) throw std::invalid_argument(where + "there must be at least one chain");
  if (c.start == nullptr || c.end == nullptr) throw std::invalid_argument(where + "start and end must not be null");
  if (c.length < 1) throw std::invalid_argument(where + "a chain has at least one FMA, not " + std::to_string(c.length));
}

// 01.1 and 01.2: where the measured cycles go.
inline void validate_clock(const LatencyProblem& p, const char* step) {
  if (p.cycles == nullptr) throw std::invalid_argument(std::string(step) + ": cycles must not be null");
}

// 01.2's launcher checks this first.
inline void validate_chase(const PointerChase& c, const char* step) {
  const std::string where = std::string(step) + ": ";
  if (c.lines == nullptr || c.last == nullptr) throw std::invalid_argument(where + "lines and last must not be null");
  if (c.bytes < kLineBytes || c.bytes % kLineBytes != 0)
    throw std::invalid_argument(where + "the working set must be a whole number of 128-byte lines, not " +
                                std::to_string(c.bytes) + " bytes");
  if (c.bytes / sizeof(std::uint32_t) > UINT32_MAX)
    throw std::invalid_argument(where + "a link is a 32-bit word index: at most 16 GiB of lines");
  if (c.warmup_loads < 0 || c.timed_loads < 1)
    throw std::invalid_argument(where + "at least one timed load, and no negative count of warm-up loads");
}

// 01.4's launch shape, as lab 02's.
inline void validate_launch_shape(const LatencyProblem& p, const char* step) {
  if (p.threads_per_block < 32 || p.threads_per_block > 1024 || p.threads_per_block % 32 != 0)
    throw std::invalid_argument(std::string(step) + ": threads_per_block must be a multiple of 32 in [32, 1024], not " +
                                std::to_string(p.threads_per_block));
}

}  // namespace latency_lab
