// The numbers a measurement step is compared with: lab 01's latencies, which a student's own
// measurement must agree with. The kernels that measure them are written as a student writes those
// steps (a chain of FMAs, a pointer chase), so in a student's copy they would be the answer: they
// live in the instructor tree (solutions/NN_topic/proofs/) and register here when linked, which
// only the solution's grader is. Grading takes every value from one place, whoever is graded:
//   - this GPU's bars profile, its "reference KEY VALUE" lines, which ./workbook calibrate writes
//     from those measurements (classroom/bars/, bars_profile.h);
//   - else the lab's built-in value, measured on the H100 (the lab's NOTES.md).
// Where the measurements are linked, the test "NN_topic reference values agree with the grader's
// own measurement on this GPU" measures again what grading uses, so a stale value fails the suite.
// Plain C++.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace workbook {

// One value a lab's grader compares a measurement step with.
struct ReferenceValue {
  std::string key;   // the profile's KEY, no spaces: "01.1", "01.2:65536"
  std::string what;  // "cycles per dependent FMA"
  double h100 = 0;   // the built-in value, the H100's
};

// The lab's grader declares its values once, with the tolerance its steps allow (a fraction):
//   const bool declared = workbook::declare_reference_values("01_latency", 0.05, {{"01.1", "...", 4.07}, ...});
bool declare_reference_values(const char* lab, double tolerance, std::vector<ReferenceValue> values);

// The value grading uses for `key` on this GPU, and where it comes from ("this GPU's profile" or
// "the H100's, built in"). Throws std::logic_error for a key no lab declared.
struct UsedReference {
  double value = 0;
  std::string source;
};
UsedReference reference_value(const std::string& key);

// What the instructor tree links: the measurement of each declared key on this GPU.
using ReferenceMeasurement = double (*)();
bool register_reference_measurements(const char* lab,
                                     std::vector<std::pair<std::string, ReferenceMeasurement>> measurements);

// ./workbook calibrate: the lab's "reference KEY VALUE" lines, each measured now on this GPU, for
// its bars profile. Nothing for a lab that declares none; throws CalibrationError (session.h) where
// the lab declares values and a measurement is missing.
void write_reference_values(const char* lab, std::ostream& out);

}  // namespace workbook
