#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "harness/check.h"
#include "harness/device_limits.h"
#include "harness/parallel.h"

using namespace workbook;

TEST_CASE("exact comparison: equal values pass, any difference fails") {
  const std::vector<float> want = {1.0f, -2.0f, 0.5f};
  CHECK(compare(std::vector<float>{1.0f, -2.0f, 0.5f}, want, Tolerance{}).ok());
  const Comparison off = compare(std::vector<float>{1.0f, std::nextafter(-2.0f, 0.0f), 0.5f}, want, Tolerance{});
  CHECK(off.mismatches == 1);
  REQUIRE(off.first_mismatches.size() == 1);
  CHECK(off.first_mismatches[0].index == 1);
}

TEST_CASE("NaN never passes, whatever the tolerance") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<double> want = {1.0};
  CHECK_FALSE(compare(std::vector<float>{nan}, want, Tolerance{1e30, 1e30}).ok());
  // A poisoned output (every byte 0xFF) reads as NaN.
  float poisoned;
  const unsigned bits = 0xFFFFFFFFu;
  std::memcpy(&poisoned, &bits, sizeof poisoned);
  CHECK(std::isnan(poisoned));
  CHECK_FALSE(compare(std::vector<float>{poisoned}, want, Tolerance{}).ok());
}

TEST_CASE("the tolerance is absolute + relative * |want|") {
  const std::vector<double> want = {100.0};
  const Tolerance tolerance{0.5, 0.01};  // allows 0.5 + 1.0
  CHECK(compare(std::vector<float>{101.5f}, want, tolerance).ok());
  CHECK_FALSE(compare(std::vector<float>{101.6f}, want, tolerance).ok());
  CHECK(compare(std::vector<float>{98.5f}, want, tolerance).ok());
}

TEST_CASE("the report names the first mismatching indices, in order, and counts them all") {
  std::vector<float> got(100, 0.0f);
  const std::vector<float> want(100, 1.0f);
  got[3] = 1.0f;
  const Comparison result = compare(got, want, Tolerance{});
  CHECK(result.mismatches == 99);
  CHECK(result.first_mismatches.size() == kMismatchesShown);
  CHECK(result.first_mismatches[0].index == 0);
  CHECK(result.first_mismatches[3].index == 4);
  const std::string text = result.describe(Tolerance{});
  CHECK(text.find("99 of 100 elements differ") != std::string::npos);
  CHECK(text.find("[4] got 0 want 1") != std::string::npos);
  CHECK(Comparison{}.describe(Tolerance{}).empty());
}

TEST_CASE(
    "a large output compared in pieces at once gives what one pass gives: every mismatch, the first ones in order") {
  // Mismatches in every piece, the last piece's first: merged in index order, all of them counted.
  const std::size_t count = 8 * kCheckGrain + 3;
  std::vector<float> got(count, 1.0f);
  const std::vector<float> want(count, 1.0f);
  const std::vector<std::size_t> wrong = {count - 1, 5 * kCheckGrain + 7, kCheckGrain + 1,
                                          2,         kCheckGrain,         3 * kCheckGrain};
  for (std::size_t i : wrong) got[i] = 2.0f;
  const Comparison result = compare(got, want, Tolerance{});
  CHECK(result.mismatches == wrong.size());
  REQUIRE(result.first_mismatches.size() == kMismatchesShown);
  const std::vector<std::size_t> first = {2, kCheckGrain, kCheckGrain + 1, 3 * kCheckGrain, 5 * kCheckGrain + 7};
  for (std::size_t k = 0; k < first.size(); ++k) CHECK(result.first_mismatches[k].index == first[k]);
  // The truth computed element by element, as a check at the bars' shapes does, says the same.
  const Comparison computed = compare_with(
      got, [](std::size_t) { return 1.0f; }, Tolerance{});
  CHECK(computed.describe(Tolerance{}) == result.describe(Tolerance{}));
}

TEST_CASE("outputs of the wrong length fail") {
  CHECK_FALSE(compare(std::vector<float>{1.0f}, std::vector<float>{1.0f, 2.0f}, Tolerance{}).ok());
}

TEST_CASE("guard region: intact, and the first changed byte") {
  std::vector<std::uint8_t> guard(64, kGuardByte);
  CHECK(first_guard_violation(guard) == -1);
  guard[17] = 0;
  guard[40] = 0;
  CHECK(first_guard_violation(guard) == 17);
  CHECK(last_guard_violation(guard) == 40);
  CHECK(last_guard_violation(std::vector<std::uint8_t>(8, kGuardByte)) == -1);
}

// The [ceiling]'s limits come from the device's attributes. On the datasheets' numbers they give
// the datasheets' peaks: an H100 SXM (132 SMs at up to 1980 MHz, HBM3 at 2619 MHz on 5120 bits)
// 3.35 TB/s and 67 TFLOP/s FP32, an A100 40GB (108 SMs at 1410 MHz, 64 FP32 lanes each; HBM2 at
// 1215 MHz on 5120 bits) 1.56 TB/s and 19.5 TFLOP/s.
TEST_CASE("the ceiling's limits are the datasheets' peaks, from the device's attributes") {
  CHECK(workbook::memory_limit_gb_per_s(2619000, 5120) == doctest::Approx(3352.3).epsilon(0.001));
  CHECK(workbook::fma_limit_tflop_per_s(132, workbook::fp32_lanes_per_sm(9, 0), 1980000) ==
        doctest::Approx(66.9).epsilon(0.001));
  CHECK(workbook::memory_limit_gb_per_s(1215000, 5120) == doctest::Approx(1555.2).epsilon(0.001));
  CHECK(workbook::fma_limit_tflop_per_s(108, workbook::fp32_lanes_per_sm(8, 0), 1410000) ==
        doctest::Approx(19.49).epsilon(0.001));
  CHECK(workbook::fp32_lanes_per_sm(8, 6) == 128);
  CHECK(workbook::fp32_lanes_per_sm(12, 0) == 128);
}
