// What a lab registers with the grader program (session.h's register_* functions, called by
// register_lab<Lab>() before main() runs), as the program's modes read it back; and the doctest
// listeners that count and hand over what a grading did. Part of the grader's main(), nothing else.
#pragma once

#include <string>
#include <vector>

#include "harness/profile.h"
#include "harness/session.h"

namespace workbook::registered {

// What the program's lab registered (register_lab<Lab>() and register_bench(), before main() runs),
// one record: a grader holds one lab, and a second registering into the same program stops it
// before main(), naming both. A program that registered none (a test of the harness) has an empty
// name and no functions.
struct Lab {
  std::string name;             // "02_memory"
  std::vector<StepName> steps;  // the steps table's, in its order: each a test case of its own
  GradeFunction grade = nullptr;
  BenchFunction bench = nullptr;
  std::vector<std::string> bench_columns;  // the benchmark CSV's, in order
  ListFunction listing = nullptr;
  DrawnSizesFunction drawn_sizes = nullptr;
  CountersFunction counters = nullptr;
  ProfileFunction profile = nullptr;
  CalibrateFunction calibrate = nullptr;
  PlanCheckFunction plan_check = nullptr;
};
const Lab& lab();

// `--step=02.1,02.3` as doctest's filter of those steps' test cases, by their whole names; an
// invalid_argument that lists the steps for an id that is none of them.
std::string step_filter(const std::string& ids);
// How many test cases the command line's doctest arguments select, without running any.
unsigned selected_test_cases(std::vector<const char*> doctest_args);

// The test cases run and failed so far (--expect-reject counts them).
int test_cases_run();
int test_cases_failed();

// A judge hands each step's rows to the runner on descriptor `fd` (--rows-fd) as the step ends;
// hand_over_rows() writes any left at the end.
void hand_rows_over_on(int fd);
void hand_over_rows();

}  // namespace workbook::registered
