// A lab's vocabulary: what a lab declares to the skeleton (skeleton.h lists the struct of types
// and static functions a lab supplies): its steps and their bars, its reference, a correctness case,
// a timed measurement, and the workspace a step may ask for.
#pragma once

#include <cuda_runtime_api.h>

#include <concepts>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "harness/buffers.h"
#include "harness/timing.h"
#include "protocol/rows.h"

namespace workbook {

// One condition of a bar: where it is measured, and what the step must reach there (0: nothing).
template <typename Condition>
struct Requirement {
  Condition at;
  double min_speedup = 0;               // over the baseline, same inputs, same process
  double min_percent_of_reference = 0;  // of the lab's reference, timed in the same run
};

// The textbook form of a step's idea, against which its bar is set (ladder.h): a kernel that does
// what the handout describes and no more, with the plainest guards the lab's shapes need. The bar
// must admit it with a margin and still reject the previous step's solution. It would pass the
// step, so it is the instructor's (solutions/NN_topic/proofs/witness.cu), found by the step's id
// (witness_registry.h). A step whose bar is a vendor's number ("at memcpy speed") has no such kernel: its
// reference solution is its own witness, and `is_solution` says why.
struct Witness {
  const char* is_solution = nullptr;
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
  // What the bar must admit (above). Without is_solution, the step's witness is the one registered
  // for its id; none registered, the test "NN_topic bars admit each step's witness" fails for it.
  Witness witness{};

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
  // Where given, the device check the timed calls' outputs get (Timed::check_output), run first: a
  // case it finds nothing wrong in passes in milliseconds, and check_output (the host's oracle,
  // drawing the truth again: 1.35 s for a 2^28-int scan) judges only the others and says what is wrong.
  std::function<void(cudaStream_t, DeviceMismatches*)> check_on_device;
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
  GpuWork baseline;  // the lab's naive kernel, into a scratch output
  // Where not empty, what the baseline is and at which shape ("naive SGEMM 4096 x 4096 x 4096"): the
  // same key is the same work, timed once in a judge process, at the first step that asks
  // (docs/timing.md, "The baseline once").
  std::string baseline_key;
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

}  // namespace workbook
