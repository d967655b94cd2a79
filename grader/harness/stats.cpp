#include "harness/stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace workbook {

double median(std::span<const double> samples) {
  if (samples.empty()) throw std::invalid_argument("median of no samples");
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t middle = sorted.size() / 2;
  return sorted.size() % 2 == 1 ? sorted[middle] : 0.5 * (sorted[middle - 1] + sorted[middle]);
}

double mean(std::span<const double> samples) {
  if (samples.empty()) throw std::invalid_argument("mean of no samples");
  double sum = 0.0;
  for (double sample : samples) sum += sample;
  return sum / static_cast<double>(samples.size());
}

double relative_standard_error(std::span<const double> samples) {
  if (samples.size() < 2) return 1.0;
  const double average = mean(samples);
  double squares = 0.0;
  for (double sample : samples) squares += (sample - average) * (sample - average);
  const double n = static_cast<double>(samples.size());
  const double standard_deviation = std::sqrt(squares / (n - 1.0));
  return standard_deviation / std::sqrt(n) / average;
}

}  // namespace workbook
