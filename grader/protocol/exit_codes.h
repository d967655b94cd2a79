// Every exit status that crosses between the workbook's processes, in one place: what ./workbook
// (the runner) tells its caller, what a lab's judge (or linked grader) tells the runner, and what a
// planner tells its judge. Each process sets its own and reads the next one's, so a status is
// defined here once and named where it is used.
#pragma once

namespace workbook::exit_code {

// ./workbook, the runner, to whoever ran it (documented by `./workbook --help`).
inline constexpr int kFailed = 1;        // a step failed, or the command could not do its work
inline constexpr int kUsage = 2;         // the command line was wrong; the message says how
inline constexpr int kMissingTools = 3;  // a tool the command needs is not installed
inline constexpr int kNoGpu = 77;        // nothing to grade on (CTest's "skipped")

// A judge (judge_NN_topic) or a linked grader (grade_NN_topic_KIND), to the runner. 0 and 1 are
// doctest's own: every test case passed; some failed (a step's FAIL is a row, not a crash).
inline constexpr int kStepFailed = 1;
// After a step whose kernel left the CUDA context unusable, once that step's rows are written: the
// runner grades the steps after it in a new process, so that they are graded as they would be alone.
inline constexpr int kContextLost = 4;
// No GPU to grade on, or (for a run of steps that all need a newer GPU) nothing applicable on this
// one: CTest's "skipped"; the runner tells the two apart by the rows.
inline constexpr int kSkipped = 77;
// --calibrate: a reference solution failed on this GPU (ladder.h's CalibrationError).
inline constexpr int kCalibrationError = 3;

// A step's process as the runner sees it end (limited.sh, process.h): `timeout`'s status for a
// process over its wall time, and a process killed (SIGKILL, 128 + 9) over its CPU time or by the
// runner's own watch; and compute-sanitizer's status for "errors found" (the runner asks for it).
inline constexpr int kTimedOut = 124;
inline constexpr int kKilled = 137;
inline constexpr int kSanitizerFoundErrors = 86;

// A planner (plan_NN_topic_KIND) to the judge that started it, before it could plan anything.
inline constexpr int kPlannerNotConfined = 125;        // Landlock refused the rules on its writes
inline constexpr int kPlannerNotClosedToTheGpu = 126;  // the kernel refused its seccomp filter
inline constexpr int kPlannerNotStarted = 127;         // its descriptors could not be set, or exec failed

}  // namespace workbook::exit_code
