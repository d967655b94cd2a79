// Summary statistics of repeated timings. Plain C++, tested on the CPU.
#pragma once

#include <span>

namespace workbook {

double median(std::span<const double> samples);
double mean(std::span<const double> samples);
// Standard error of the mean over the mean: how well `samples` pin the mean down. Timing repeats
// until this is small; 0 for fewer than two samples would claim certainty, so that gives 1.
double relative_standard_error(std::span<const double> samples);

}  // namespace workbook
