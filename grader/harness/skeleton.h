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
//                                      the check of its output (oracle, tolerance). Without a GPU
//                                      (plan_check.h) make_case() runs too, its arrays addresses
//                                      only: what it asks of CUDA itself (a library's scratch size)
//                                      it asks only where workbook::addresses_only() is false
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
// clock, the launch audit, the ceilings, the bar, the rows, and the two tests of each bar: it admits
// the step's witness (the textbook form of its idea, solutions/NN_topic/proofs/witness.cu)
// and rejects the previous step's solution.
//
// The skeleton is three headers, by job: lab.h (a lab's vocabulary), grade_step.h (one step's
// grading) and ladder.h (the bars against each other: the two ladder tests and calibration); the
// defences' verdicts are skeleton.cpp. A lab's grader includes this one.
#pragma once

#include <string>
#include <vector>

#include "harness/drawn_sizes.h"
#include "harness/grade_step.h"
#include "harness/lab.h"
#include "harness/ladder.h"
#include "harness/plan_check.h"
#include "harness/profile_step.h"
#include "harness/session.h"

namespace workbook {

// What `./workbook list`, `./workbook calibrate` and the drawn sizes' line of `./workbook grade` need
// of a lab: its grader.cpp registers it once, `const bool kRegistered = workbook::register_lab<MyLab>();`.
// Every lab draws some of its correctness sizes from the seed (drawn_sizes.h) and says which:
// Lab::drawn_sizes(); and chooses the counters `./workbook profile` shows for its steps (profile.h):
// Lab::counters(), each with a line in the lab's words. Without a GPU, its steps' plans are checked
// (plan_check.h).
template <typename Lab>
bool register_lab() {
  std::vector<StepName> names;
  for (const typename Lab::Step& step : Lab::steps()) names.push_back({step.id, step.title});
  return register_steps(Lab::kName, names, grade_step<Lab>) && register_listing(Lab::kName, list_steps<Lab>) &&
         register_calibration(Lab::kName, calibrate<Lab>) && register_drawn_sizes(Lab::kName, Lab::drawn_sizes) &&
         register_ladder_tests(Lab::kName, check_bars_discriminate<Lab>, check_bars_admit_witnesses<Lab>) &&
         register_profile(Lab::kName, Lab::counters, profile_step<Lab>) &&
         register_plan_check(Lab::kName, check_plans<Lab>);
}

}  // namespace workbook
