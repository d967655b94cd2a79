#include "buffers.h"

namespace workbook {

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

std::vector<float> random_floats(std::size_t count, std::uint64_t seed) {
  std::vector<float> values(count);
  const std::uint64_t stream = splitmix64(seed);
  for (std::size_t i = 0; i < count; ++i) {
    // The top 24 bits give every float in [0, 1) a multiple of 2^-24 can hold exactly.
    const double unit = static_cast<double>(splitmix64(stream + i) >> 40) * 0x1.0p-24;
    values[i] = static_cast<float>(2.0 * unit - 1.0);
  }
  return values;
}

}  // namespace workbook
