// Comparing a GPU result with the oracle, and checking the guard region behind an output.
// Plain C++, tested on the CPU.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "harness/parallel.h"

namespace workbook {

// An element passes when |got - want| <= absolute + relative * |want|. Each lab states how it
// derives the two numbers (for a copy both are 0: the bits must match). NaN never passes, so a
// NaN-poisoned element that the kernel never wrote is always caught.
struct Tolerance {
  double absolute = 0.0;
  double relative = 0.0;
};

struct Mismatch {
  std::size_t index;
  double got;
  double want;
};

struct Comparison {
  std::size_t checked = 0;
  std::size_t mismatches = 0;
  std::vector<Mismatch> first_mismatches;  // in index order, at most kMismatchesShown
  bool ok() const { return mismatches == 0; }
  // "3 of 1000 elements differ (tolerance ...): [31] got nan want 0.25, ..." or "" when ok.
  std::string describe(const Tolerance& tolerance) const;
};

inline constexpr std::size_t kMismatchesShown = 5;

Comparison compare(std::span<const float> got, std::span<const double> want, Tolerance tolerance);
Comparison compare(std::span<const float> got, std::span<const float> want, Tolerance tolerance);

// The same comparison with the truth computed element by element, want_at(i) for got[i], instead
// of held: a check of 2^26 floats then touches no copy of the input and no array of the truth.
// Pieces compared at once, merged in order: the same count and first mismatches as one pass.
template <class WantAt>
Comparison compare_with(std::span<const float> got, const WantAt& want_at, Tolerance tolerance) {
  Comparison result;
  result.checked = got.size();
  std::vector<Comparison> pieces(pieces_of(got.size(), kCheckGrain));
  parallel_pieces(got.size(), kCheckGrain, [&](std::size_t piece, std::size_t begin, std::size_t end) {
    Comparison& mine = pieces[piece];
    for (std::size_t i = begin; i < end; ++i) {
      const double g = got[i];
      const double w = static_cast<double>(want_at(i));
      const double allowed = tolerance.absolute + tolerance.relative * std::fabs(w);
      // Written as "not within" so that a NaN on either side counts as a mismatch.
      if (!(std::fabs(g - w) <= allowed)) {
        if (mine.first_mismatches.size() < kMismatchesShown) mine.first_mismatches.push_back({i, g, w});
        ++mine.mismatches;
      }
    }
  });
  for (const Comparison& piece : pieces) {
    result.mismatches += piece.mismatches;
    for (const Mismatch& m : piece.first_mismatches)
      if (result.first_mismatches.size() < kMismatchesShown) result.first_mismatches.push_back(m);
  }
  return result;
}

// The guard region after each output holds this byte; a kernel that writes past the end of its
// output changes it. As a float, 0xA5A5A5A5 is about -2.9e-16: not a value a test input produces.
inline constexpr std::uint8_t kGuardByte = 0xA5;
// Outputs are filled with this byte before every run: 0xFFFFFFFF is a NaN as a float.
inline constexpr std::uint8_t kPoisonByte = 0xFF;

// Index of the first byte that is not kGuardByte, or -1 when the guard is intact: for the guard
// after an array, whose first byte is the one just past its end.
long first_guard_violation(std::span<const std::uint8_t> guard);
// Index of the last byte that is not kGuardByte, or -1: for the guard before an array, whose last
// byte is the one just before its start.
long last_guard_violation(std::span<const std::uint8_t> guard);

}  // namespace workbook
