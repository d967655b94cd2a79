// Lab 06's CPU truth: sums of 32-bit ints modulo 2^32, computed in unsigned arithmetic (whose
// wrap-around C++ defines), one element after the other; and the checks a correctness case makes
// with it at 2^28 ints, in pieces on every core, drawing each value as it is needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "harness/parallel.h"

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

// At the bars' 2^28 ints, holding the values and the truth costs 2 GiB of host memory a case, and
// touching it took seconds of a student's grading (an H100, 2026-11-27: each 2^28-int scan case's
// check 3.1-3.7 s held, 0.89-1.07 s drawn as below; `./workbook grade --solution --seed 7`). The two
// checks below give what sum() and a comparison with exclusive_scan() give, with neither held:
// value_at(i) draws input element i again (the grader's generator is a function of the index), and
// the pieces run at once, each summing in the same unsigned arithmetic.

// The sum of each piece parallel_pieces() cuts [0, n) into, in order.
template <class ValueAt>
std::vector<std::uint32_t> sums_of_pieces(std::size_t n, const ValueAt& value_at) {
  std::vector<std::uint32_t> sums(workbook::pieces_of(n, workbook::kCheckGrain), 0);
  workbook::parallel_pieces(n, workbook::kCheckGrain, [&](std::size_t piece, std::size_t begin, std::size_t end) {
    std::uint32_t total = 0;
    for (std::size_t i = begin; i < end; ++i) total += static_cast<std::uint32_t>(value_at(i));
    sums[piece] = total;
  });
  return sums;
}

// sum() of the n values value_at gives.
template <class ValueAt>
std::int32_t sum_of(std::size_t n, const ValueAt& value_at) {
  const std::vector<std::uint32_t> sums = sums_of_pieces(n, value_at);
  return static_cast<std::int32_t>(std::accumulate(sums.begin(), sums.end(), std::uint32_t{0}));
}

// How `got` differs from the exclusive scan of the got.size() values value_at gives.
struct WrongPrefixSums {
  std::size_t wrong = 0;       // how many elements differ
  std::size_t first = 0;       // the first that does (when wrong > 0)
  std::int32_t should_be = 0;  // and what it should hold
};

// Each piece's running sum starts from the sum of the pieces before it, so every piece compares at
// once; merged in order, the count and the first are a sequential comparison's.
template <class ValueAt>
WrongPrefixSums wrong_prefix_sums(std::span<const std::int32_t> got, const ValueAt& value_at) {
  const std::size_t n = got.size();
  // Each piece's own sum, scanned: the sum of the pieces before it, where its running sum starts.
  std::vector<std::uint32_t> starts = sums_of_pieces(n, value_at);
  std::exclusive_scan(starts.begin(), starts.end(), starts.begin(), std::uint32_t{0});
  std::vector<WrongPrefixSums> found(starts.size());
  workbook::parallel_pieces(n, workbook::kCheckGrain, [&](std::size_t piece, std::size_t begin, std::size_t end) {
    std::uint32_t running = starts[piece];
    WrongPrefixSums& mine = found[piece];
    for (std::size_t i = begin; i < end; ++i) {
      if (got[i] != static_cast<std::int32_t>(running) && mine.wrong++ == 0) {
        mine.first = i;
        mine.should_be = static_cast<std::int32_t>(running);
      }
      running += static_cast<std::uint32_t>(value_at(i));
    }
  });
  WrongPrefixSums all;
  for (const WrongPrefixSums& piece : found) {
    if (piece.wrong > 0 && all.wrong == 0) {
      all.first = piece.first;
      all.should_be = piece.should_be;
    }
    all.wrong += piece.wrong;
  }
  return all;
}

}  // namespace reduce_scan_oracle
