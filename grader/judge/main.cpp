// The grader's main(). doctest runs the test cases; around it this adds what the grader contract
// asks for: the modes that answer without a GPU never touch CUDA, no visible GPU exits with 77
// (CTest: skipped), the seed is printed and replayable, results are kept as rows, and the proofs'
// gradings are held to what they expect (--expect-reject, --expect-reason, --expect-honest).
// Its flags, mode by mode: grader_options.h.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "harness/grader_options.h"
#include "harness/peaks.h"
#include "harness/queries.h"
#include "harness/registrations.h"
#include "harness/resources.h"
#include "harness/session.h"
#include "judge/judge.h"
#include "protocol/bars_profile.h"
#include "protocol/plan_findings.h"
#include "protocol/rows.h"
#include "workbook/cuda.h"

namespace workbook {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point then) { return std::chrono::duration<double>(Clock::now() - then).count(); }

// Why no GPU can be used, or "" when one can.
std::string why_no_gpu() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) return std::string("the CUDA runtime says: ") + cudaGetErrorString(status);
  if (count == 0) return "no CUDA device is visible";
  return "";
}

// doctest's own queries (--list-test-cases, --help, ...): answered from the test registry alone.
int answer_doctest_query(const Options& options) {
  doctest::Context context;
  context.applyCommandLine(static_cast<int>(options.doctest_args.size()), options.doctest_args.data());
  for (const char* a : options.doctest_args)
    if (std::strcmp(a, "--help") == 0 || std::strcmp(a, "-h") == 0 || std::strcmp(a, "-?") == 0)
      std::cout << grader_usage() << '\n';
  return context.run();
}

// The bars a measuring mode holds steps to: --bars's profile; else, but for a calibration (which
// starts from the built-in ones), this GPU's profile where ./workbook calibrate wrote one, so that
// the test suite grades with the bars ./workbook grade uses. Throws for a profile that cannot be read.
void read_bars(const Options& options, bool on_gpu) {
  std::string path = options.bars_path;
  if (path.empty() && on_gpu && options.mode != Mode::kCalibrate) {
    const std::string profile =
        std::string(WORKBOOK_ROOT) + "/classroom/bars/" + bars_profile_file(device_facts().name);
    if (!std::ifstream(profile).good()) return;
    path = profile;
  }
  if (path.empty()) return;
  BarsProfile profile = read_bars_profile(path);
  session().calibrated_bars = std::move(profile.bars);
  session().reference_values = std::move(profile.reference_values);
  if (options.bars_path.empty()) std::cout << "[workbook] bars: this GPU's profile, " << path << '\n';
}

void print_header() {
  const DeviceFacts& d = device_facts();
  std::cout << "[workbook] " << d.name << " (sm_" << d.compute_capability << ", " << d.sm_count << " SMs), seed "
            << session().seed << " (replay with --seed=" << session().seed << ")\n";
  if (session().correctness_only) {
    std::cout << "[workbook] --correctness-only: small shapes, nothing timed\n";
    return;
  }
  // From the device's attributes: what no kernel can pass, and what each row's share is of (grade.log).
  const DeviceCeilings& ceilings = device_ceilings();
  std::cout << "[workbook] the device's limits (the [ceiling]): memory "
            << static_cast<int>(ceilings.memory_limit_gb_per_s) << " GB/s, FP32 " << ceilings.fma_limit_tflop_per_s
            << " TFLOP/s\n";
}

// The session every measuring mode grades in: whose kernels (a judge's student, started at once so
// that its planner's start-up overlaps the rest), the GPU and what it is taken for, the bars, the
// defences, the seed. 0, or the exit status of a session that could not start.
int start_session(const Options& options) {
  // Nothing watches what else the GPU runs around a call: a judge replays only the plan's launches,
  // each a kernel of the student's file, on the stream it times, and nothing of the student's host
  // code runs in its process (the boundary mutants prove each such class rejected, judged). A grader
  // linked with its implementation grades only our own code: the reference solutions, the proofs.
  if (!options.planner.empty()) {
    try {
      start_judging(options.planner, options.device_code, options.device_code_sass);
    } catch (const std::exception& error) {
      std::cerr << "error: the student's GPU code could not be loaded: " << error.what() << '\n';
      return 2;
    }
  }
  session().compute_capability = device_facts().compute_capability;
  session().machine_refusal = machine_refusal(device_facts());
  if (!options.planner.empty() && session().machine_refusal.empty()) session().machine_refusal = confinement_refusal();
  if (!session().machine_refusal.empty()) std::cout << "[workbook] error: " << session().machine_refusal << '\n';
  if (options.bars_path.empty()) {
    try {
      read_bars(options, /*on_gpu=*/true);
    } catch (const std::exception& error) {
      std::cerr << "error: " << error.what() << '\n';
      return 2;
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
    std::cout << "[workbook] --without=" << name_of(defence)
              << ": this defence is OFF (for the mutant tests' proofs only)\n";
  session().seed =
      options.seed_given ? options.seed : static_cast<std::uint64_t>(Clock::now().time_since_epoch().count());
  session().data_key_given = options.data_key.has_value();
  session().data_key = options.data_key.value_or(0);
  session().start_drawing_for_a_step();  // what runs before a step (a calibration, a ladder test) draws too
  print_header();
  return 0;
}

int calibrate(const Options& options) {
  const registered::Lab& lab = registered::lab();
  if (lab.calibrate == nullptr) return 0;
  std::cout << "[workbook] calibrating " << lab.name << " into " << options.mode_value << '\n';
  try {
    lab.calibrate(options.mode_value);
  } catch (const CalibrationError& error) {  // the tool's error, not a bar: the runner writes no profile
    std::cout << "[workbook] error: " << error.what() << '\n';
    return exit_code::kCalibrationError;
  }
  return 0;
}

int bench(const Options& options) {
  const registered::Lab& lab = registered::lab();
  if (lab.bench == nullptr) return 0;
  std::cout << "[workbook] benchmarking " << lab.name << " into " << options.mode_value << '\n';
  lab.bench(options.mode_value);
  return 0;
}

// A boundary mutant judged: whatever its host code tried, each step was graded on the time its own
// kernels took, so it passes or misses its bar, and trips no defence on the way.
int held_to_honest() {
  const std::vector<StepVerdict> all = verdicts(session().rows);
  if (all.empty()) {
    std::cout << "[workbook] --expect-honest: no step recorded a verdict\n";
    return 1;
  }
  for (const StepVerdict& v : all)
    if (v.applicable && !v.passed && !v.correct) {
      std::cout << "[workbook] --expect-honest: " << v.step.name() << " was not graded as honest work: " << v.summary
                << '\n';
      return 1;
    }
  std::cout << "[workbook] --expect-honest: every step was graded on its own kernels' time, and tripped no defence\n";
  return 0;
}

// A mutant or an untouched starter: every test case must fail, and fail cleanly (we got here). A
// step that is not applicable on this GPU was not graded, so it is not counted. With a reason (a
// mutant of one defence), each step's verdict must name it, or it was caught by something else and
// proves nothing about the defence.
int held_to_rejection(const std::string& reason) {
  const int graded = registered::test_cases_run() - session().not_applicable_steps;
  const int failed = registered::test_cases_failed();
  const bool all_rejected = graded > 0 && failed == graded;
  std::cout << "[workbook] --expect-reject: " << failed << " of " << graded << " test cases failed"
            << (all_rejected ? " as expected\n" : ": the grader let a wrong implementation through\n");
  if (!all_rejected) return 1;
  if (reason.empty()) return 0;
  const std::vector<StepVerdict> all = verdicts(session().rows);
  if (all.empty()) {
    std::cout << "[workbook] --expect-reason: no step recorded a verdict\n";
    return 1;
  }
  for (const StepVerdict& v : all)
    if (v.summary.find(reason) == std::string::npos) {
      std::cout << "[workbook] --expect-reason: " << v.step.name() << " failed, but not for '" << reason
                << "': " << v.summary << '\n';
      return 1;
    }
  std::cout << "[workbook] --expect-reason: every failure names '" << reason << "'\n";
  return 0;
}

// --plan-check, with no GPU: the lab's steps planned by the student's planner against the described
// GPU (plan_check.h). Each finding is a line for the runner (protocol/plan_findings.h), which shows
// those of the steps it grades; 0 when the check ran, 2 when it could not.
int check_plans_without_gpu(const Options& options) {
  if (const std::string refusal = confinement_refusal(); !refusal.empty()) {
    std::cout << "[workbook] the plans are not checked: " << refusal << '\n';
    return 2;
  }
  session().without_gpu = true;
  session().compute_capability = device_facts().compute_capability;
  session().seed = options.seed;
  try {
    start_judging_without_gpu(options.planner);
    if (registered::lab().plan_check != nullptr) {
      const PlanCheck checked = registered::lab().plan_check();
      std::vector<PlanFinding> findings = checked.refusals;
      if (!checked.not_started.empty()) findings.push_back({checked.not_started, "not implemented yet"});
      if (!checked.needs_a_gpu.empty())
        findings.push_back({checked.needs_a_gpu,
                            "the launcher asks what only a GPU answers (a kernel's registers or occupancy, a tensor "
                            "map): checked on a GPU only"});
      for (const PlanFinding& finding : findings) std::cout << plan_finding_line(finding) << '\n';
      std::cout << "[workbook] plans checked without a GPU: " << checked.steps << " steps, " << checked.calls
                << " calls; refused: " << checked.refusals.size() << '\n';
    }
  } catch (const std::exception& error) {
    std::cerr << "error: the plans could not be checked: " << error.what() << '\n';
    return 2;
  }
  return 0;
}

// Grading: doctest runs the selected steps; then the rows go where they were asked to, and the exit
// status says the steps' verdicts, or what the proofs expected of them.
int grade(const Options& options, doctest::Context& context, Clock::time_point began) {
  std::cout << "[workbook] start-up (CUDA and the device's attributes): " << std::fixed << std::setprecision(2)
            << seconds_since(began) << " s\n"
            << std::defaultfloat;
  registered::hand_rows_over_on(options.rows_fd);
  const int status = context.run();
  if (context.shouldExit()) return status;
  // With the runner's time for the whole process (grade.log's line after this one), what is left:
  // starting the process, and ending it (its CUDA context torn down). A class graded on several
  // GPUs at once spends more there than one alone (docs/instructors.md, "Every GPU of a host").
  std::cout << "[workbook] graded after " << std::fixed << std::setprecision(2) << seconds_since(began)
            << " s of this process\n"
            << std::defaultfloat;
  // Every step selected needs an architecture this GPU lacks: neither a pass nor a failure. The
  // exit code is the one that says "skipped" to CTest and "n/a" to the workbook script.
  const int cases = registered::test_cases_run();
  const bool none_applicable = cases > 0 && session().not_applicable_steps == cases;
  if (!session().rows.empty()) {
    std::cout << '\n';
    print_table(std::cout, session().rows);
  }
  if (!options.rows_path.empty() || options.rows_fd >= 0) {
    try {
      if (options.rows_fd >= 0) registered::hand_over_rows();  // any not handed over as their step ended
      else append_rows(options.rows_path, session().rows);
    } catch (const std::exception& error) {
      std::cerr << "error: " << error.what() << '\n';
      return 1;
    }
  }
  if (none_applicable) {
    std::cout << "[workbook] not applicable: every step selected needs a newer GPU than this one\n";
    return exit_code::kSkipped;
  }
  if (options.expect.honest) return held_to_honest();
  if (options.expect.reject) return held_to_rejection(options.expect.reason);
  return status;
}

}  // namespace

}  // namespace workbook

int main(int argc, char** argv) {
  using namespace workbook;
  const auto began = Clock::now();
  Options options;
  try {
    options = parse_options(argc, argv);
    if (options.mode == Mode::kDoctestQuery) return answer_doctest_query(options);
    if (options.mode == Mode::kPlanCheck) return check_plans_without_gpu(options);
    if (answers_without_gpu(options.mode)) return answer_without_gpu(options);
    // A measuring mode's own mistakes are said before asking for a GPU, so that they are said on any
    // machine: a bars profile that cannot be read, filters that select no test case.
    read_bars(options, /*on_gpu=*/false);
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << '\n';
    return 2;
  }
  doctest::Context context;
  context.applyCommandLine(static_cast<int>(options.doctest_args.size()), options.doctest_args.data());
  if (options.mode == Mode::kGrade && registered::selected_test_cases(options.doctest_args) == 0) {
    std::cerr << "error: no test case matches the filters given; --list-test-cases lists them (doctest splits "
                 "--test-case at commas: write \\, for a comma in a step's name)\n";
    return 2;
  }

  if (const std::string reason = why_no_gpu(); !reason.empty()) {
    std::cout << "[workbook] skipped: grading needs a CUDA GPU (" << reason << ")\n";
    return exit_code::kSkipped;
  }
  if (options.mode == Mode::kGpuCheck) return 0;
  if (const int failed = start_session(options); failed != 0) return failed;
  switch (options.mode) {
    case Mode::kProfile: {
      if (registered::lab().profile != nullptr) return registered::lab().profile(options.mode_value);
      return 2;
    }
    case Mode::kCalibrate: return calibrate(options);
    case Mode::kBench: return bench(options);
    default: return grade(options, context, began);
  }
}
