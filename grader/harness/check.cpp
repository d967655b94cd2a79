#include "check.h"

#include <cmath>
#include <sstream>
#include <vector>

#include "parallel.h"

namespace workbook {

namespace {

template <typename Want>
Comparison compare_any(std::span<const float> got, std::span<const Want> want, Tolerance tolerance) {
  Comparison result;
  result.checked = want.size();
  if (got.size() != want.size()) {
    result.mismatches = want.size() > got.size() ? want.size() - got.size() : got.size() - want.size();
    return result;
  }
  // Pieces compared at once, merged in order: the same count and first mismatches as one pass.
  std::vector<Comparison> pieces(pieces_of(want.size(), kCheckGrain));
  parallel_pieces(want.size(), kCheckGrain, [&](std::size_t piece, std::size_t begin, std::size_t end) {
    Comparison& mine = pieces[piece];
    for (std::size_t i = begin; i < end; ++i) {
      const double g = got[i];
      const double w = static_cast<double>(want[i]);
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

}  // namespace

Comparison compare(std::span<const float> got, std::span<const double> want, Tolerance tolerance) {
  return compare_any(got, want, tolerance);
}

Comparison compare(std::span<const float> got, std::span<const float> want, Tolerance tolerance) {
  return compare_any(got, want, tolerance);
}

std::string Comparison::describe(const Tolerance& tolerance) const {
  if (ok()) return "";
  std::ostringstream text;
  text.precision(9);
  text << mismatches << " of " << checked << " elements differ (allowed |got - want| <= "
       << tolerance.absolute << " + " << tolerance.relative << " * |want|)";
  if (first_mismatches.empty()) {
    text << ": the output has the wrong length";
    return text.str();
  }
  text << "; first at";
  for (const Mismatch& m : first_mismatches) text << " [" << m.index << "] got " << m.got << " want " << m.want << ';';
  return text.str();
}

long first_guard_violation(std::span<const std::uint8_t> guard) {
  for (std::size_t i = 0; i < guard.size(); ++i)
    if (guard[i] != kGuardByte) return static_cast<long>(i);
  return -1;
}

long last_guard_violation(std::span<const std::uint8_t> guard) {
  for (std::size_t i = guard.size(); i-- > 0;)
    if (guard[i] != kGuardByte) return static_cast<long>(i);
  return -1;
}

}  // namespace workbook
