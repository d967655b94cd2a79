// What a lab registers with the grader program (session.h's register_* functions, called by
// register_lab<Lab>() before main() runs), as the program's modes read it back; and the doctest
// listeners that count and hand over what a grading did. Part of the grader's main(), nothing else.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/profile.h"
#include "harness/session.h"

namespace workbook::registered {

// What the lab registered for each mode, by the lab's name (a grader holds one lab).
struct ProfileFunctions {
  CountersFunction counters = nullptr;
  ProfileFunction run = nullptr;
};
const std::map<std::string, BenchFunction>& benches();
const std::map<std::string, ListFunction>& listings();
const std::map<std::string, DrawnSizesFunction>& drawn_sizes();
const std::map<std::string, ProfileFunctions>& profiles();
const std::map<std::string, CalibrateFunction>& calibrations();
const std::map<std::string, PlanCheckFunction>& plan_checks();

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
