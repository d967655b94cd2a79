#include <doctest/doctest.h>

#include <vector>

#include "harness/stats.h"

using namespace workbook;

TEST_CASE("median of an odd and an even number of samples") {
  const std::vector<double> odd = {5, 1, 3};
  const std::vector<double> even = {4, 1, 3, 2};
  CHECK(median(odd) == 3);
  CHECK(median(even) == 2.5);
  CHECK_THROWS(median(std::vector<double>{}));
}

TEST_CASE("relative standard error: zero spread, known spread, too few samples") {
  CHECK(relative_standard_error(std::vector<double>{2, 2, 2, 2}) == 0);
  // mean 2, sample standard deviation 1 (of 1, 2, 3), n = 3: 1 / sqrt(3) / 2
  CHECK(relative_standard_error(std::vector<double>{1, 2, 3}) == doctest::Approx(0.288675).epsilon(1e-5));
  CHECK(relative_standard_error(std::vector<double>{7}) == 1.0);
}
