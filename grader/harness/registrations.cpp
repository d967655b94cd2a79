// The grader program's registries (what register_lab<Lab>() hands over before main() runs: the
// steps as doctest test cases, the lab's tests, and a function for each of the program's modes) and
// the doctest listeners that count a grading's test cases and hand each step's rows to the runner.
#include "harness/registrations.h"

#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "protocol/exit_codes.h"
#include "protocol/rows.h"

namespace workbook {

namespace {

// The program's lab, as it registers itself (registered::lab()).
registered::Lab& the_lab() {
  static registered::Lab lab;
  return lab;
}
// The record, for `lab` registering into it: a grader holds one lab, and two in one program would
// have one's modes answer for both, so the second stops the program before main().
registered::Lab& registering(const char* lab) {
  registered::Lab& record = the_lab();
  if (record.name.empty()) record.name = lab;
  if (record.name != lab) {
    std::cerr << "error: " << lab << " registers into a program that holds " << record.name
              << " already: a grader holds one lab\n";
    std::_Exit(2);
  }
  return record;
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

// A step's test case's name, "02.1 several floats per thread": what doctest lists and filters by.
std::string test_case_name(const StepName& step) { return step.id + " " + step.title; }

// Doctest keeps the pointers of a test case's name and suite: the strings stay put here.
std::deque<std::string>& test_case_names() {
  static std::deque<std::string> names;
  return names;
}

// A test case's function takes no argument, so each step's test case runs its own instance of this
// function, by the step's place in the steps table: the step is found by its place, never again by
// its test case's name. Likewise each of the lab's other tests.
template <std::size_t K>
void grade_step_at() {
  the_lab().grade(the_lab().steps[K].id.c_str());
}
std::vector<LabTest>& lab_tests() {
  static std::vector<LabTest> tests;
  return tests;
}
template <std::size_t K>
void run_lab_test_at() {
  lab_tests()[K]();
}
constexpr std::size_t kMostTestCases = 32;  // of either kind, in one lab (lab 04 has 11 steps)
template <std::size_t... K>
constexpr std::array<void (*)(), sizeof...(K)> step_functions(std::index_sequence<K...>) {
  return {grade_step_at<K>...};
}
template <std::size_t... K>
constexpr std::array<void (*)(), sizeof...(K)> lab_test_functions(std::index_sequence<K...>) {
  return {run_lab_test_at<K>...};
}
constexpr auto kStepFunctions = step_functions(std::make_index_sequence<kMostTestCases>());
constexpr auto kLabTestFunctions = lab_test_functions(std::make_index_sequence<kMostTestCases>());

// A test case as doctest's TEST_CASE macro makes one, with `name` in `suite`; the line orders the
// test cases of one file as they were registered.
void add_test_case(void (*function)(), const char* file, int line, const std::string& suite, const std::string& name) {
  const char* suite_name = test_case_names().emplace_back(suite).c_str();
  doctest::detail::regTest(doctest::detail::TestCase(function, file, line, doctest::detail::TestSuite() * suite_name) *
                           test_case_names().emplace_back(name).c_str());
}

// `--step=02.1,02.3` as doctest's filter of those steps' test cases, by their whole names (doctest
// splits a filter at commas, and "06.8 Blelloch, conflict-free" has one: escaped).
std::string step_filter_of(const std::string& ids) {
  std::string filter;
  std::stringstream list(ids);
  for (std::string id; std::getline(list, id, ',');) {
    std::string name;
    std::string known;
    for (const StepName& step : the_lab().steps) {
      known += ' ' + step.id;
      if (step.id == id) name = test_case_name(step);
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

const Lab& lab() { return the_lab(); }
std::string step_filter(const std::string& ids) { return step_filter_of(ids); }
unsigned selected_test_cases(std::vector<const char*> doctest_args) { return count_selected(std::move(doctest_args)); }
int test_cases_run() { return OutcomeCounter::cases; }
int test_cases_failed() { return OutcomeCounter::failed; }
void hand_rows_over_on(int fd) { rows_handed_over().fd = fd; }
void hand_over_rows() { hand_over_remaining_rows(); }

}  // namespace registered

bool register_bench(const char* lab, BenchFunction function, std::vector<std::string> columns) {
  registering(lab).bench = function;
  registering(lab).bench_columns = std::move(columns);
  return true;
}

const std::vector<std::string>& bench_columns() { return the_lab().bench_columns; }

bool register_steps(const char* lab, const std::vector<StepName>& steps, GradeFunction grade) {
  registered::Lab& record = registering(lab);
  if (!record.steps.empty() || steps.size() > kMostTestCases) {
    std::cerr << "error: " << lab << " registers " << steps.size() << " steps" << (record.steps.empty() ? "" : " twice")
              << ": a grader holds one steps table of at most " << kMostTestCases << '\n';
    std::_Exit(2);
  }
  record.steps = steps;
  record.grade = grade;
  for (std::size_t k = 0; k < steps.size(); ++k)
    add_test_case(kStepFunctions[k], "steps table", static_cast<int>(k) + 1, lab, test_case_name(steps[k]));
  return true;
}

bool register_lab_test(const char* lab, const std::string& suite, const std::string& title, LabTest test) {
  registering(lab);
  if (lab_tests().size() == kMostTestCases) {
    std::cerr << "error: " << lab << " registers more than " << kMostTestCases << " lab tests\n";
    std::_Exit(2);
  }
  const std::size_t k = lab_tests().size();
  lab_tests().push_back(test);
  add_test_case(kLabTestFunctions[k], "lab tests", static_cast<int>(k) + 1, std::string(lab) + " " + suite,
                std::string(lab) + " " + title);
  return true;
}

bool register_ladder_tests(const char* lab, LabTest rejects_previous, LabTest admits_witnesses) {
  return register_lab_test(lab, "bars", "bars reject the previous step", rejects_previous) &&
         register_lab_test(lab, "bars", "bars admit each step's witness", admits_witnesses);
}

bool register_listing(const char* lab, ListFunction function) {
  registering(lab).listing = function;
  return true;
}

bool register_drawn_sizes(const char* lab, DrawnSizesFunction function) {
  registering(lab).drawn_sizes = function;
  return true;
}

bool register_profile(const char* lab, CountersFunction counters, ProfileFunction run) {
  registering(lab).counters = counters;
  registering(lab).profile = run;
  return true;
}

bool register_plan_check(const char* lab, PlanCheckFunction function) {
  registering(lab).plan_check = function;
  return true;
}

bool register_calibration(const char* lab, CalibrateFunction function) {
  registering(lab).calibrate = function;
  return true;
}

}  // namespace workbook
