// One step's grading: its correctness cases, its measurement with every timed-call defence, its
// bar, its rows, and whether this GPU can run it. grade_step<Lab>("NN.k") is what a step's process
// runs (grader/judge/main.cpp, --step=NN.k).
#pragma once

#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <exception>
#include <initializer_list>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "harness/buffers.h"
#include "harness/defences.h"
#include "harness/drawn_sizes.h"
#include "harness/gpu_neighbours.h"
#include "harness/judged_code.h"
#include "harness/lab.h"
#include "harness/peaks.h"
#include "harness/resources.h"
#include "harness/session.h"
#include "harness/stats.h"
#include "harness/timing.h"
#include "protocol/as_data.h"
#include "protocol/rows.h"
#include "workbook/cuda.h"
#include "workbook/launch_log.h"

namespace workbook {

// [fresh-module]: before each call of a launcher, the student's GPU code as it was loaded
// (JudgedCode::reset_module()). Nothing where no judge grades: a linked grader grades our own code.
inline void reset_judged_module(cudaStream_t stream) {
  if (const JudgedCode* judged = session().judged) judged->reset_module(stream);
}

// ---------------------------------------------------------------------------------------------
// What the skeleton measures

// One launch of a call, and its GPU time when timed alone.
struct LaunchShare {
  KernelResources resources;
  double ms = 0;
};

struct Measurement {
  double candidate_ms = 0, baseline_ms = 0, reference_ms = 0;
  double bytes = 0, flops = 0;
  Reference reference;
  // The call's launches, each with its resources and its GPU time alone (one call timed launch by
  // launch after the timed calls): a bar's occupancy is that of those that take its time.
  std::vector<LaunchShare> launches;
  std::optional<KernelResources>
      resources;         // of the launch that took the most time; none: nothing went through workbook::launch
  double occupancy = 0;  // of the launches that do the work (weigh_launches()), in [0, 1]
  std::string failure;   // what a defence found, tagged; "" when nothing

  double speedup() const { return baseline_ms / candidate_ms; }
  double percent_of_reference() const { return 100.0 * reference_ms / candidate_ms; }
  bool in_flops() const { return flops > 0; }
  double rate() const { return (in_flops() ? flops : bytes) / (candidate_ms * 1e6); }  // GFLOP/s or GB/s
  const char* rate_unit() const { return in_flops() ? "GFLOP/s" : "GB/s"; }
};

// Runs `body` (which returns "" or why the step fails) and turns whatever a student's launcher
// throws into the reason the step fails: an open TODO, a CUDA error, a refused shape. What was
// thrown is the student's text, which the reason carries to the console and every report: as data.
template <typename Body>
std::string failure_of(Body&& body) {
  try {
    return body();
  } catch (const NotImplemented& e) {
    return line_as_data(e.what());
  } catch (const CudaError& e) {
    return "CUDA error: " + line_as_data(e.what());
  } catch (const std::exception& e) {
    return "the launcher threw: " + line_as_data(e.what());
  }
}

// A CUDA error's failure (failure_of()'s "CUDA error: ...") with what it usually means and what to
// try next: `./workbook grade ID --sanitize`, which names the line at fault. Any other reason is
// returned as it is. A kernel's fault is reported by the next call that waits for the GPU, often
// the grader's own, so the file it names is rarely where the fault is (skeleton.cpp).
std::string with_cuda_advice(const std::string& reason, const std::string& step_id);

// "[workbook] 04.5: correctness: 2.31 s" in the step's log: where a grading's time goes.
inline void log_phase_seconds(const char* step_id, const std::string& phase,
                              std::chrono::steady_clock::time_point began) {
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  std::cout << "[workbook] " << step_id << ": " << phase << ": " << std::fixed << std::setprecision(2) << seconds
            << " s\n"
            << std::defaultfloat;
}

// [work-launches]: the kernel a step is about and the occupancy it ran at, from the launches of one
// call and each one's GPU time. A step may launch helpers beside its own kernel (lab 04 packs the
// operands before the product and adds split-k's partial sums after it): the kernel is the launch
// that took the most time, and the occupancy is the highest of the launches that do the work, the
// longest first until they take kWorkShare of the call's time. A launch that does little of the work
// (a helper, or a decoy holding many registers) does not set it; work split between launches at two
// occupancies is held to the higher. With the defence off (a proof's): the launch holding
// the most registers sets both.
inline constexpr double kWorkShare = 0.9;
void weigh_launches(std::vector<LaunchShare> launches, Measurement& m);
// "" when the launches that do `m`'s work ran at `limit` occupancy (a fraction) or less; else "the
// kernels ran at X% occupancy (...)", tagged [work-launches] where the launch holding the most
// registers alone would have been at the limit or under it.
std::string occupancy_above(const Measurement& m, double limit);

// The defences' verdicts, each "" or a tagged failure (skeleton.cpp).
// [block-order]: in a step whose blocks wait for other blocks, a kernel launched with more blocks
// than the GPU holds at once that reads blockIdx and can watch other blocks' writes (machine_code.h):
// one of its blocks may wait for a block that cannot start.
std::string block_order_violation(const std::vector<LaunchRecord>& launches);
// [stage-reuse]: on a GPU with a copy engine (compute capability 9.0), a kernel whose machine code can
// load into shared memory after a bulk store from it without waiting for the store to read it
// (machine_code.h): the next chunk may overwrite bytes the store has not yet sent.
std::string stage_reuse_violation(const std::vector<LaunchRecord>& launches);
// Both machine-code checks, over every kernel of one call: a correctness case's and a timed call's
// alike, so that no kernel is launched where its machine code is not read. `blocks_wait`: the step's
// blocks_wait_for_others.
inline std::string machine_code_violation(bool blocks_wait, const std::vector<LaunchRecord>& launches) {
  if (blocks_wait && defence_enabled(Defence::kBlockOrder))
    if (std::string why = block_order_violation(launches); !why.empty()) return why;
  if (defence_enabled(Defence::kStageReuse)) return stage_reuse_violation(launches);
  return "";
}
// [remembered-work] / [input-changed]: the first timed call whose device check found something.
// `every_call`: each call had fresh inputs and was checked; otherwise only the last one was.
std::string first_failed_call(const std::vector<DeviceMismatches>& outputs, const std::vector<DeviceMismatches>& inputs,
                              int calls, bool every_call);
// Whether the case's device check (Case::check_on_device), where it has one, finds nothing wrong.
template <typename Problem>
bool passes_on_device(const Case<Problem>& c, cudaStream_t stream) {
  if (!c.check_on_device) return false;
  RunChecks check(1);
  c.check_on_device(stream, check.slot(0));
  return check.download().front().count == 0;
}
// [ceiling]: a measurement faster than the reference (when it is a ceiling) or the device's peaks.
std::string above_ceiling(const Measurement& m);
// How close the candidate and the reference came to the device's limits, for the log: "share of
// the device's limits: candidate 80.1% of memory, ...; cuFFT 79.9% of memory, ..." ("" when the
// step counts neither bytes nor flops). scripts/ceiling_margins.py reads these lines.
std::string share_of_limits(const Measurement& m);

// ---------------------------------------------------------------------------------------------
// The flow

// Each launch's share of a call: its resources, and its median time over the calls from
// `first_call` on.
inline std::vector<LaunchShare> launch_shares(const std::vector<LaunchRecord>& launches,
                                              const std::vector<std::vector<double>>& launch_ms,
                                              std::size_t first_call) {
  std::vector<LaunchShare> shares;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    std::vector<double> each;
    for (std::size_t c = first_call; c < launch_ms.size(); ++c)
      if (i < launch_ms[c].size()) each.push_back(launch_ms[c][i]);
    shares.push_back({resources_of(launches[i]), each.empty() ? 0.0 : median(each)});
  }
  return shares;
}

// The first of `verdicts` that says something, "" where none does.
inline std::string first_nonempty(std::initializer_list<std::string> verdicts) {
  for (const std::string& verdict : verdicts)
    if (!verdict.empty()) return verdict;
  return std::string();
}

// The baseline, the candidate and the reference timed interleaved, their timings in that order, and
// where the timed part of the step's seconds went, in the log. The baseline, where this process has
// timed it at this shape already, is not timed again: the grader's own kernel, whose median moved
// 0.07% over a lab's steps (docs/timing.md). The candidate and the reference are always timed.
template <typename Problem>
std::vector<Timing> time_with_baseline_and_reference(const TimedWork& candidate, const Timed<Problem>& timed,
                                                     const Reference& reference, cudaStream_t stream) {
  std::map<std::string, Timing>& known = session().measured_baselines;
  const auto earlier = timed.baseline_key.empty() ? known.end() : known.find(timed.baseline_key);
  const bool baseline_timed_before = earlier != known.end();
  std::vector<TimedWork> works = {candidate, {timed.reference, {}, {}}};
  if (!baseline_timed_before) works.insert(works.begin(), {timed.baseline, {}, {}});
  std::vector<Timing> timings = time_interleaved(works, stream, timed.timing);
  if (baseline_timed_before) {
    timings.insert(timings.begin(), earlier->second);
    std::cout << "[workbook] the baseline (" << timed.baseline_key
              << ") as this process timed it at an earlier step: " << std::setprecision(4) << earlier->second.median_ms
              << " ms\n";
  } else if (!timed.baseline_key.empty()) {
    known.emplace(timed.baseline_key, timings.front());
  }
  std::cout << std::setprecision(4) << "[workbook] median ms (calls, timed samples): baseline " << timings[0].median_ms
            << " (" << timings[0].calls << ", " << timings[0].runs << "), candidate " << timings[1].median_ms << " ("
            << timings[1].calls << ", " << timings[1].runs << "), " << reference.name << ' ' << timings[2].median_ms
            << " (" << timings[2].calls << ", " << timings[2].runs << ")\n";
  // Where the timed part of the step's seconds went, work by work: a slow baseline is most of a
  // step (lab 04's naive SGEMM, 4 calls of about 0.3 s at 4096^3), which a student waiting for one
  // step's verdict sees here. Each work's calls, warm-up included, at its median.
  std::ostringstream spent;
  spent << std::fixed << std::setprecision(2) << "[workbook] the timed calls, about (median x calls): baseline "
        << (baseline_timed_before ? 0.0 : timings[0].median_ms * timings[0].calls / 1000) << " s, candidate "
        << timings[1].median_ms * timings[1].calls / 1000 << " s, " << reference.name << ' '
        << timings[2].median_ms * timings[2].calls / 1000 << " s\n";
  std::cout << spent.str();
  // A gate that gave up timed some host time too (timing.h): rare, and worth a line in the log.
  for (std::size_t w = baseline_timed_before ? 1 : 0; w < timings.size(); ++w)
    if (timings[w].waits > 0)
      std::cout << "[workbook] " << timings[w].waits << " timed calls of the "
                << (w == 0   ? "baseline"
                    : w == 1 ? "candidate"
                             : reference.name)
                << " kept the host 50 ms or more before their work was queued: their times include it\n";
  return timings;
}

// Times `launcher` on `timed` against its baseline and reference, with every timed-call defence.
template <typename Problem>
Measurement measure(void (*launcher)(const Problem&, cudaStream_t), Timed<Problem>& timed, const Reference& reference,
                    bool blocks_wait_for_others) {
  const cudaStream_t stream = session().stream;
  Measurement m;
  m.bytes = timed.bytes;
  m.flops = timed.flops;
  m.reference = reference;
  const auto call = [&](cudaStream_t s) { launcher(timed.problem, s); };

  // The candidate's calls: each records its launches (the step's kernel, for its resources) and times
  // each of them alone (an event between each two launches, the call's own before the first and after
  // the last: what the call's time is spent on, [work-launches]); before each, fresh inputs and poisoned outputs; after
  // each, its output and its inputs checked on the device. Every call alike, warm-up included: no call is timed,
  // flushed or prepared differently from another, so no kernel can tell the one whose launches set the occupancy from
  // the ones that set the time.
  const bool fresh = defence_enabled(Defence::kRememberedWork);
  // Off only in a proof: then one more call, after the timed ones and with no flush, is the one
  // timed launch by launch, as the grader once did, so that a kernel can tell it from the others.
  const bool calls_alike = defence_enabled(Defence::kCallsAlike);
  const int capacity = timed.timing.warmup_runs + timed.timing.max_runs + (calls_alike ? 0 : 1);
  RunChecks output_checks(capacity), input_checks(capacity);
  std::vector<LaunchRecord> launches;
  std::vector<std::vector<double>> launch_ms;  // per call, each launch's time
  TimedWork candidate;
  candidate.run = [&](cudaStream_t s) {
    clear_recorded_launches();
    call(s);
    launches = recorded_launches();
  };
  const LaunchTimes keep_launch_times = [&](int, std::vector<double> each) { launch_ms.push_back(std::move(each)); };
  if (calls_alike) candidate.launch_times = keep_launch_times;
  candidate.before = [&](cudaStream_t s, int) {
    if (fresh) {
      // The grader's scratch first (the baseline's and the reference's results: nothing a kernel
      // could copy), then the call's own arrays, so that those are the freshest in L2, as a
      // program's own inputs are when it has just written them.
      timed.arrays.poison_scratch(s);
      timed.arrays.redraw_inputs(s);
      timed.arrays.poison_outputs(s);
    }
    if (defence_enabled(Defence::kFreshModule)) reset_judged_module(s);
  };
  candidate.after = [&](cudaStream_t s, int index) {
    // Without [remembered-work] (a proof's), the same inputs every call, checked in one slot.
    const int slot = fresh ? index : 0;
    timed.check_output(s, output_checks.slot(slot));
    timed.arrays.count_changed_inputs(input_checks.slot(slot), s);
  };
  // A judge (judge.h) asks for the call's plan now and ends the student's planner: none of their
  // host code runs while anything is timed.
  if (JudgedCode* judged = session().judged) judged->plan_ahead([&] { call(stream); });
  // And the GPU is checked to be the judge's alone: no process of the grading's holds a context on it.
  check_gpu_not_shared();
  std::vector<Timing> timings = time_with_baseline_and_reference(candidate, timed, reference, stream);
  if (!calls_alike) {
    candidate.launch_times = keep_launch_times;
    time_unflushed_call_by_launch(candidate, timings[1].calls, stream);
  }
  m.baseline_ms = timings[0].median_ms;
  m.candidate_ms = timings[1].median_ms;
  m.reference_ms = timings[2].median_ms;
  // Each launch's share: its median over the timed calls (the warm-up's left out, as for the call's
  // time). Asked once, after the timed runs: the queries cost host time that must not sit between events.
  weigh_launches(launch_shares(launches, launch_ms, calls_alike ? static_cast<std::size_t>(timings[1].warmups) : 0), m);
  const int last_call = fresh ? timings[1].calls - (calls_alike ? 1 : 0) : 0;
  std::string guards = defence_enabled(Defence::kGuard) ? timed.arrays.guard_violations() : "";
  if (!guards.empty()) guards = tagged(Defence::kGuard, guards);
  m.failure = first_nonempty({
      first_failed_call(output_checks.download(), input_checks.download(), last_call + 1, fresh),
      guards,
      machine_code_violation(blocks_wait_for_others, launches),
      m.resources ? ""
                  : "the launcher made no launch through workbook::launch(): launch every kernel with it, so that "
                    "the grader can see its registers, shared memory and occupancy",
      defence_enabled(Defence::kCeiling) ? above_ceiling(m) : "",
  });
  if (const std::string shares = share_of_limits(m); !shares.empty()) std::cout << "[workbook] " << shares << '\n';
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
    why << "speedup " << m.speedup() << "x over the baseline at " << at << ", the bar is " << requirement.min_speedup
        << "x";
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
  // Where a case's time goes, in grade.log, for a case that takes a while: its arrays made, the
  // call, the output checked, and the rest (the other checks, the arrays freed). Declared first, so
  // that it reports after the case's arrays are freed.
  struct CaseClock {
    using Clock = std::chrono::steady_clock;
    const char* step_id;
    std::string where;
    Clock::time_point began = Clock::now(), made{}, called{}, checked{}, audited{};
    ~CaseClock() {
      const auto seconds = [](Clock::time_point from, Clock::time_point to) {
        return to == Clock::time_point{} || from == Clock::time_point{}
                   ? 0.0
                   : std::chrono::duration<double>(to - from).count();
      };
      const Clock::time_point ended = Clock::now();
      if (seconds(began, ended) < 0.05) return;
      std::cout << "[workbook] " << step_id << ": case " << where << ": " << std::fixed << std::setprecision(2)
                << seconds(began, ended) << " s (arrays " << seconds(began, made) << ", call " << seconds(made, called)
                << ", output check " << seconds(called, checked) << ", guards, inputs and launches "
                << seconds(checked, audited) << ", arrays freed " << seconds(audited, ended) << ")\n"
                << std::defaultfloat;
    }
  } clock{step.id, ""};
  const std::unique_ptr<Case<typename Lab::Problem>> c = Lab::make_case(spec);
  give_workspace(step, c->problem, c->arrays);
  clock.where = c->where;
  clock.made = CaseClock::Clock::now();
  clear_recorded_launches();
  const std::string where = c->where + ": ";
  try {
    if (defence_enabled(Defence::kFreshModule)) reset_judged_module(stream);
    if (step.launcher != nullptr)
      c->launcher_ms = time_one_call_ms([&](cudaStream_t s) { step.launcher(c->problem, s); }, stream);
    clock.called = CaseClock::Clock::now();
    std::string why = passes_on_device(*c, stream) ? "" : c->check_output();
    clock.checked = CaseClock::Clock::now();
    if (!why.empty()) {
      // Judged, a launcher whose plan launched nothing left the output as the grader poisoned it.
      if (const JudgedCode* judged = session().judged;
          judged != nullptr && step.launcher != nullptr && judged->last_call_launched_nothing())
        why +=
            " (the launcher launched no kernel through workbook::launch: a kernel launched any other way, "
            "<<<...>>> included, never runs where the grader checks it. Launch every kernel with "
            "workbook::launch(kernel, grid, block, dynamic_shared_bytes, stream, args...) on the given stream)";
      return where + why;
    }
  } catch (const CudaError& error) {  // which call it was: the correctness case, at its shape
    throw CudaError(error.code(), "in the correctness case " + where + error.what());
  }
  if (std::string why = c->arrays.guard_violations(); !why.empty() && defence_enabled(Defence::kGuard))
    return where + tagged(Defence::kGuard, why);
  if (std::string why = c->arrays.changed_inputs(stream); !why.empty() && defence_enabled(Defence::kInputChanged))
    return where + tagged(Defence::kInputChanged, why);
  if (std::string why = machine_code_violation(step.blocks_wait_for_others, recorded_launches()); !why.empty())
    return where + why;
  if (reports != nullptr && c->report) reports->emplace_back(c->where, c->report());
  clock.audited = CaseClock::Clock::now();
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
  return measure(step.launcher, *timed, Lab::reference(), step.blocks_wait_for_others);
}

template <typename Lab>
StepRow row_of(const typename Lab::Step& step, const typename Lab::Condition& condition, const Measurement& m) {
  StepRow row;
  row.step = {Lab::kName, step.id, step.title};
  row.measured_at = Lab::describe(step, condition);
  row.verdict = Verdict::kInfo;
  row.time_ms = m.candidate_ms;
  row.rate = m.rate();
  row.rate_unit = m.rate_unit();
  row.percent_of_peak = m.percent_of_reference();
  row.reference = m.reference.name;
  row.speedup = m.speedup();
  if (m.resources) {
    row.occupancy_percent = 100.0 * m.occupancy;
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
      << " or newer; this GPU is graded as " << have / 10 << '.' << have % 10
      << ": not applicable here, neither passed nor failed";
  return why.str();
}

// The step `id` of `Lab`'s table, or nullptr.
template <typename Lab>
const typename Lab::Step* find_step(const std::string& id) {
  const auto& steps = Lab::steps();
  const auto found = std::find_if(steps.begin(), steps.end(), [&](const auto& s) { return std::string(s.id) == id; });
  return found == steps.end() ? nullptr : &*found;
}

// A step not applicable on this GPU, or graded on a machine the judge refused: its one row,
// recorded. True where that settles the step.
template <typename Lab>
bool settled_without_grading(const typename Lab::Step& step, StepRow failed) {
  if (std::string why = not_applicable_reason(step); !why.empty()) {
    failed.measured_at = "architecture";
    failed.verdict = Verdict::kNotApplicable;
    failed.reason = why;
    record(failed);
    ++session().not_applicable_steps;
    const std::string note = std::string(step.id) + " " + why;  // a bare const char* prints as its address
    MESSAGE(note);
    return true;
  }
  if (!session().machine_refusal.empty()) {
    failed.reason = session().machine_refusal;
    record(failed);
    FAIL_CHECK(failed.reason);
    return true;
  }
  return false;
}

// Each condition `step` is timed at, a row each in `rows`; returns the first judged row's failure
// ("" where every judged row passed). Every measurement's arrays are made first, all of them: a
// judge asks for every plan before the first is timed, and ends the planner once, and a plan holds
// the addresses it was made for.
template <typename Lab>
std::string time_every_condition(const typename Lab::Step& step, const std::string& bar, std::vector<StepRow>& rows) {
  std::vector<std::unique_ptr<Timed<typename Lab::Problem>>> timed;
  const std::vector<typename Lab::Condition> conditions = conditions_of<Lab>(step);
  const auto arrays_began = std::chrono::steady_clock::now();
  for (const auto& condition : conditions) {
    timed.push_back(Lab::timed(condition));
    give_workspace(step, timed.back()->problem, timed.back()->arrays);
  }
  if (JudgedCode* judged = session().judged)
    judged->plan_ahead([&] {
      for (const auto& each : timed) step.launcher(each->problem, session().stream);
    });
  log_phase_seconds(step.id, "the timed measurements' arrays and plans", arrays_began);
  std::string verdict;
  for (std::size_t c = 0; c < conditions.size(); ++c) {
    const auto& condition = conditions[c];
    const auto timing_began = std::chrono::steady_clock::now();
    Measurement m;
    try {
      m = measure(step.launcher, *timed[c], Lab::reference(), step.blocks_wait_for_others);
    } catch (const CudaError& error) {  // which call it was: timed, where
      throw CudaError(error.code(), "while timed at " + Lab::describe(step, condition) + ": " + error.what());
    }
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
      row.bar = bar;
      row.reason = why.empty() && step.experiment != nullptr ? "an experiment: see the handout" : why;
      if (verdict.empty()) verdict = why;
    }
    rows.push_back(row);
  }
  return verdict;
}

// Grades the step `id` of `Lab`: one doctest test case per step, one process per test case.
template <typename Lab>
void grade_step(const char* id) {
  const typename Lab::Step* found = find_step<Lab>(id);
  REQUIRE_MESSAGE(found != nullptr, "no step ", id, " in ", Lab::kName);
  const typename Lab::Step& step = *found;
  // [secret-inputs]: a key of the step's own, named in the log once the step is over (and of no use
  // then: the next step draws another), so that a failure can be replayed.
  session().start_drawing_for_a_step();
  struct KeyNamedAfterwards {
    const char* step_id;
    ~KeyNamedAfterwards() {
      if (session().disabled.contains(Defence::kSecretInputs)) return;
      std::cout << "[workbook] " << step_id << ": its inputs were drawn from the key " << session().data_key
                << " (./workbook grade " << step_id << " --seed " << session().seed << " --data-key "
                << session().data_key << " draws them again)\n";
    }
  } key_named_afterwards{step.id};

  StepRow failed;
  failed.step = {Lab::kName, step.id, step.title};
  failed.measured_at = "correctness";
  failed.verdict = Verdict::kFail;
  failed.bar = describe_bar<Lab>(step);
  if (settled_without_grading<Lab>(step, failed)) return;
  REQUIRE_MESSAGE((step.launcher != nullptr || step.measurement != nullptr), step.id,
                  " has no launcher: only a measurement step may be graded by its cases alone");
  std::vector<std::pair<std::string, Reported>> reports;
  const auto correctness_began = std::chrono::steady_clock::now();
  failed.reason = with_cuda_advice(failure_of([&] { return check_all_cases<Lab>(step, &reports); }), step.id);
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
    verdict = time_every_condition<Lab>(step, failed.bar, rows);
    return std::string();
  });
  if (!error.empty()) {
    failed.measured_at = "timing";
    failed.reason = with_cuda_advice(error, step.id);
    rows.push_back(failed);
    verdict = failed.reason;
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
      std::cout << " [compute capability " << step.min_compute_capability / 10 << '.'
                << step.min_compute_capability % 10 << " and newer]";
    // An experiment's idea buys too little on this hardware for a bar on both sides (lab.h).
    if (step.experiment != nullptr) std::cout << " [an experiment: a floor]";
    std::cout << '\n';
  }
}

}  // namespace workbook
