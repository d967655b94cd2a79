// Lab 06's CPU truth: sums of 32-bit ints modulo 2^32, computed in unsigned arithmetic (whose
// wrap-around C++ defines), one element after the other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace reduce_scan_oracle {

inline std::int32_t sum(const std::vector<std::int32_t>& values) {
  std::uint32_t total = 0;
  for (const std::int32_t v : values) total += static_cast<std::uint32_t>(v);
  return static_cast<std::int32_t>(total);
}

// out[0] = 0, out[i] = values[0] + ... + values[i - 1].
inline std::vector<std::int32_t> exclusive_scan(const std::vector<std::int32_t>& values) {
  std::vector<std::int32_t> out(values.size());
  std::uint32_t running = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    out[i] = static_cast<std::int32_t>(running);
    running += static_cast<std::uint32_t>(values[i]);
  }
  return out;
}

}  // namespace reduce_scan_oracle
