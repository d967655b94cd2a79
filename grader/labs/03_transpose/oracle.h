// The CPU truth for lab 03_transpose. A transpose moves floats without arithmetic, so the oracle
// is exact and the comparison is bit for bit. Plain C++, tested on the CPU (grader/tests).
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <vector>

namespace transpose_oracle {

// Where element j of the transpose comes from: out[c * rows + r] is in[r * cols + c]. The grader's
// check reads the input's element there as it compares (its values drawn again from their seed),
// rather than transposing a copy of the input first.
inline std::size_t source_of(std::size_t j, int rows, int cols) {
  return (j % std::size_t(rows)) * std::size_t(cols) + j / std::size_t(rows);
}

// `in` has `rows` rows of `cols` floats, row-major; the result has `cols` rows of `rows` floats.
inline std::vector<float> transpose(std::span<const float> in, int rows, int cols) {
  if (rows < 0 || cols < 0 || in.size() != std::size_t(rows) * std::size_t(cols))
    throw std::invalid_argument("transpose_oracle: in does not hold rows x cols floats");
  std::vector<float> out(in.size());
  // Blocked by 64 x 64, so that 16384^2 floats take a second, not ten (the naive loop misses the
  // cache on every write).
  constexpr int kBlock = 64;
  for (int r0 = 0; r0 < rows; r0 += kBlock)
    for (int c0 = 0; c0 < cols; c0 += kBlock)
      for (int r = r0; r < rows && r < r0 + kBlock; ++r)
        for (int c = c0; c < cols && c < c0 + kBlock; ++c)
          out[std::size_t(c) * rows + r] = in[std::size_t(r) * cols + c];
  return out;
}

}  // namespace transpose_oracle
