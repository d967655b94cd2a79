// The step-grading skeleton: the one flow by which every lab's steps are graded, with the
// integrity defences inside it (docs/integrity.md), so that a lab gets them by construction.
//
// A lab supplies only its own facts, as a struct of types and static functions (see
// grader/labs/02_memory/grader.cpp for the smallest):
//   Problem, Condition                 its launchers' argument; where a measurement is taken
//   Step, CaseSpec                     workbook::Step<Problem, Condition>; what one correctness
//                                      case is (a size, a shape, offsets)
//   kName, steps()                     "02_memory"; the steps table: id, title, launcher, bar
//   default_condition()                where a bar is measured unless it says otherwise
//   describe(step, condition)          the row's "measured at" text
//   correctness_cases(), make_case()   the shapes checked (or correctness_cases(step), where steps
//                                      differ), and one of them built: its arrays, its problem and
//                                      the check of its output (oracle, tolerance)
//   timed(condition)                   the timed call's arrays and problem, the baseline and the
//                                      reference on the same inputs, the device-side check of
//                                      every timed call's output, and the call's bytes and flops
//   reference()                        what "% ref" is of, and whether it is a ceiling
//   info_conditions(step)              where else a step is measured, for information
//   extra_requirement(step, cond, m)   a lab's own condition of a bar ("" if none), e.g. occupancy
//   launch_note(step, m)               optional: text added to a row's "measured at", from the
//                                      launch measured (lab 05's shared memory per transform)
// A step that measures the GPU instead of racing a baseline (lab 01's latencies, its occupancy
// calculator) sets Step::measurement: its cases compare the student's measurement with the grader's
// and report it (Case::report), and nothing else is timed.
// A lab whose launchers need device memory of their own (split-k's partial sums, a scan's tile
// states) gives its Problem the fields `void* workspace` and `std::size_t workspace_bytes`, and the
// steps that need one a workspace_bytes() function: the skeleton allocates, poisons and guards it.
// The skeleton does the rest: correctness, the guards, the inputs, the timing with its second
// clock, the launch audit, the ceilings, the bar, the rows, and the test that each bar rejects the
// previous step's solution.
#pragma once

#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <exception>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "buffers.h"
#include "defences.h"
#include "device_trace.h"
#include "drawn_sizes.h"
#include "peaks.h"
#include "report.h"
#include "resources.h"
#include "session.h"
#include "timing.h"
#include "workbook/cuda.h"
#include "workbook/launch_log.h"

namespace workbook {

// ---------------------------------------------------------------------------------------------
// What a lab declares

// One condition of a bar: where it is measured, and what the step must reach there (0: nothing).
template <typename Condition>
struct Requirement {
  Condition at;
  double min_speedup = 0;               // over the baseline, same inputs, same process
  double min_percent_of_reference = 0;  // of the lab's reference, timed in the same run
};

template <typename Problem, typename Condition>
struct Step {
  using Launcher = void (*)(const Problem&, cudaStream_t);
  const char* id;     // "02.1"
  const char* title;  // "several floats per thread"
  Launcher launcher;
  std::vector<Requirement<Condition>> bar;
  // Not null for a step that is an experiment rather than a rung: its bar is a floor that the
  // previous step's solution also clears, and this says why.
  const char* experiment = nullptr;
  // A CPU check of the step's other deliverable, before its kernels: "" or why it fails.
  std::string (*precheck)() = nullptr;
  // Not null for a step whose launcher needs a workspace: its size in bytes for a problem (which
  // has every field set but the workspace), asked once per correctness case and per measurement,
  // as CUB's callers ask before they allocate.
  std::size_t (*workspace_bytes)(const Problem&) = nullptr;
  // True for a step whose blocks wait for other blocks (a scan's look-back): each block must take
  // its work in the order blocks start (from an atomic counter), never by blockIdx, which CUDA does
  // not promise to start in order. The grader reads the step's kernels' machine code ([block-order]).
  bool blocks_wait_for_others = false;
  // Not null for a step that measures the GPU, or computes from its limits, instead of racing a
  // baseline (lab 01's latencies and occupancy calculator): it is graded by its cases alone, each of
  // which checks what the student's code measured against the grader's own measurement and reports
  // it, one row per case. Nothing is timed against a baseline, no bar has to reject the step before
  // it, and this text is its bar ("within 5% of the grader's chain"). Such a step may have no
  // launcher: a calculator in plain C++ is called by its case's check.
  const char* measurement = nullptr;
  // The oldest GPU the step can run on, as major and minor digits (90: Hopper, for its copy engine);
  // 0: any the workbook supports (8.0 and newer). On an older GPU the step is reported not applicable,
  // never failed: the GPU lacks the instructions, not the student the skill.
  int min_compute_capability = 0;

  std::string name() const { return std::string(id) + " " + title; }
};

// The lab's reference, timed in the same run: cudaMemcpy of the same bytes is a ceiling (no
// correct kernel moves them faster); cuBLAS is not (a kernel may beat it).
struct Reference {
  std::string name;
  bool is_ceiling = false;
};

// What a measurement step's case reports: the value in the row's rate column ("39.8 cycles"), and
// a sentence beside it (the grader's value and the seed papers').
struct Reported {
  double value = kNotMeasured;
  std::string unit;
  std::string text;
};

// One correctness check: the arrays of one call, its problem, and the check of its output.
template <typename Problem>
struct Case {
  std::string where;  // "n = 33 at 128 threads", for the message
  Arrays arrays;
  Problem problem{};
  std::function<std::string()> check_output;  // after the call: "" or why the output is wrong
  // Set by the skeleton before check_output: the launcher call's duration by the grader's own events,
  // so that a step whose launcher reports a measurement can check it against the wall clock.
  double launcher_ms = 0;
  // A measurement step's (Step::measurement): what the case measured, for its row, once it passed.
  std::function<Reported()> report;
};

// One timed measurement: the candidate's arrays and problem, the grader's own works on the same
// inputs, and the check of the candidate's output on the device after every timed call.
template <typename Problem>
struct Timed {
  Arrays arrays;  // the candidate's inputs are drawn afresh and its outputs poisoned before every call
  Problem problem{};
  GpuWork baseline;   // the lab's naive kernel, into a scratch output
  GpuWork reference;  // cudaMemcpy, cuBLAS: into a scratch output
  // Adds every element of the candidate's output that is wrong for the current inputs to *result.
  std::function<void(cudaStream_t, DeviceMismatches*)> check_output;
  double bytes = 0;  // one call's compulsory traffic (read + write) and arithmetic: rates, ceilings
  double flops = 0;
  TimingOptions timing;
};

// A problem that carries a workspace: device memory for the launcher's own use.
template <typename Problem>
concept HasWorkspace = requires(Problem p) {
  { p.workspace } -> std::convertible_to<void*>;
  { p.workspace_bytes } -> std::convertible_to<std::size_t>;
};

// Gives `problem` the workspace `step` asks for, in `arrays` (so poisoned before every call, and
// its guards checked), or none.
template <typename Problem, typename Condition>
void give_workspace(const Step<Problem, Condition>& step, Problem& problem, Arrays& arrays) {
  if constexpr (HasWorkspace<Problem>) {
    problem.workspace = nullptr;
    problem.workspace_bytes = 0;
    if (step.workspace_bytes == nullptr) return;
    const std::size_t bytes = step.workspace_bytes(problem);
    if (bytes == 0) return;
    problem.workspace = arrays.workspace("the workspace", bytes);
    problem.workspace_bytes = bytes;
  }
}

// ---------------------------------------------------------------------------------------------
// What the skeleton measures

struct Measurement {
  double candidate_ms = 0, baseline_ms = 0, reference_ms = 0;
  double bytes = 0, flops = 0;
  Reference reference;
  std::optional<KernelResources> resources;  // of the step's own kernel; none: nothing went through workbook::launch
  std::string failure;                       // what a defence found, tagged; "" when nothing

  double speedup() const { return baseline_ms / candidate_ms; }
  double percent_of_reference() const { return 100.0 * reference_ms / candidate_ms; }
  bool in_flops() const { return flops > 0; }
  double rate() const { return (in_flops() ? flops : bytes) / (candidate_ms * 1e6); }  // GFLOP/s or GB/s
  const char* rate_unit() const { return in_flops() ? "GFLOP/s" : "GB/s"; }
};

// Runs `body` (which returns "" or why the step fails) and turns whatever a student's launcher
// throws into the reason the step fails: an open TODO, a CUDA error, a refused shape.
template <typename Body>
std::string failure_of(Body&& body) {
  try {
    return body();
  } catch (const NotImplemented& e) {
    return e.what();
  } catch (const CudaError& e) {
    return std::string("CUDA error: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("the launcher threw: ") + e.what();
  }
}

// "[workbook] 04.5: correctness: 2.31 s" in the step's log: where a grading's time goes.
inline void log_phase_seconds(const char* step_id, const std::string& phase,
                              std::chrono::steady_clock::time_point began) {
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  std::cout << "[workbook] " << step_id << ": " << phase << ": " << std::fixed << std::setprecision(2) << seconds << " s\n"
            << std::defaultfloat;
}

// The kernel a step is about, among those its launcher launched (nullopt: none): the one holding
// the most registers per thread, the first of them on a tie. A step may launch helpers beside its
// own kernel (lab 04 packs the operands before the product and adds split-k's partial sums after
// it); they are light, and the kernel whose registers and occupancy the step is about is not.
std::optional<LaunchRecord> main_launch(const std::vector<LaunchRecord>& launches);

// The defences' verdicts, each "" or a tagged failure (skeleton.cpp).
// [foreign-work] / [outside-timer] / [unrecorded-launch]: what the device trace saw one call run,
// against the launches it recorded through workbook::launch(): every kernel the student's own (its
// name among session().own_code), on the given stream, recorded with the same grid, block and
// shared memory; no record without its kernel; no device-to-device copy.
std::string audit_device_work(const std::vector<DeviceActivity>& ran, std::vector<LaunchRecord> launches, cudaStream_t stream);
// [outside-timer]: a launch on a stream other than the one the launcher was given.
std::string launches_off_stream(const std::vector<LaunchRecord>& launches, cudaStream_t stream);
// [outside-timer]: the call waited for the device, or the host clock ran over the event clock by
// more than the baseline's did.
std::string work_outside_timer(const Timing& candidate, const Timing& baseline);
// [block-order]: in a step whose blocks wait for other blocks, a kernel launched with more blocks
// than the GPU holds at once that reads blockIdx and can watch other blocks' writes (machine_code.h):
// one of its blocks may wait for a block that cannot start.
std::string block_order_violation(const std::vector<LaunchRecord>& launches);
// [stage-reuse]: on a GPU with a copy engine (compute capability 9.0), a kernel whose machine code can
// load into shared memory after a bulk store from it without waiting for the store to read it
// (machine_code.h): the next chunk may overwrite bytes the store has not yet sent.
std::string stage_reuse_violation(const std::vector<LaunchRecord>& launches);
// [remembered-work] / [input-changed]: the first timed call whose device check found something.
// `every_call`: each call had fresh inputs and was checked; otherwise only the last one was.
std::string first_failed_call(const std::vector<DeviceMismatches>& outputs, const std::vector<DeviceMismatches>& inputs,
                              int calls, bool every_call);
// [ceiling]: a measurement faster than the reference (when it is a ceiling) or the device's peaks.
std::string above_ceiling(const Measurement& m);

// ---------------------------------------------------------------------------------------------
// The flow

// Times `launcher` on `timed` against its baseline and reference, with every timed-call defence.
template <typename Problem>
Measurement measure(void (*launcher)(const Problem&, cudaStream_t), Timed<Problem>& timed, const Reference& reference) {
  const cudaStream_t stream = session().stream;
  Measurement m;
  m.bytes = timed.bytes;
  m.flops = timed.flops;
  m.reference = reference;
  const auto call = [&](cudaStream_t s) { launcher(timed.problem, s); };

  // The candidate's calls: each records its launches and checks their stream, and the device trace
  // audits what each ran; before each, fresh inputs and poisoned outputs; after each, its output
  // and its inputs checked on the device.
  const bool fresh = defence_enabled(Defence::kRememberedWork);
  const int capacity = timed.timing.warmup_runs + timed.timing.max_runs;
  RunChecks output_checks(capacity), input_checks(capacity);
  std::vector<LaunchRecord> launches;
  std::string off_stream, traced;
  TimedWork candidate;
  candidate.run = [&](cudaStream_t s) {
    clear_recorded_launches();
    call(s);
    launches = recorded_launches();
    if (off_stream.empty()) off_stream = launches_off_stream(launches, s);
  };
  candidate.traced = [&](std::vector<DeviceActivity>&& ran, int) {
    if (traced.empty()) traced = audit_device_work(ran, launches, stream);
  };
  if (fresh) {
    candidate.before = [&](cudaStream_t s, int) {
      timed.arrays.redraw_inputs(s);
      timed.arrays.poison_outputs(s);
    };
    candidate.after = [&](cudaStream_t s, int index) {
      timed.check_output(s, output_checks.slot(index));
      timed.arrays.count_changed_inputs(input_checks.slot(index), s);
    };
  }
  const std::vector<Timing> timings = time_interleaved(
      {{timed.baseline, {}, {}, {}}, candidate, {timed.reference, {}, {}, {}}}, stream, timed.timing);
  m.baseline_ms = timings[0].median_ms;
  m.candidate_ms = timings[1].median_ms;
  m.reference_ms = timings[2].median_ms;
  std::cout << std::fixed << std::setprecision(4) << "[workbook] second clock, host over event (median ms): baseline "
            << timings[0].median_overrun_ms << ", candidate " << timings[1].median_overrun_ms << ", " << reference.name
            << ' ' << timings[2].median_overrun_ms << '\n' << std::defaultfloat;
  std::cout << std::setprecision(4) << "[workbook] median ms (calls, timed samples): baseline " << timings[0].median_ms << " (" << timings[0].calls
            << ", " << timings[0].runs << "), candidate " << timings[1].median_ms << " (" << timings[1].calls << ", "
            << timings[1].runs << "), " << reference.name << ' ' << timings[2].median_ms << " (" << timings[2].calls << ", "
            << timings[2].runs << ")\n";
  if (!fresh) {  // without the defence: the output the last call left, checked once
    timed.check_output(stream, output_checks.slot(0));
    timed.arrays.count_changed_inputs(input_checks.slot(0), stream);
  }
  // Asked once, after the timed runs: the queries cost host time that must not sit between events.
  if (const std::optional<LaunchRecord> step_kernel = main_launch(launches)) m.resources = resources_of(*step_kernel);

  const auto first_of = [](std::initializer_list<std::string> verdicts) {
    for (const std::string& verdict : verdicts)
      if (!verdict.empty()) return verdict;
    return std::string();
  };
  std::string guards = defence_enabled(Defence::kGuard) ? timed.arrays.guard_violations() : "";
  if (!guards.empty()) guards = tagged(Defence::kGuard, guards);
  m.failure = first_of({
      traced,
      defence_enabled(Defence::kOutsideTimer) ? off_stream : "",
      defence_enabled(Defence::kOutsideTimer) ? work_outside_timer(timings[1], timings[0]) : "",
      first_failed_call(output_checks.download(), input_checks.download(), fresh ? timings[1].calls : 1, fresh),
      guards,
      m.resources ? "" : "the launcher made no launch through workbook::launch(): launch every kernel with it, so that "
                         "the grader can see its registers, shared memory and occupancy",
      defence_enabled(Defence::kCeiling) ? above_ceiling(m) : "",
  });
  return m;
}

// Requirement `index` of `step`'s bar as this run grades it: the built-in one (set on an H100), or
// the minimums of this GPU's bars profile (--bars, ./workbook calibrate) where it has the step.
template <typename Step>
auto graded_requirement(const Step& step, std::size_t index) {
  auto requirement = step.bar[index];
  const auto found = session().calibrated_bars.find(step.id);
  if (found != session().calibrated_bars.end() && index < found->second.size()) {
    requirement.min_speedup = found->second[index].min_speedup;
    requirement.min_percent_of_reference = found->second[index].min_percent_of_reference;
  }
  return requirement;
}

// "" when `m` meets `requirement` (and the lab's own condition of it), else why not.
template <typename Lab>
std::string requirement_failure(const typename Lab::Step& step, const Requirement<typename Lab::Condition>& requirement,
                                const Measurement& m) {
  if (!m.failure.empty()) return m.failure;
  if (std::string why = Lab::extra_requirement(step, requirement.at, m); !why.empty()) return why;
  std::ostringstream why;
  why << std::fixed << std::setprecision(2);
  const std::string at = Lab::describe(step, requirement.at);
  if (m.speedup() < requirement.min_speedup)
    why << "speedup " << m.speedup() << "x over the baseline at " << at << ", the bar is " << requirement.min_speedup << "x";
  else if (m.percent_of_reference() < requirement.min_percent_of_reference)
    why << m.percent_of_reference() << "% of " << m.reference.name << " at " << at << ", the bar is "
        << requirement.min_percent_of_reference << "%";
  return why.str();
}

// ">= 6x, >= 95% of cudaMemcpy (and >= 85% at 8191 x 8191)": a bar as the report shows it.
template <typename Lab>
std::string describe_bar(const typename Lab::Step& step) {
  if (step.measurement != nullptr) return step.measurement;
  std::ostringstream text;
  for (std::size_t r = 0; r < step.bar.size(); ++r) {
    const auto requirement = graded_requirement(step, r);
    text << (r == 0 ? "" : " (and ");
    if (requirement.min_speedup > 0) text << ">= " << requirement.min_speedup << "x";
    if (requirement.min_speedup > 0 && requirement.min_percent_of_reference > 0) text << ", ";
    if (requirement.min_percent_of_reference > 0)
      text << ">= " << requirement.min_percent_of_reference << "% of " << Lab::reference().name;
    if (!(requirement.at == Lab::default_condition())) text << " at " << requirement.at.describe();
    text << (r == 0 ? "" : ")");
  }
  return text.str();
}

// One correctness case: run the launcher once (if the step has one), then the lab's check of the
// output, the guards and the inputs. "" or why the step fails; a measurement step's case adds its
// report to *reports.
template <typename Lab>
std::string check_case(const typename Lab::Step& step, const typename Lab::CaseSpec& spec,
                       std::vector<std::pair<std::string, Reported>>* reports = nullptr) {
  const cudaStream_t stream = session().stream;
  const std::unique_ptr<Case<typename Lab::Problem>> c = Lab::make_case(spec);
  give_workspace(step, c->problem, c->arrays);
  clear_recorded_launches();
  std::vector<DeviceActivity> ran;
  if (step.launcher != nullptr)
    c->launcher_ms = time_one_call_ms([&](cudaStream_t s) { step.launcher(c->problem, s); }, stream, &ran);
  const std::string where = c->where + ": ";
  if (std::string why = c->check_output(); !why.empty()) return where + why;
  if (std::string why = c->arrays.guard_violations(); !why.empty() && defence_enabled(Defence::kGuard))
    return where + tagged(Defence::kGuard, why);
  if (std::string why = c->arrays.changed_inputs(stream); !why.empty() && defence_enabled(Defence::kInputChanged))
    return where + tagged(Defence::kInputChanged, why);
  if (defence_enabled(Defence::kOutsideTimer))
    if (std::string why = launches_off_stream(recorded_launches(), stream); !why.empty()) return where + why;
  if (device_trace_running())
    if (std::string why = audit_device_work(ran, recorded_launches(), stream); !why.empty()) return where + why;
  if (step.blocks_wait_for_others && defence_enabled(Defence::kBlockOrder))
    if (std::string why = block_order_violation(recorded_launches()); !why.empty()) return where + why;
  if (defence_enabled(Defence::kStageReuse))
    if (std::string why = stage_reuse_violation(recorded_launches()); !why.empty()) return where + why;
  if (reports != nullptr && c->report) reports->emplace_back(c->where, c->report());
  return "";
}

template <typename Lab>
std::string check_all_cases(const typename Lab::Step& step,
                            std::vector<std::pair<std::string, Reported>>* reports = nullptr) {
  if (step.precheck != nullptr)
    if (std::string why = step.precheck(); !why.empty()) return why;
  // A lab whose steps solve different problems (lab 06: reductions and scans) gives each step its
  // own cases: correctness_cases(step).
  std::vector<typename Lab::CaseSpec> cases;
  if constexpr (requires { Lab::correctness_cases(step); }) cases = Lab::correctness_cases(step);
  else cases = Lab::correctness_cases();
  for (const typename Lab::CaseSpec& spec : cases)
    if (std::string why = check_case<Lab>(step, spec, reports); !why.empty()) return why;
  return "";
}

// A vendor library's launcher (cuBLAS, cuFFT) checked on the lab's cases like a student's, for its
// arithmetic: the yardsticks' own tests. Its kernels are the library's, launched past
// workbook::launch(), and a plan may upload its tables on a stream of its own; so the three defences
// of the device trace, which judge where work came from and where it ran, are off while it runs, and
// only those. "" or why it fails.
template <typename Lab>
std::string check_vendor_cases(const typename Lab::Step& vendor) {
  struct TraceDefencesOff {
    std::set<Defence> before = session().disabled;
    TraceDefencesOff() {
      session().disabled.insert({Defence::kForeignWork, Defence::kOutsideTimer, Defence::kUnrecordedLaunch});
    }
    ~TraceDefencesOff() { session().disabled = before; }
  } off;
  return check_all_cases<Lab>(vendor);
}

// Where a step is measured: its bar's conditions first, then the lab's other ones.
template <typename Lab>
std::vector<typename Lab::Condition> conditions_of(const typename Lab::Step& step) {
  std::vector<typename Lab::Condition> all;
  for (const auto& requirement : step.bar)
    if (std::find(all.begin(), all.end(), requirement.at) == all.end()) all.push_back(requirement.at);
  for (const auto& condition : Lab::info_conditions(step))
    if (std::find(all.begin(), all.end(), condition) == all.end()) all.push_back(condition);
  return all;
}

template <typename Lab>
Measurement measure_at(const typename Lab::Step& step, const typename Lab::Condition& condition) {
  const std::unique_ptr<Timed<typename Lab::Problem>> timed = Lab::timed(condition);
  give_workspace(step, timed->problem, timed->arrays);
  return measure(step.launcher, *timed, Lab::reference());
}

template <typename Lab>
StepRow row_of(const typename Lab::Step& step, const typename Lab::Condition& condition, const Measurement& m) {
  StepRow row;
  row.lab = Lab::kName;
  row.step = step.name();
  row.measured_at = Lab::describe(step, condition);
  row.verdict = Verdict::kInfo;
  row.time_ms = m.candidate_ms;
  row.rate = m.rate();
  row.rate_unit = m.rate_unit();
  row.percent_of_peak = m.percent_of_reference();
  row.reference = m.reference.name;
  row.speedup = m.speedup();
  if (m.resources) {
    row.occupancy_percent = 100.0 * m.resources->occupancy;
    row.registers = m.resources->registers_per_thread;
    row.shared_bytes = static_cast<int>(m.resources->static_shared_bytes + m.resources->dynamic_shared_bytes);
    row.local_bytes = static_cast<int>(m.resources->local_bytes_per_thread);
  }
  // A lab's own fact about the launch it measured (lab 05: shared memory per transform).
  if constexpr (requires { Lab::launch_note(step, m); }) row.measured_at += Lab::launch_note(step, m);
  return row;
}

// "" when `step` can run on the GPU being graded (Session::compute_capability), else why not.
template <typename Step>
std::string not_applicable_reason(const Step& step) {
  const int have = session().compute_capability;
  if (step.min_compute_capability <= have) return "";
  std::ostringstream why;
  why << "needs compute capability " << step.min_compute_capability / 10 << '.' << step.min_compute_capability % 10
      << " or newer; this GPU is graded as " << have / 10 << '.' << have % 10 << ": not applicable here, neither passed nor failed";
  return why.str();
}

// Grades the step `id` of `Lab`: one doctest test case per step, one process per test case.
template <typename Lab>
void grade_step(const char* id) {
  const auto& steps = Lab::steps();
  const auto found = std::find_if(steps.begin(), steps.end(), [&](const auto& s) { return std::string(s.id) == id; });
  REQUIRE_MESSAGE(found != steps.end(), "no step ", id, " in ", Lab::kName);
  const typename Lab::Step& step = *found;

  StepRow failed;
  failed.lab = Lab::kName;
  failed.step = step.name();
  failed.measured_at = "correctness";
  failed.verdict = Verdict::kFail;
  failed.bar = describe_bar<Lab>(step);
  if (std::string why = not_applicable_reason(step); !why.empty()) {
    StepRow skipped = failed;
    skipped.measured_at = "architecture";
    skipped.verdict = Verdict::kNotApplicable;
    skipped.reason = why;
    record(skipped);
    ++session().not_applicable_steps;
    const std::string note = std::string(step.id) + " " + why;  // a bare const char* prints as its address
    MESSAGE(note);
    return;
  }
  if (session().device_trace && !session().device_trace_failure.empty()) {
    failed.reason = "the device trace could not start: " + session().device_trace_failure +
                    ". Grading needs it to see what ran on the GPU; ./workbook grade --no-device-trace grades without "
                    "it, and its report then says so";
    record(failed);
    FAIL_CHECK(failed.reason);
    return;
  }
  REQUIRE_MESSAGE((step.launcher != nullptr || step.measurement != nullptr), step.id,
                  " has no launcher: only a measurement step may be graded by its cases alone");
  std::vector<std::pair<std::string, Reported>> reports;
  const auto correctness_began = std::chrono::steady_clock::now();
  failed.reason = failure_of([&] { return check_all_cases<Lab>(step, &reports); });
  log_phase_seconds(step.id, "correctness", correctness_began);
  if (!failed.reason.empty()) {
    record(failed);
    FAIL_CHECK(failed.reason);
    return;
  }
  if (step.measurement != nullptr) {  // graded by its cases: one row for what each measured
    for (const auto& [where, reported] : reports) {
      StepRow row = failed;
      row.measured_at = where;
      row.verdict = Verdict::kPass;
      row.rate = reported.value;
      row.rate_unit = reported.unit;
      row.reason = reported.text;
      record(row);
    }
    return;
  }
  if (session().correctness_only) {
    StepRow passed = failed;
    passed.measured_at = "correctness only";
    passed.verdict = Verdict::kPass;
    passed.reason = "correct on every shape checked; nothing timed";
    record(passed);
    return;
  }

  std::string verdict;
  std::vector<StepRow> rows;
  const std::string error = failure_of([&] {
    for (const auto& condition : conditions_of<Lab>(step)) {
      const auto timing_began = std::chrono::steady_clock::now();
      const Measurement m = measure_at<Lab>(step, condition);
      log_phase_seconds(step.id, "timed at " + Lab::describe(step, condition), timing_began);
      StepRow row = row_of<Lab>(step, condition, m);
      // Every row must be possible and correct, judged or not; the bar's rows must also clear it.
      std::string why = m.failure;
      bool judged = !why.empty();
      for (std::size_t r = 0; r < step.bar.size(); ++r)
        if (const auto requirement = graded_requirement(step, r); requirement.at == condition) {
          judged = true;
          if (why.empty()) why = requirement_failure<Lab>(step, requirement, m);
        }
      if (judged) {
        row.verdict = why.empty() ? Verdict::kPass : Verdict::kFail;
        row.bar = failed.bar;
        row.reason = why.empty() && step.experiment != nullptr ? "an experiment: see the handout" : why;
        if (verdict.empty()) verdict = why;
      }
      rows.push_back(row);
    }
    return std::string();
  });
  if (!error.empty()) {
    failed.measured_at = "timing";
    failed.reason = error;
    rows.push_back(failed);
    verdict = error;
  }
  for (const StepRow& row : rows) record(row);
  CHECK_MESSAGE(verdict.empty(), verdict);
}

// What `./workbook list` prints for a lab: "id<TAB>title<TAB>bar" per step (no GPU needed).
template <typename Lab>
void list_steps() {
  for (const auto& step : Lab::steps()) {
    std::cout << step.id << '\t' << step.title << '\t' << describe_bar<Lab>(step);
    if (step.min_compute_capability > 0)
      std::cout << " [compute capability " << step.min_compute_capability / 10 << '.' << step.min_compute_capability % 10
                << " and newer]";
    std::cout << '\n';
  }
}

// Run on the reference solution only: each bar must reject the previous step's solution, or the
// step teaches nothing the grader can see. An experiment step is exempt, and the step after it
// must then reject the solutions of both steps before it. A measurement step is no rung: it has no
// speed bar, and the first rung after it is measured against the baseline only.
template <typename Lab>
void check_bars_discriminate() {
  const auto& steps = Lab::steps();
  REQUIRE_FALSE(steps.empty());
  // A step this GPU cannot run is no rung here: it is neither checked nor measured.
  const auto is_rung = [](const typename Lab::Step& s) { return s.measurement == nullptr && not_applicable_reason(s).empty(); };
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const typename Lab::Step& step = steps[k];
    if (std::string why = not_applicable_reason(step); !why.empty()) {
      MESSAGE(step.id, " ", why);
      continue;
    }
    if (!is_rung(step)) {
      MESSAGE(step.id, " is a measurement, not a rung: its cases are its bar");
      continue;
    }
    // The first rung of a ladder demands more than the baseline. A lab with two ladders (lab 06:
    // sums, then scans) says where the second starts.
    bool first_rung = std::none_of(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(k), is_rung);
    if constexpr (requires { Lab::starts_ladder(step); }) first_rung = first_rung || Lab::starts_ladder(step);
    if (first_rung) {
      for (std::size_t r = 0; r < step.bar.size(); ++r)
        CHECK_MESSAGE(graded_requirement(step, r).min_speedup > 1.0, step.id,
                      " starts a ladder: its bar must demand more than the baseline");
      continue;
    }
    if (step.experiment != nullptr) {
      MESSAGE(step.id, " is an experiment, exempt: ", step.experiment);
      continue;
    }
    for (std::size_t earlier = k; earlier-- > 0;) {
      const typename Lab::Step& previous = steps[earlier];
      if (!is_rung(previous)) continue;
      std::string rejected;
      std::ostringstream measured;
      measured << std::fixed << std::setprecision(2);
      for (std::size_t r = 0; r < step.bar.size(); ++r) {
        const auto requirement = graded_requirement(step, r);
        const Measurement m = measure_at<Lab>(previous, requirement.at);
        measured << m.speedup() << "x, " << m.percent_of_reference() << "% of " << m.reference.name << " at "
                 << Lab::describe(previous, requirement.at) << "; ";
        if (rejected.empty()) rejected = requirement_failure<Lab>(previous, requirement, m);
      }
      INFO(previous.id, " measured: ", measured.str());
      CHECK_MESSAGE(!rejected.empty(), "bar ", step.id, " (", describe_bar<Lab>(step), ") does not discriminate: the solution of ",
                    previous.id, " clears it");
      if (previous.experiment == nullptr) break;  // past an experiment step, check the one before it too
    }
  }
}

// The margin calibrated bars keep below what the reference solution measured on this GPU: the
// spread of repeated runs on an H100 (each lab's NOTES.md) is 1 to 3%.
inline constexpr double kCalibrationMargin = 0.05;

// `./workbook calibrate` for one lab: each rung measured on this GPU at its bar's conditions, and
// the rung before it (and past an experiment, the one before that) at the same conditions, as
// check_bars_discriminate() measures them. A bar becomes what the solution measured less
// kCalibrationMargin, in the measures the built-in bar uses (speedup, % of the reference); where
// that lets the previous solution through, the measure with the wider gap is set midway between the
// two solutions instead. Appends "STEP INDEX MIN_SPEEDUP MIN_PERCENT  # what was measured" lines to
// `profile_path`; a step that cannot be told from the one before on this GPU is said so, in the file
// and on the console (its bars test will fail there).
template <typename Lab>
void calibrate(const std::string& profile_path) {
  std::ofstream out(profile_path, std::ios::app);
  if (!out) throw std::runtime_error("cannot write " + profile_path);
  out << "# " << Lab::kName << '\n';
  const auto& steps = Lab::steps();
  const auto is_rung = [](const typename Lab::Step& s) { return s.measurement == nullptr && not_applicable_reason(s).empty(); };
  const auto fixed2 = [](double value) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(2) << value;
    return text.str();
  };
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const typename Lab::Step& step = steps[k];
    if (std::string why = not_applicable_reason(step); !why.empty()) {  // its built-in bars stay
      out << "# " << step.id << ": " << why << '\n';
      std::cout << "[workbook] " << step.name() << ": " << why << '\n';
      continue;
    }
    if (!is_rung(step)) continue;
    bool first_rung = std::none_of(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(k), is_rung);
    if constexpr (requires { Lab::starts_ladder(step); }) first_rung = first_rung || Lab::starts_ladder(step);
    // The solutions this step's bar must reject.
    std::vector<const typename Lab::Step*> previous;
    if (!first_rung && step.experiment == nullptr)
      for (std::size_t earlier = k; earlier-- > 0;) {
        if (!is_rung(steps[earlier])) continue;
        previous.push_back(&steps[earlier]);
        if (steps[earlier].experiment == nullptr) break;
      }
    std::vector<Requirement<typename Lab::Condition>> bars = step.bar;
    std::vector<Measurement> own;
    std::string note;
    for (std::size_t r = 0; r < bars.size(); ++r) {
      own.push_back(measure_at<Lab>(step, bars[r].at));
      const Measurement& m = own.back();
      if (!m.failure.empty()) {
        note = "the solution fails here (" + m.failure + "): the built-in bars are kept";
        bars = step.bar;
        break;
      }
      if (bars[r].min_speedup > 0) bars[r].min_speedup = std::max(m.speedup() * (1 - kCalibrationMargin), first_rung ? 1.05 : 0.0);
      if (bars[r].min_percent_of_reference > 0) bars[r].min_percent_of_reference = m.percent_of_reference() * (1 - kCalibrationMargin);
    }
    if (note.empty())
      for (const typename Lab::Step* before : previous) {
        std::vector<Measurement> theirs;
        bool rejected = false;
        for (std::size_t r = 0; r < bars.size(); ++r) {
          theirs.push_back(measure_at<Lab>(*before, bars[r].at));
          rejected = rejected || !requirement_failure<Lab>(*before, bars[r], theirs[r]).empty();
        }
        if (rejected) continue;
        // The measure in which the two solutions differ most, relatively: its bar goes midway.
        double widest = 0;
        std::size_t widest_r = 0;
        bool in_speedup = true;
        for (std::size_t r = 0; r < bars.size(); ++r) {
          const double speedup_gap = bars[r].min_speedup > 0 ? 1 - theirs[r].speedup() / own[r].speedup() : 0;
          const double percent_gap =
              bars[r].min_percent_of_reference > 0 ? 1 - theirs[r].percent_of_reference() / own[r].percent_of_reference() : 0;
          if (speedup_gap > widest) widest = speedup_gap, widest_r = r, in_speedup = true;
          if (percent_gap > widest) widest = percent_gap, widest_r = r, in_speedup = false;
        }
        if (!note.empty()) note += "; ";
        if (widest <= 0) {
          note += std::string("cannot be told from ") + before->id + " on this GPU";
          std::cout << "[workbook] warning: " << step.id << "'s solution is no faster than " << before->id
                    << "'s on this GPU: its bar cannot reject it\n";
          continue;
        }
        if (in_speedup) bars[widest_r].min_speedup = (own[widest_r].speedup() + theirs[widest_r].speedup()) / 2;
        else bars[widest_r].min_percent_of_reference = (own[widest_r].percent_of_reference() + theirs[widest_r].percent_of_reference()) / 2;
        note += std::string("set midway between this solution and ") + before->id + "'s";
      }
    for (std::size_t r = 0; r < bars.size(); ++r) {
      out << step.id << ' ' << r + 1 << ' ' << fixed2(bars[r].min_speedup) << ' ' << fixed2(bars[r].min_percent_of_reference)
          << "  # " << Lab::describe(step, bars[r].at);
      if (r < own.size() && own[r].failure.empty())
        out << ": measured " << fixed2(own[r].speedup()) << "x, " << fixed2(own[r].percent_of_reference()) << "% of "
            << own[r].reference.name;
      out << " (built in: " << fixed2(step.bar[r].min_speedup) << "x, " << fixed2(step.bar[r].min_percent_of_reference) << "%)";
      if (r == 0 && !note.empty()) out << "; " << note;
      out << '\n';
    }
    std::cout << "[workbook] " << step.name() << ": " << describe_bar<Lab>(step) << " -> calibrated";
    for (const auto& bar : bars) std::cout << ' ' << fixed2(bar.min_speedup) << "x/" << fixed2(bar.min_percent_of_reference) << '%';
    std::cout << (note.empty() ? "" : " (" + note + ")") << '\n';
  }
}

// What `./workbook list`, `./workbook calibrate` and the drawn sizes' line of `./workbook grade` need
// of a lab: its grader.cpp registers it once, `const bool kRegistered = workbook::register_lab<MyLab>();`.
// Every lab draws some of its correctness sizes from the seed (drawn_sizes.h) and says which:
// Lab::drawn_sizes().
template <typename Lab>
bool register_lab() {
  std::vector<StepName> names;
  for (const typename Lab::Step& step : Lab::steps()) names.push_back({step.id, step.title});
  return register_steps(Lab::kName, names, grade_step<Lab>) && register_listing(Lab::kName, list_steps<Lab>) && register_calibration(Lab::kName, calibrate<Lab>) &&
         register_drawn_sizes(Lab::kName, Lab::drawn_sizes);
}

}  // namespace workbook
