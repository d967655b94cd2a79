#include "harness/reference_values.h"

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <stdexcept>

#include "harness/session.h"
#include "protocol/rows.h"  // fixed()

namespace workbook {

namespace {

struct Declared {
  double tolerance = 0;
  std::vector<ReferenceValue> values;
};
std::map<std::string, Declared>& declared() {  // by lab; built on first use: no order of initialization
  static std::map<std::string, Declared> labs;
  return labs;
}
std::map<std::string, ReferenceMeasurement>& measurements() {  // by key
  static std::map<std::string, ReferenceMeasurement> by_key;
  return by_key;
}

const ReferenceValue& declared_value(const std::string& key) {
  for (const auto& [lab, of_lab] : declared())
    for (const ReferenceValue& value : of_lab.values)
      if (value.key == key) return value;
  throw std::logic_error("no lab declares the reference value " + key);
}

// The test the instructor tree's measurements bring: every value grading uses on this GPU within
// half the steps' tolerance of a measurement made now, so that a student's exact measurement keeps
// the other half for its own noise.
void check_reference_values(const std::string& lab) {
  const Declared& of_lab = declared().at(lab);
  for (const ReferenceValue& value : of_lab.values) {
    const auto found = measurements().find(value.key);
    if (found == measurements().end()) {
      FAIL_CHECK(value.key << " (" << value.what << "): the instructor tree registers no measurement of it");
      continue;
    }
    const double measured = found->second();
    const UsedReference used = reference_value(value.key);
    INFO(value.key << " (" << value.what << "): grading uses " << fixed(used.value, 2) << " (" << used.source
                   << "), measured now " << fixed(measured, 2) << "; within " << fixed(50 * of_lab.tolerance, 1)
                   << "% is needed. On a GPU other than the H100, ./workbook calibrate writes this GPU's values");
    CHECK(std::abs(measured / used.value - 1) <= of_lab.tolerance / 2);
  }
}

}  // namespace

bool declare_reference_values(const char* lab, double tolerance, std::vector<ReferenceValue> values) {
  declared()[lab] = {tolerance, std::move(values)};
  return true;
}

UsedReference reference_value(const std::string& key) {
  const ReferenceValue& value = declared_value(key);
  const auto calibrated = session().reference_values.find(key);
  if (calibrated != session().reference_values.end()) return {calibrated->second, "this GPU's profile"};
  return {value.h100, "the H100's, built in"};
}

bool register_reference_measurements(const char* lab,
                                     std::vector<std::pair<std::string, ReferenceMeasurement>> of_lab) {
  for (auto& [key, measure] : of_lab) measurements()[key] = measure;
  static std::map<std::string, bool> tested;  // one test per lab, however many files register
  if (!tested[lab]) {
    tested[lab] = true;
    register_lab_test(lab, "reference values", "reference values agree with the grader's own measurement on this GPU",
                      [] {  // a grader grades one lab: every declared value is its
                        for (const auto& [name, of_lab] : declared()) check_reference_values(name);
                      });
  }
  return true;
}

void write_reference_values(const char* lab, std::ostream& out) {
  const auto found = declared().find(lab);
  if (found == declared().end()) return;
  for (const ReferenceValue& value : found->second.values) {
    const auto measure = measurements().find(value.key);
    if (measure == measurements().end())
      throw CalibrationError(std::string(lab) + " declares the reference value " + value.key +
                             " but nothing measures it: the instructor tree (solutions/" + lab +
                             "/proofs/) is incomplete. No profile was written");
    out << reference_line(value.key, measure->second()) << "  # " << value.what
        << ", the grader's own measurement (built in: " << fixed(value.h100, 2) << ")\n";
  }
}

}  // namespace workbook
