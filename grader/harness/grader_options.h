// The grader program's command line (grade_NN_topic_KIND, judge_NN_topic): one mode, and the flags
// of that mode. Every flag is written once, in grader_options.cpp's table, with the modes that take
// it and its line of --help; a flag given to a mode that does not take it is refused, saying which
// modes do, so that a flag is never silently ignored.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/defences.h"

namespace workbook {

// What the program was asked to do. The first six answer from what the lab registered, with no
// GPU; --plan-check needs no GPU but a judge's planner; the others measure on one.
enum class Mode {
  kDescribe,       // --describe: the lab, its topic, the file a student writes, its steps and more
  kListSteps,      // --list-steps: each step's id, title and bar
  kDrawnSizes,     // --drawn-sizes: the correctness sizes drawn from --seed
  kProfileReport,  // --profile-report=ID: a step's profile table from ncu's output
  kBenchColumns,   // --bench-columns: the benchmark CSV's columns
  kDoctestQuery,   // doctest's own queries (--list-test-cases, --help, ...)
  kPlanCheck,      // --plan-check: no GPU; each step's plans checked against the described GPU (plan_check.h)
  kGpuCheck,       // --gpu-check: 0 if a CUDA GPU can be used, 77 if not
  kGrade,          // no mode flag: grade the steps (doctest's test cases) the filters select
  kBench,          // --bench=CSV: the lab's benchmark sweep
  kCalibrate,      // --calibrate=FILE: bars for this GPU from the solution's steps
  kProfile,        // --profile=ID: a step's kernels once, for ncu
};

// --describe's answer, the runner's one question to a lab, is protocol/lab_facts.h's: written and
// read there alone.

// True for the modes that need no GPU.
bool answers_without_gpu(Mode mode);

// --profile-report's inputs.
struct ProfileReportOptions {
  std::string step, ncu_output, reference_output, recorded, heading = "yours";
  bool recorded_lines = false;
};

// What a grading must show to pass, for the proofs (a mutant, a starter, a boundary mutant): by
// default the steps' own verdicts decide.
struct Expectation {
  bool reject = false;  // --expect-reject: every test case fails, cleanly
  std::string reason;   // --expect-reason=TEXT: and every failure names TEXT
  bool honest = false;  // --expect-honest: every step graded as honest work
};

struct Options {
  Mode mode = Mode::kGrade;
  std::string mode_value;  // --bench's CSV, --calibrate's file, --profile's step

  // What draws a session's inputs (every mode that measures, and --drawn-sizes).
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::optional<std::uint64_t> data_key;  // --data-key=K: every step's inputs drawn from K

  // Whose kernels: a judge's student (--planner and --device-code), or the program's own.
  std::string planner;
  std::vector<std::string> device_code;
  // device_code's SASS dumps, one for each file ("" where --sass named none): what the build wrote.
  std::vector<std::string> device_code_sass;

  // How the steps are graded.
  std::string bars_path;  // --bars=FILE
  std::set<Defence> disabled;
  int as_compute_capability = 0;  // 0: the GPU's own
  bool correctness_only = false, exact_allocations = false;

  // A grading's: where its rows go, and what it must show.
  std::string rows_path;
  int rows_fd = -1;
  Expectation expect;

  ProfileReportOptions report;

  // What doctest is given (the program's name, the steps' filters, doctest's own options).
  std::vector<const char*> doctest_args;
  std::deque<std::string> step_filters;  // --step's filters, which doctest_args point into
};

// The command line read, or an invalid_argument that says what is wrong and what to write instead.
Options parse_options(int argc, char** argv);

// --help's text: the grader's flags, mode by mode (doctest's own follow it).
std::string grader_usage();

}  // namespace workbook
