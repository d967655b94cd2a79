// The grader program's registries (what register_lab<Lab>() hands over before main() runs: the
// steps as doctest test cases, the lab's tests, and a function for each of the program's modes) and
// the doctest listeners that count a grading's test cases and hand each step's rows to the runner.
#include "harness/registrations.h"

#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "protocol/exit_codes.h"
#include "protocol/rows.h"

namespace workbook {

namespace {

std::map<std::string, BenchFunction>& bench_registry() {
  static std::map<std::string, BenchFunction> registry;
  return registry;
}

std::vector<std::string>& registered_bench_columns() {
  static std::vector<std::string> columns;
  return columns;
}

std::map<std::string, ListFunction>& listing_registry() {
  static std::map<std::string, ListFunction> registry;
  return registry;
}

std::map<std::string, DrawnSizesFunction>& drawn_sizes_registry() {
  static std::map<std::string, DrawnSizesFunction> registry;
  return registry;
}

using ProfileFunctions = registered::ProfileFunctions;
std::map<std::string, ProfileFunctions>& profile_registry() {
  static std::map<std::string, ProfileFunctions> registry;
  return registry;
}

std::map<std::string, PlanCheckFunction>& plan_check_registry() {
  static std::map<std::string, PlanCheckFunction> registry;
  return registry;
}

std::map<std::string, CalibrateFunction>& calibration_registry() {
  static std::map<std::string, CalibrateFunction> registry;
  return registry;
}

// A doctest reporter that ignores every event; the two below override the one each needs.
struct QuietReporter : doctest::IReporter {
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

// Counts test cases and failed test cases, for --expect-reject.
struct OutcomeCounter : QuietReporter {
  static inline int cases = 0;
  static inline int failed = 0;
  explicit OutcomeCounter(const doctest::ContextOptions&) {}
  void test_case_end(const doctest::CurrentTestCaseStats& stats) override {
    ++cases;
    failed += stats.testCaseSuccess ? 0 : 1;
  }
};
REGISTER_LISTENER("outcome_counter", 1, OutcomeCounter);

// A judge hands each step's rows to the runner on its descriptor (--rows-fd) as the step ends, not
// all at the process's end: the runner grades a lab's steps in one judge process, and learns from
// them which steps ended if the process dies or hangs, and when each step began, to hold it to its
// own time limit.
struct RowsHandedOver {
  int fd = -1;             // --rows-fd; -1: rows go to --rows's file at the end, or nowhere
  std::size_t handed = 0;  // how many of session().rows are written
};
RowsHandedOver& rows_handed_over() {
  static RowsHandedOver handed_over;
  return handed_over;
}
void hand_over_remaining_rows() {
  RowsHandedOver& out = rows_handed_over();
  if (out.fd < 0 || out.handed >= session().rows.size()) return;
  append_rows(out.fd, std::vector<StepRow>(session().rows.begin() + static_cast<std::ptrdiff_t>(out.handed),
                                           session().rows.end()));
  out.handed = session().rows.size();
}

// A kernel that faults (an illegal address, a trap) leaves the CUDA context unusable: every later
// call fails. An error that is not sticky is cleared by reading it; one that is stays.
bool cuda_context_lost() {
  if (cudaDeviceSynchronize() == cudaSuccess) return false;
  (void)cudaGetLastError();
  return cudaDeviceSynchronize() != cudaSuccess;
}

// As each step ends, in a judge: its rows to the runner; and after a step that left the context
// unusable the judge stops (kExitContextLost), so that no later step fails for it: the runner grades
// them in a new process.
struct StepEnded : QuietReporter {
  explicit StepEnded(const doctest::ContextOptions&) {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {
    if (rows_handed_over().fd < 0) return;
    try {
      hand_over_remaining_rows();
    } catch (const std::exception& error) {
      std::cerr << "error: " << error.what() << '\n';
      std::_Exit(1);
    }
    if (cuda_context_lost()) {
      std::cout << "[workbook] this step's kernel left the CUDA context unusable: the steps after it are graded in a "
                   "new process\n"
                << std::flush;
      std::_Exit(kExitContextLost);
    }
  }
};
REGISTER_LISTENER("step_ended", 2, StepEnded);

// Counts the test cases the filters select, without running them (doctest's --count, silenced).
struct SelectionCounter : QuietReporter {
  static inline unsigned selected = 0;
  explicit SelectionCounter(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData& query) override {
    if (query.run_stats != nullptr) selected = query.run_stats->numTestCasesPassingFilters;
  }
};
REGISTER_REPORTER("workbook_selection", 1, SelectionCounter);

// The steps, registered from each lab's steps table as doctest test cases (register_steps). A test
// case's function takes no argument, so all of them run one function, which grades the step whose
// test case doctest has just started (a listener hears its name first).
struct RegisteredStep {
  std::string id;
  GradeFunction grade;
};
std::map<std::string, RegisteredStep>& registered_steps() {  // by test case name, "02.1 float2 loads"
  static std::map<std::string, RegisteredStep> steps;
  return steps;
}
std::deque<std::string>& step_test_case_names() {  // doctest keeps a name's pointer: they must stay put
  static std::deque<std::string> names;
  return names;
}
std::string& started_test_case() {
  static std::string name;
  return name;
}
struct StartedTestCase : QuietReporter {
  explicit StartedTestCase(const doctest::ContextOptions&) {}
  void test_case_start(const doctest::TestCaseData& test_case) override { started_test_case() = test_case.m_name; }
};
REGISTER_LISTENER("started_test_case", 0, StartedTestCase);

void grade_started_step() {
  const RegisteredStep& step = registered_steps().at(started_test_case());
  step.grade(step.id.c_str());
}

// A lab's tests that grade no step (register_lab_test: its bars tests, ...), by test case name, run the same way.
std::map<std::string, LabTest>& registered_lab_tests() {
  static std::map<std::string, LabTest> tests;
  return tests;
}
void run_started_lab_test() { registered_lab_tests().at(started_test_case())(); }

// `--step=02.1,02.3` as doctest's filter of those steps' test cases, by their whole names (doctest
// splits a filter at commas, and "06.8 Blelloch, conflict-free" has one: escaped).
std::string step_filter_of(const std::string& ids) {
  std::string filter;
  std::stringstream list(ids);
  for (std::string id; std::getline(list, id, ',');) {
    std::string name;
    std::string known;
    for (const std::string& candidate : step_test_case_names()) {
      const std::string candidate_id = candidate.substr(0, candidate.find(' '));
      known += ' ' + candidate_id;
      if (candidate_id == id) name = candidate;
    }
    if (name.empty()) throw std::invalid_argument("--step: there is no step " + id + " here; the steps are" + known);
    std::string escaped;
    for (char c : name) escaped += c == ',' ? std::string("\\,") : std::string(1, c);
    filter += (filter.empty() ? "" : ",") + escaped;
  }
  return "--test-case=" + filter;
}

// How many test cases the command line's filters select. A grading whose filter selects none would
// run nothing and exit 0, which reads as a pass for a step that was never graded.
unsigned count_selected(std::vector<const char*> args) {
  args.push_back("--count");
  args.push_back("--reporters=workbook_selection");
  doctest::Context counting;
  counting.applyCommandLine(static_cast<int>(args.size()), args.data());
  counting.run();
  return SelectionCounter::selected;
}

}  // namespace

namespace registered {

const std::map<std::string, BenchFunction>& benches() { return bench_registry(); }
const std::map<std::string, ListFunction>& listings() { return listing_registry(); }
const std::map<std::string, DrawnSizesFunction>& drawn_sizes() { return drawn_sizes_registry(); }
const std::map<std::string, ProfileFunctions>& profiles() { return profile_registry(); }
const std::map<std::string, CalibrateFunction>& calibrations() { return calibration_registry(); }
const std::map<std::string, PlanCheckFunction>& plan_checks() { return plan_check_registry(); }
std::string step_filter(const std::string& ids) { return step_filter_of(ids); }
unsigned selected_test_cases(std::vector<const char*> doctest_args) { return count_selected(std::move(doctest_args)); }
int test_cases_run() { return OutcomeCounter::cases; }
int test_cases_failed() { return OutcomeCounter::failed; }
void hand_rows_over_on(int fd) { rows_handed_over().fd = fd; }
void hand_over_rows() { hand_over_remaining_rows(); }

}  // namespace registered

bool register_bench(const char* lab, BenchFunction function, std::vector<std::string> columns) {
  bench_registry()[lab] = function;
  registered_bench_columns() = std::move(columns);
  return true;
}

const std::vector<std::string>& bench_columns() { return registered_bench_columns(); }

bool register_steps(const char* lab, const std::vector<StepName>& steps, GradeFunction grade) {
  int line = 0;
  for (const StepName& step : steps) {
    const std::string& name = step_test_case_names().emplace_back(step.id + " " + step.title);
    registered_steps()[name] = {step.id, grade};
    // What doctest's TEST_CASE macro expands to, with the name from the table. The line orders the
    // steps as the table does.
    doctest::detail::regTest(
        doctest::detail::TestCase(grade_started_step, "steps table", ++line, doctest::detail::TestSuite() * lab) *
        name.c_str());
  }
  return true;
}

bool register_lab_test(const char* lab, const std::string& suite, const std::string& title, LabTest test) {
  static std::deque<std::string> names;  // doctest keeps the pointers of a test case's name and suite
  static int line = 0;
  const char* suite_name = names.emplace_back(std::string(lab) + " " + suite).c_str();
  const std::string& name = names.emplace_back(std::string(lab) + " " + title);
  registered_lab_tests()[name] = test;
  doctest::detail::regTest(
      doctest::detail::TestCase(run_started_lab_test, "lab tests", ++line, doctest::detail::TestSuite() * suite_name) *
      name.c_str());
  return true;
}

bool register_ladder_tests(const char* lab, LabTest rejects_previous, LabTest admits_witnesses) {
  return register_lab_test(lab, "bars", "bars reject the previous step", rejects_previous) &&
         register_lab_test(lab, "bars", "bars admit each step's witness", admits_witnesses);
}

bool register_listing(const char* lab, ListFunction function) {
  listing_registry()[lab] = function;
  return true;
}

bool register_drawn_sizes(const char* lab, DrawnSizesFunction function) {
  drawn_sizes_registry()[lab] = function;
  return true;
}

bool register_profile(const char* lab, CountersFunction counters, ProfileFunction run) {
  profile_registry()[lab] = {counters, run};
  return true;
}

bool register_plan_check(const char* lab, PlanCheckFunction function) {
  plan_check_registry()[lab] = function;
  return true;
}

bool register_calibration(const char* lab, CalibrateFunction function) {
  calibration_registry()[lab] = function;
  return true;
}

}  // namespace workbook
