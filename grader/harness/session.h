// State shared by all test cases in one grader process: the seed, the stream everything is graded
// on, the defences in force, the rows the test cases record, and the benchmarks labs registered.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/csv_table.h"
#include "harness/defences.h"
#include "harness/profile.h"
#include "harness/timing.h"
#include "protocol/bars_profile.h"
#include "protocol/plan_findings.h"
#include "protocol/rows.h"

namespace workbook {

class JudgedCode;  // judged_code.h

struct Session {
  std::uint64_t seed = 0;  // printed at start; --seed=N replays a run's drawn sizes
  // [secret-inputs]: the key every input value of a step is drawn from, drawn afresh for each step
  // from the operating system's random source and kept in this process alone (the judge, which no
  // process of the student's can read), so that no code of the student's can compute an input instead
  // of reading it. Named in the log after its step has ended; --data-key=K draws the same values again.
  std::uint64_t data_key = 0;
  bool data_key_given = false;
  std::uint64_t draws = 0;
  std::vector<StepRow> rows;  // recorded by this process's test cases, printed at the end
  // --correctness-only: check results on small shapes and time nothing. For runs under
  // compute-sanitizer, which makes every kernel a hundred times slower.
  bool correctness_only = false;
  // --exact-allocations: no guard regions around device arrays, so that compute-sanitizer's
  // memcheck sees an access one element past an array (inside a guard it would be legal memory).
  bool exact_allocations = false;
  // --plan-check: no GPU. Device arrays are addresses only (buffers.h), the device's facts are the
  // described GPU's (described_device.h), and each launcher's plans are checked, never replayed.
  bool without_gpu = false;
  std::set<Defence> disabled;  // --without=NAME, for the mutant tests' proofs only
  // Why this machine cannot be trusted to grade (resources.h's machine_refusal()): every step fails
  // with it. "" where it can.
  std::string machine_refusal;
  // The stream every launcher, baseline and reference is given: a non-blocking stream of the
  // grader's own, so that no work is ordered with it by accident (the legacy default stream
  // would wait for work on other streams).
  cudaStream_t stream = nullptr;
  // --bars=FILE: this GPU's bars profile (./workbook calibrate). Per step id, per requirement of its
  // bar (in order), the minimum speedup and % of the reference that replace the built-in (H100) ones.
  using CalibratedBar = workbook::CalibratedBar;  // bars_profile.h
  std::map<std::string, std::vector<CalibratedBar>> calibrated_bars;
  // The same profile's reference values (its "reference KEY VALUE" lines): what a measurement step
  // is compared with on this GPU in place of the lab's built-in H100 value (reference_values.h).
  std::map<std::string, double> reference_values;
  // The compute capability steps are graded for (90 for Hopper): the GPU's own, or lower with
  // --as-compute-capability=NN, which shows what an older GPU reports without one. A step that needs
  // more (Step::min_compute_capability) is reported not applicable, neither passed nor failed.
  int compute_capability = 0;
  int not_applicable_steps = 0;  // test cases of this process that were not applicable
  // The judge, as the grading code knows it (judged_code.h), given by main() when it judges; null
  // where the grader links the graded file itself.
  JudgedCode* judged = nullptr;
  // The baselines this process has timed, by their Timed::baseline_key: a lab whose steps time the
  // same baseline at the same shape times it at the first of them and reads it here after.
  std::map<std::string, Timing> measured_baselines;

  // A fresh seed for every array drawn, every call's its own, all derived from the step's data key
  // (from `seed` with [secret-inputs] off) through the generator (random.cuh): the same key and
  // step draw the same inputs again, and no array's values tell another's.
  std::uint64_t next_seed();
  // A step's key: --data-key's, or a fresh one; and the draws counted from the step's start.
  void start_drawing_for_a_step();
};

Session& session();
void record(const StepRow& row);

// `./workbook bench LAB` runs the lab's benchmark: the grader binary with --bench=CSV calls the
// function the lab registered, which writes its sweep to that CSV file, in the columns it
// registered with it: the one definition of the file's format. the lab's plot (grader/labs/NN_topic/plot.py) reads
// them by name, and a CPU test checks every column it reads against --bench-columns.
using BenchFunction = void (*)(const std::string& csv_path);
bool register_bench(const char* lab, BenchFunction function, std::vector<std::string> columns);
const std::vector<std::string>& bench_columns();  // the registered lab's

// A benchmark's CSV file (csv_table.h) with the registered columns.
class BenchCsv : public CsvTable {
 public:
  explicit BenchCsv(const std::string& path) : CsvTable(path, bench_columns()) {}
};

// The steps table is the one source of a lab's steps: register_lab<Lab>() (skeleton.h) hands each
// step's id and title here, and every step becomes a test case named "ID TITLE" that grades it
// with `grade`. `--step=ID` picks one; CTest discovers them from --list-test-cases.
using GradeFunction = void (*)(const char* step_id);
struct StepName {
  std::string id, title;
};
bool register_steps(const char* lab, const std::vector<StepName>& steps, GradeFunction grade);

// A test of a lab that grades no step: the test case "NN_topic TITLE", in the test suite
// "NN_topic SUITE". Such tests run on the reference solution's grader only (CTest discovers only
// the "NN.k" step test cases of every other grader).
using LabTest = void (*)();
bool register_lab_test(const char* lab, const std::string& suite, const std::string& title, LabTest test);
// The two tests of a lab's bars, generated from its steps table by register_lab<Lab>() (ladder.h):
// "NN_topic bars reject the previous step" and "NN_topic bars admit each step's witness", in the
// test suite "NN_topic bars".
bool register_ladder_tests(const char* lab, LabTest rejects_previous, LabTest admits_witnesses);

// `./workbook list` prints each lab's steps and bars: the grader binary with --list-steps calls the
// function the lab registered (workbook::list_steps<Lab>, in skeleton.h). No GPU needed.
using ListFunction = void (*)();
bool register_listing(const char* lab, ListFunction function);

// `./workbook grade` shows the correctness sizes each lab drew from the run's seed (drawn_sizes.h):
// the grader binary with --drawn-sizes --seed=N prints what the lab's function returns. No GPU needed.
using DrawnSizesFunction = std::string (*)();
bool register_drawn_sizes(const char* lab, DrawnSizesFunction function);

// `./workbook calibrate` measures the reference solution's steps on this GPU and derives bars for
// it: the grader binary with --calibrate=FILE calls the function the lab registered
// (workbook::calibrate<Lab>, in skeleton.h), which appends the lab's lines to FILE.
using CalibrateFunction = void (*)(const std::string& profile_path);
// Thrown by a calibration when a reference solution fails on this GPU (ladder.h): an error of the
// workbook (a solution, a defence or a ceiling is wrong here), never a reason to keep the built-in
// bars. The grader then exits with an error and the runner writes no profile.
struct CalibrationError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
bool register_calibration(const char* lab, CalibrateFunction function);

// `./workbook profile NN.k` (profile.h): the lab's counters, which the grader binary prints the
// metrics of in its --describe answer and reads ncu's output with --profile-report (no GPU); and
// `run`, which --profile=ID calls under ncu: the step's kernels once at its bar's shape, in the
// profiler's range (0: ran; 1: the step could not run, said why; 2: nothing to profile, said why).
using CountersFunction = std::vector<profile::Counter> (*)();
using ProfileFunction = int (*)(const std::string& step_id);
bool register_profile(const char* lab, CountersFunction counters, ProfileFunction run);

// `./workbook grade` on a machine without a GPU checks what it can of each step there: the grader
// binary with --plan-check calls the function the lab registered (workbook::check_plans<Lab>, in
// plan_check.h), which plans every step's launcher for its correctness cases against the described GPU
// and returns what it found: the steps whose plans a GPU's grading would refuse, with why.
struct PlanCheck {
  std::vector<PlanFinding> refusals;                  // each step a GPU's grading would fail, and why
  std::vector<std::string> not_started, needs_a_gpu;  // steps' ids
  int steps = 0, calls = 0;                           // the steps whose launchers were planned; the calls planned
};
using PlanCheckFunction = PlanCheck (*)();
bool register_plan_check(const char* lab, PlanCheckFunction function);

// A bars profile is read and written by bars_profile.h alone (read_bars_profile, bar_line, reference_line).

}  // namespace workbook
