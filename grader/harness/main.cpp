// The grader's main(). doctest runs the test cases; around it this adds what the grader contract
// asks for: listing never touches CUDA, no visible GPU exits with 77 (CTest: skipped), the seed
// is printed and replayable, results are kept as rows, and mutants are graded by expecting every
// test case to fail (--expect-reject), or to fail naming one defence (--expect-reason=TEXT).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <fcntl.h>

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bars_profile.h"
#include "judge.h"
#include "peaks.h"
#include "report.h"
#include "resources.h"
#include "session.h"
#include "workbook/cuda.h"

namespace workbook {

namespace {

std::map<std::string, BenchFunction>& benches() {
  static std::map<std::string, BenchFunction> registry;
  return registry;
}

std::vector<std::string>& registered_bench_columns() {
  static std::vector<std::string> columns;
  return columns;
}

std::map<std::string, ListFunction>& listings() {
  static std::map<std::string, ListFunction> registry;
  return registry;
}

std::map<std::string, DrawnSizesFunction>& drawn_sizes() {
  static std::map<std::string, DrawnSizesFunction> registry;
  return registry;
}

struct ProfileFunctions {
  CountersFunction counters = nullptr;
  ProfileFunction run = nullptr;
};
std::map<std::string, ProfileFunctions>& profiles() {
  static std::map<std::string, ProfileFunctions> registry;
  return registry;
}

std::map<std::string, CalibrateFunction>& calibrations() {
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
void hand_over_rows() {
  RowsHandedOver& out = rows_handed_over();
  if (out.fd < 0 || out.handed >= session().rows.size()) return;
  append_rows(out.fd, std::vector<StepRow>(session().rows.begin() + static_cast<std::ptrdiff_t>(out.handed), session().rows.end()));
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
      hand_over_rows();
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
std::string step_filter(const std::string& ids) {
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
unsigned selected_test_cases(std::vector<const char*> args) {
  args.push_back("--count");
  args.push_back("--reporters=workbook_selection");
  doctest::Context counting;
  counting.applyCommandLine(static_cast<int>(args.size()), args.data());
  counting.run();
  return SelectionCounter::selected;
}

struct Options {
  std::string rows_path, bench_path, expect_reason;
  int rows_fd = -1;  // --rows-fd
  std::string bars_path, calibrate_path;  // --bars, --calibrate
  std::string planner;                     // --planner: a judge (judge.h), which links no student code
  std::vector<std::string> device_code;    // --device-code, one per file
  bool expect_reject = false, gpu_check = false, seed_given = false, touches_cuda = true, correctness_only = false;
  bool exact_allocations = false, list_steps = false, print_bench_columns = false;
  bool print_drawn_sizes = false;
  bool expect_honest = false;  // --expect-honest
  // ./workbook profile (profile.h): --profile-metrics, --profile=ID, and --profile-report=ID with
  // --ncu-output, --reference-output or --recorded, --heading and --recorded-lines
  bool profile_metrics = false, recorded_lines = false;
  std::string profile_step, profile_report, ncu_output, reference_output, recorded, heading = "yours";
  std::set<Defence> disabled;
  std::uint64_t seed = 0;
  std::optional<std::uint64_t> data_key;  // --data-key=K: every step's inputs drawn from K
  int as_compute_capability = 0;  // --as-compute-capability; 0: the GPU's own
  std::vector<const char*> doctest_args;
  std::deque<std::string> step_filters;  // --step's doctest filters, which doctest_args point into
};

// What this process tells the runner (exit_codes.h): "skipped" (no GPU, or nothing applicable on
// this one), and --calibrate's failure.
constexpr int kExitSkipped = exit_code::kSkipped;
constexpr int kExitNotApplicable = exit_code::kSkipped;
constexpr int kExitCalibrationError = exit_code::kCalibrationError;

bool starts_with(const char* arg, const char* prefix) { return std::strncmp(arg, prefix, std::strlen(prefix)) == 0; }

// `text` as a whole int, all of it; nothing when it is not one ("", "7x", "99999999999").
std::optional<int> whole_int(const std::string& text) {
  std::size_t used = 0;
  try {
    const int value = std::stoi(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// The grader's own flags, for --help (doctest lists its own after them).
constexpr const char* kUsage = R"(grader flags:
  --seed=N               replay a run's drawn sizes (every run prints its seed)
  --data-key=K           draw every step's input values from K, the key a step's log names after it
                         (each step otherwise draws a secret key of its own: [secret-inputs])
  --step=ID[,ID...]      grade these steps of the lab's steps table ("02.1", "04.1,04.10")
  --test-case=NAME       run the test cases doctest selects by name (a step's is "ID TITLE")
  --rows=FILE            append the result rows to FILE (the runner collects them from there
                         and writes every report: a grader writes none)
  --rows-fd=N            the same, onto descriptor N, which the runner opened (a judge's step:
                         the file is not the step's to open, so its planner cannot reach it)
  --bench=CSV            run the lab's benchmark sweep into CSV instead of grading
  --bars=FILE            grade against this GPU's bars profile instead of the built-in (H100) bars
  --calibrate=FILE       measure the solution's steps and append bars for this GPU to FILE
  --bench-columns        print the benchmark CSV's columns, comma-separated (no GPU needed)
  --correctness-only     check the steps on small shapes and time nothing (under compute-sanitizer)
  --exact-allocations    no guard regions around arrays (so memcheck sees one element past the end)
  --expect-reject        pass only if every test case fails, cleanly (mutants, starters)
  --expect-reason=TEXT   --expect-reject, and every step's failure must name TEXT ("[guard]")
  --expect-honest        pass only if every step is correct and trips no defence: it passes or
                         misses its bar alone, on the time it really took (a boundary mutant,
                         judged: work that escaped the timer would trip [ceiling])
  --without=DEFENCE      switch one integrity defence off (the mutant tests' proofs only)
  --as-compute-capability=NN
                         grade as if the GPU were compute capability NN (80: an A100), no higher
                         than its own: steps that need more are reported not applicable (the test
                         of that report)
  --planner=PATH         a judge (judge_NN_topic) only: the student's planner, which runs their
                         host code in a process of its own and answers each call with its plan
  --device-code=FILE     a judge only, one per file: where the student's kernels are (their object
                         file, the lab's given code); loaded without any of their host code
  --profile-metrics      print the ncu metrics the lab's profile counters read (no GPU needed)
  --profile=ID           run step ID's kernels once at its bar's shape inside cudaProfilerStart
                         and Stop, for ncu --profile-from-start off (./workbook profile)
  --profile-report=ID    print step ID's profile table from --ncu-output=FILE (ncu's CSV), beside
                         --reference-output=FILE (the solution's) or --recorded=FILE (values
                         recorded on a GPU); --heading=TEXT names the first column (no GPU needed);
                         --recorded-lines prints the first column as lines for --recorded instead
  --gpu-check            exit 0 if a CUDA GPU can be used, 77 if not
  --list-steps           print each step's id, title and bar, tab-separated (no GPU needed; with
                         --bars, the profile's bars)
  --drawn-sizes          print the correctness sizes the lab draws from --seed (no GPU needed)
)";

// The doctest options the grader passes on; anything else that starts with '-' is a mistake that
// doctest would silently ignore, so it is refused.
bool doctest_option(const char* a) {
  for (const char* option : {"--test-case=", "-tc=", "--test-case-exclude=", "-tce=", "--test-suite=", "-ts=",
                             "--test-suite-exclude=", "-tse=", "--list-test-cases", "-ltc", "--list-test-suites",
                             "-lts", "--count", "-c", "--help", "-h", "-?", "--version", "-v", "--success", "-s",
                             "--no-colors", "-nc", "--duration", "-d", "--reporters=", "-r=", "--out=", "-o=",
                             "--abort-after=", "-aa=", "--no-exitcode", "-ne"}) {
    const std::size_t length = std::strlen(option);
    if (std::strncmp(a, option, length) == 0 && (option[length - 1] == '=' || a[length] == '\0' || a[length] == '='))
      return true;
  }
  return false;
}

// A flag's value as a whole number from 0 to 2^64 - 1, or why not.
std::uint64_t whole_number(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  std::uint64_t number = 0;
  try {
    number = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || text[0] == '-')
    throw std::invalid_argument(flag + " takes a non-negative whole number, not '" + text + "'");
  return number;
}

Options parse(int argc, char** argv) {
  Options o;
  o.doctest_args.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const auto value = [&](const char* flag) { return std::string(a + std::strlen(flag)); };
    if (starts_with(a, "--rows=")) o.rows_path = value("--rows=");
    else if (starts_with(a, "--rows-fd=")) {
      const std::string text = value("--rows-fd=");
      const std::optional<int> fd = whole_int(text);
      if (!fd || *fd < 3 || fcntl(*fd, F_GETFD) < 0)
        throw std::invalid_argument("--rows-fd takes an open descriptor above 2, not '" + text + "'");
      o.rows_fd = *fd;
    }
    else if (starts_with(a, "--step=")) {
      o.step_filters.push_back(step_filter(value("--step=")));
      o.doctest_args.push_back(o.step_filters.back().c_str());
    }
    else if (starts_with(a, "--bench=")) o.bench_path = value("--bench=");
    else if (starts_with(a, "--bars=")) o.bars_path = value("--bars=");
    else if (starts_with(a, "--calibrate=")) o.calibrate_path = value("--calibrate=");
    else if (starts_with(a, "--planner=")) o.planner = value("--planner=");
    else if (std::strcmp(a, "--profile-metrics") == 0) o.profile_metrics = true;
    else if (starts_with(a, "--profile=")) o.profile_step = value("--profile=");
    else if (starts_with(a, "--profile-report=")) o.profile_report = value("--profile-report=");
    else if (starts_with(a, "--ncu-output=")) o.ncu_output = value("--ncu-output=");
    else if (starts_with(a, "--reference-output=")) o.reference_output = value("--reference-output=");
    else if (starts_with(a, "--recorded=")) o.recorded = value("--recorded=");
    else if (starts_with(a, "--heading=")) o.heading = value("--heading=");
    else if (std::strcmp(a, "--recorded-lines") == 0) o.recorded_lines = true;
    else if (starts_with(a, "--device-code=")) o.device_code.push_back(value("--device-code="));
    else if (std::strcmp(a, "--expect-reject") == 0) o.expect_reject = true;
    else if (std::strcmp(a, "--expect-honest") == 0) o.expect_honest = true;
    else if (std::strcmp(a, "--gpu-check") == 0) o.gpu_check = true;
    else if (std::strcmp(a, "--correctness-only") == 0) o.correctness_only = true;
    else if (std::strcmp(a, "--exact-allocations") == 0) o.exact_allocations = true;
    else if (std::strcmp(a, "--list-steps") == 0) o.list_steps = true;
    else if (std::strcmp(a, "--drawn-sizes") == 0) o.print_drawn_sizes = true;
    else if (std::strcmp(a, "--bench-columns") == 0) o.print_bench_columns = true;
    else if (starts_with(a, "--expect-reason=")) {
      o.expect_reason = value("--expect-reason=");
      o.expect_reject = true;
    } else if (starts_with(a, "--without=")) {
      const std::string name = value("--without=");
      const std::optional<Defence> defence = defence_named(name);
      if (!defence) {
        std::string known;
        for (Defence d : kAllDefences) (known += ' ') += name_of(d);
        throw std::invalid_argument("--without takes a defence, one of" + known + "; not '" + name + "'");
      }
      o.disabled.insert(*defence);
    }
    else if (starts_with(a, "--as-compute-capability=")) {
      const std::string text = value("--as-compute-capability=");
      o.as_compute_capability = whole_int(text).value_or(0);
      if (o.as_compute_capability < 10)
        throw std::invalid_argument("--as-compute-capability takes a compute capability as major and minor digits "
                                    "(80 for 8.0), not '" + text + "'");
    }
    else if (starts_with(a, "--seed=")) {
      o.seed = whole_number("--seed", value("--seed="));
      o.seed_given = true;
    } else if (starts_with(a, "--data-key=")) {
      o.data_key = whole_number("--data-key", value("--data-key="));
    } else if (std::strcmp(a, "--seed") == 0) {
      throw std::invalid_argument("--seed takes its value after '=': --seed=N");
    } else if (a[0] == '-' && !doctest_option(a)) {
      throw std::invalid_argument(std::string("unknown flag '") + a + "' (--help lists the grader's flags)");
    } else {
      o.doctest_args.push_back(a);
      // Queries answer from the test registry alone: no CUDA, so they work on any machine.
      for (const char* query : {"--list-test-cases", "-ltc", "--list-test-suites", "-lts",
                                "--list-reporters", "-lr", "--help", "-h", "-?", "--version", "-v",
                                "--count", "-c"})
        if (starts_with(a, query) && (a[std::strlen(query)] == '\0' || a[std::strlen(query)] == '='))
          o.touches_cuda = false;
    }
  }
  return o;
}

// Why no GPU can be used, or "" when one can.
std::string why_no_gpu() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) return std::string("the CUDA runtime says: ") + cudaGetErrorString(status);
  if (count == 0) return "no CUDA device is visible";
  return "";
}

void print_header() {
  const DeviceFacts& d = device_facts();
  std::cout << "[workbook] " << d.name << " (sm_" << d.compute_capability << ", " << d.sm_count
            << " SMs), seed " << session().seed << " (replay with --seed=" << session().seed << ")\n";
  if (session().correctness_only) {
    std::cout << "[workbook] --correctness-only: small shapes, nothing timed\n";
    return;
  }
  // Measured, not taken from a datasheet: the card as it runs now is what results are fractions of.
  const DevicePeaks& peaks = device_peaks();
  std::cout << "[workbook] measured peaks: device-to-device copy " << static_cast<int>(peaks.copy_gb_per_s)
            << " GB/s (read + write), FP32 FMA " << peaks.fma_tflop_per_s << " TFLOP/s; limits (the [ceiling]): memory "
            << static_cast<int>(peaks.memory_limit_gb_per_s) << " GB/s, FP32 " << peaks.fma_limit_tflop_per_s << " TFLOP/s\n";
}

// --profile-report: the table of ncu's output for one step (profile.h), with no GPU. 0: printed;
// 1: ncu gave no profile of the step, and why; 2: a file that cannot be read.
int print_profile_report(const Options& options) {
  const auto read = [](const std::string& path) -> std::optional<std::string> {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  };
  const std::optional<std::string> output = read(options.ncu_output);
  if (!output) {
    std::cerr << "error: --profile-report needs --ncu-output=FILE, ncu's output: cannot read '" << options.ncu_output << "'\n";
    return 2;
  }
  std::vector<profile::Counter> counters;
  for (const auto& [lab, functions] : profiles()) counters = functions.counters();
  const std::vector<profile::Kernel> kernels = profile::kernels_in(*output);
  if (const std::string failure = profile::ncu_failure(*output, kernels.size()); !failure.empty()) {
    std::cout << "[workbook] profile: " << failure << '\n';
    return 1;
  }
  if (options.recorded_lines) {
    std::cout << profile::recorded_lines(options.profile_report, profile::combined(kernels), counters);
    return 0;
  }
  std::vector<profile::Column> columns = {{options.heading, profile::combined(kernels)}};
  if (!options.reference_output.empty()) {
    const std::optional<std::string> reference = read(options.reference_output);
    const std::vector<profile::Kernel> theirs = reference ? profile::kernels_in(*reference) : std::vector<profile::Kernel>{};
    if (theirs.empty()) {
      columns.push_back({"solution", std::nullopt});
      std::cout << "[workbook] profile: the solution's profile is missing: "
                << (reference ? profile::ncu_failure(*reference, 0) : "cannot read " + options.reference_output) << '\n';
    } else {
      columns.push_back({"solution", profile::combined(theirs)});
    }
  } else if (!options.recorded.empty()) {
    try {
      const profile::Values recorded = profile::recorded_values(options.recorded, options.profile_report);
      if (!recorded.empty()) columns.push_back({"solution*", recorded});
    } catch (const std::invalid_argument& error) {
      std::cerr << "error: " << error.what() << '\n';
      return 2;
    }
  }
  std::cout << "[workbook] profiled, one launch each:";
  for (const profile::Kernel& kernel : kernels) {
    const auto time = kernel.values.find(profile::kTimeMetric);
    std::cout << "\n  " << profile::readable(kernel.name);
    if (time != kernel.values.end()) std::cout << std::fixed << std::setprecision(1) << "  " << time->second / 1000.0 << " us";
  }
  std::cout << std::defaultfloat << "\n\n" << profile::table(counters, columns);
  if (columns.size() > 1 && columns.back().heading == "solution*")
    std::cout << "* the reference solution's values as recorded in " << options.recorded << '\n';
  return 0;
}

}  // namespace

bool register_bench(const char* lab, BenchFunction function, std::vector<std::string> columns) {
  benches()[lab] = function;
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
    doctest::detail::regTest(doctest::detail::TestCase(grade_started_step, "steps table", ++line,
                                                       doctest::detail::TestSuite() * lab) *
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
  doctest::detail::regTest(doctest::detail::TestCase(run_started_lab_test, "lab tests", ++line,
                                                     doctest::detail::TestSuite() * suite_name) *
                           name.c_str());
  return true;
}

bool register_ladder_tests(const char* lab, LabTest rejects_previous, LabTest admits_witnesses) {
  return register_lab_test(lab, "bars", "bars reject the previous step", rejects_previous) &&
         register_lab_test(lab, "bars", "bars admit each step's witness", admits_witnesses);
}

bool register_listing(const char* lab, ListFunction function) {
  listings()[lab] = function;
  return true;
}

bool register_drawn_sizes(const char* lab, DrawnSizesFunction function) {
  drawn_sizes()[lab] = function;
  return true;
}

bool register_profile(const char* lab, CountersFunction counters, ProfileFunction run) {
  profiles()[lab] = {counters, run};
  return true;
}

bool register_calibration(const char* lab, CalibrateFunction function) {
  calibrations()[lab] = function;
  return true;
}

}  // namespace workbook

int main(int argc, char** argv) {
  using namespace workbook;
  const auto began = std::chrono::steady_clock::now();
  Options options;
  try {
    options = parse(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << '\n';
    return 2;
  }
  if (options.list_steps) {
    // With --bars, the profile's bars: what grading on that GPU asks (./workbook list passes it).
    if (!options.bars_path.empty()) {
      try {
        session().calibrated_bars = read_bars_profile(options.bars_path).bars;
      } catch (const std::exception& error) {
        std::cerr << "error: " << error.what() << '\n';
        return 2;
      }
    }
    for (const auto& [lab, list] : listings()) list();
    return 0;
  }
  if (options.print_drawn_sizes) {
    session().seed = options.seed;
    session().correctness_only = options.correctness_only;
    for (const auto& [lab, describe] : drawn_sizes()) std::cout << lab << ": " << describe() << '\n';
    return 0;
  }
  if (options.profile_metrics) {
    for (const auto& [lab, functions] : profiles()) std::cout << profile::metrics_of(functions.counters()) << '\n';
    return 0;
  }
  if (!options.profile_report.empty()) return print_profile_report(options);
  if (options.print_bench_columns) {
    for (std::size_t c = 0; c < bench_columns().size(); ++c) std::cout << (c == 0 ? "" : ",") << bench_columns()[c];
    std::cout << '\n';
    return 0;
  }

  doctest::Context context;
  context.applyCommandLine(static_cast<int>(options.doctest_args.size()), options.doctest_args.data());
  if (context.shouldExit() || !options.touches_cuda) {
    for (const char* a : options.doctest_args)
      if (std::strcmp(a, "--help") == 0 || std::strcmp(a, "-h") == 0 || std::strcmp(a, "-?") == 0) std::cout << kUsage << '\n';
    return context.run();
  }

  if (!options.bars_path.empty()) {
    try {
      BarsProfile profile = read_bars_profile(options.bars_path);
      session().calibrated_bars = std::move(profile.bars);
      session().reference_values = std::move(profile.reference_values);
    } catch (const std::exception& error) {
      std::cerr << "error: " << error.what() << '\n';
      return 2;
    }
  }
  if (!options.gpu_check && options.bench_path.empty() && options.calibrate_path.empty() && options.profile_step.empty() &&
      selected_test_cases(options.doctest_args) == 0) {
    std::cerr << "error: no test case matches the filters given; --list-test-cases lists them (doctest splits "
                 "--test-case at commas: write \\, for a comma in a step's name)\n";
    return 2;
  }

  if (options.planner.empty() != options.device_code.empty()) {
    std::cerr << "error: a judge needs both --planner and --device-code\n";
    return 2;
  }

  if (const std::string reason = why_no_gpu(); !reason.empty()) {
    std::cout << "[workbook] skipped: grading needs a CUDA GPU (" << reason << ")\n";
    return kExitSkipped;
  }
  if (options.gpu_check) return 0;

  // Nothing watches what else the GPU runs around a call: a judge replays only the plan's launches,
  // each a kernel of the student's file, on the stream it times, and nothing of the student's host
  // code runs in its process (the boundary mutants prove each such class rejected, judged). A grader
  // linked with its implementation grades only our own code: the reference solutions, the proofs.
  // A judge's student: their kernels loaded, their planner started at once, so that its start-up
  // overlaps the rest of the judge's. Else the student's kernels are this program's own.
  if (!options.planner.empty()) {
    try {
      start_judging(options.planner, options.device_code);
    } catch (const std::exception& error) {
      std::cerr << "error: the student's GPU code could not be loaded: " << error.what() << '\n';
      return 2;
    }
  }

  session().compute_capability = device_facts().compute_capability;
  session().machine_refusal = machine_refusal(device_facts());
  if (!session().machine_refusal.empty()) std::cout << "[workbook] error: " << session().machine_refusal << '\n';
  // Without --bars, this GPU's profile in the checkout, where ./workbook calibrate wrote one: the
  // test suite then grades with the bars ./workbook grade uses. Calibration starts from the built-in ones.
  if (options.bars_path.empty() && options.calibrate_path.empty()) {
    const std::string profile = std::string(WORKBOOK_ROOT) + "/classroom/bars/" + bars_profile_file(device_facts().name);
    if (std::ifstream(profile).good()) {
      try {
        BarsProfile read = read_bars_profile(profile);
        session().calibrated_bars = std::move(read.bars);
        session().reference_values = std::move(read.reference_values);
      } catch (const std::exception& error) {
        std::cerr << "error: " << error.what() << '\n';
        return 2;
      }
      std::cout << "[workbook] bars: this GPU's profile, " << profile << '\n';
    }
  }
  if (options.as_compute_capability != 0) {
    if (options.as_compute_capability > session().compute_capability) {
      std::cerr << "error: --as-compute-capability=" << options.as_compute_capability << " is above this GPU's own ("
                << session().compute_capability << "): a step cannot be graded on an architecture the GPU lacks\n";
      return 2;
    }
    session().compute_capability = options.as_compute_capability;
    std::cout << "[workbook] --as-compute-capability=" << options.as_compute_capability
              << ": steps that need a newer GPU are reported not applicable\n";
  }
  session().correctness_only = options.correctness_only;
  session().exact_allocations = options.exact_allocations;
  session().disabled = options.disabled;
  CUDA_CHECK(cudaStreamCreateWithFlags(&session().stream, cudaStreamNonBlocking));
  for (Defence defence : options.disabled)
    std::cout << "[workbook] --without=" << name_of(defence) << ": this defence is OFF (for the mutant tests' proofs only)\n";
  session().seed = options.seed_given
                       ? options.seed
                       : static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  session().data_key_given = options.data_key.has_value();
  session().data_key = options.data_key.value_or(0);
  session().start_drawing_for_a_step();  // what runs before a step (a calibration, a ladder test) draws too
  print_header();

  if (!options.profile_step.empty()) {
    for (const auto& [lab, functions] : profiles()) return functions.run(options.profile_step);
    return 2;
  }
  if (!options.calibrate_path.empty()) {
    for (const auto& [lab, calibrate] : calibrations()) {
      std::cout << "[workbook] calibrating " << lab << " into " << options.calibrate_path << '\n';
      try {
        calibrate(options.calibrate_path);
      } catch (const CalibrationError& error) {  // the tool's error, not a bar: the runner writes no profile
        std::cout << "[workbook] error: " << error.what() << '\n';
        return kExitCalibrationError;
      }
    }
    return 0;
  }
  if (!options.bench_path.empty()) {
    for (const auto& [lab, bench] : benches()) {
      std::cout << "[workbook] benchmarking " << lab << " into " << options.bench_path << '\n';
      bench(options.bench_path);
    }
    return 0;
  }

  std::cout << "[workbook] start-up (CUDA, and the peaks where on): " << std::fixed << std::setprecision(2)
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count() << " s\n"
            << std::defaultfloat;
  rows_handed_over().fd = options.rows_fd;
  const int status = context.run();
  if (context.shouldExit()) return status;
  // With the runner's time for the whole process (grade.log's line after this one), what is left:
  // starting the process, and ending it (its CUDA context torn down). A class graded on several
  // GPUs at once spends more there than one alone (docs/instructors.md, "Every GPU of a host").
  std::cout << "[workbook] graded after " << std::fixed << std::setprecision(2)
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count() << " s of this process\n"
            << std::defaultfloat;
  // Every step selected needs an architecture this GPU lacks: neither a pass nor a failure. The
  // exit code is the one that says "skipped" to CTest and "n/a" to the workbook script.
  const bool none_applicable = OutcomeCounter::cases > 0 && session().not_applicable_steps == OutcomeCounter::cases;
  if (!session().rows.empty()) {
    std::cout << '\n';
    print_table(std::cout, session().rows);
  }
  if (!options.rows_path.empty() || options.rows_fd >= 0) {
    try {
      if (options.rows_fd >= 0) hand_over_rows();  // any not handed over as their step ended
      else append_rows(options.rows_path, session().rows);
    } catch (const std::exception& error) {
      std::cerr << "error: " << error.what() << '\n';
      return 1;
    }
  }

  if (none_applicable) {
    std::cout << "[workbook] not applicable: every step selected needs a newer GPU than this one\n";
    return kExitNotApplicable;
  }
  if (options.expect_honest) {
    // A boundary mutant judged: whatever its host code tried, each step was graded on the time its
    // own kernels took, so it passes or misses its bar, and trips no defence on the way.
    const std::vector<StepVerdict> all = verdicts(session().rows);
    if (all.empty()) {
      std::cout << "[workbook] --expect-honest: no step recorded a verdict\n";
      return 1;
    }
    for (const StepVerdict& v : all)
      if (v.applicable && !v.passed && !v.correct) {
        std::cout << "[workbook] --expect-honest: " << v.step << " was not graded as honest work: " << v.summary << '\n';
        return 1;
      }
    std::cout << "[workbook] --expect-honest: every step was graded on its own kernels' time, and tripped no defence\n";
    return 0;
  }
  if (options.expect_reject) {
    // A mutant or an untouched starter: every test case must fail, and fail cleanly (we got here).
    // A step that is not applicable on this GPU was not graded, so it is not counted.
    const int graded = OutcomeCounter::cases - session().not_applicable_steps;
    const bool all_rejected = graded > 0 && OutcomeCounter::failed == graded;
    std::cout << "[workbook] --expect-reject: " << OutcomeCounter::failed << " of " << graded
              << " test cases failed" << (all_rejected ? " as expected\n" : ": the grader let a wrong implementation through\n");
    if (!all_rejected) return 1;
    if (options.expect_reason.empty()) return 0;
    // A mutant of one defence: each step's verdict must name that defence, or it was caught by
    // something else (and proves nothing about the defence).
    const std::vector<StepVerdict> all = verdicts(session().rows);
    if (all.empty()) {
      std::cout << "[workbook] --expect-reason: no step recorded a verdict\n";
      return 1;
    }
    for (const StepVerdict& v : all)
      if (v.summary.find(options.expect_reason) == std::string::npos) {
        std::cout << "[workbook] --expect-reason: " << v.step << " failed, but not for '" << options.expect_reason
                  << "': " << v.summary << '\n';
        return 1;
      }
    std::cout << "[workbook] --expect-reason: every failure names '" << options.expect_reason << "'\n";
    return 0;
  }
  return status;
}
