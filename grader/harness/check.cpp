#include "harness/check.h"

#include <sstream>

namespace workbook {

namespace {

template <typename Want>
Comparison compare_any(std::span<const float> got, std::span<const Want> want, Tolerance tolerance) {
  if (got.size() != want.size()) {
    Comparison result;
    result.checked = want.size();
    result.mismatches = want.size() > got.size() ? want.size() - got.size() : got.size() - want.size();
    return result;
  }
  return compare_with(
      got, [&](std::size_t i) { return static_cast<double>(want[i]); }, tolerance);
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
  text << mismatches << " of " << checked << " elements differ (allowed |got - want| <= " << tolerance.absolute << " + "
       << tolerance.relative << " * |want|)";
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
