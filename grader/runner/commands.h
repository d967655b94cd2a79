// The runner's commands, one file each: grade.cpp (one grading, and profile), classroom.cpp (a submission's
// intake, and a class), tools.cpp (list, bench, calibrate), inspect.cpp (a lab's kernels
// as compiled), handout.cpp (the student's copy), test_suite.cpp (setup, test). Each takes the user's words after
// `./workbook COMMAND` as they were typed, checks them, builds what it needs and runs it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runner/checkout.h"
#include "runner/reports.h"

namespace workbook::runner {

int grade(const Checkout& checkout, Words words);
// One step's kernels under Nsight Compute, and its lab's counters in a table (grade.cpp).
int profile(const Checkout& checkout, Words words);
int grade_class(const Checkout& checkout, Words words);
int list(const Checkout& checkout, Words words);
// A lab's kernels as the compiler made them: registers, spills, shared memory, SASS (inspect.cpp).
int inspect(const Checkout& checkout, Words words);
int bench(const Checkout& checkout, Words words);
int calibrate(const Checkout& checkout, Words words);
int handout(const Checkout& checkout, Words words);
// The whole build (setup), and the test suite over it with ctest, the user's words its arguments (test_suite.cpp).
int setup(const Checkout& checkout, Words words);
int test(const Checkout& checkout, Words words);

// The scorecard and the reports asked for, and under the scorecard which bars graded (`bars`, when
// given) and the `log` that has every column (when given); results.json says the `seed`, when
// given. Returns the exit code: 0 when every applicable step passed, 1 when one failed or a report
// could not be written.
int summarize(const std::vector<StepRow>& rows, const std::string& json, const std::string& junit,
              const std::string& points_path, bool quiet = false, const std::string& bars = "",
              const std::string& seed = "", const std::string& log = "");

// A submission taken in: unpacked into results/submissions/NAME, each lab's file in taken/.
struct Submission {
  std::string name;               // the student's, from the archive's or folder's name
  std::string results;            // results/submissions/NAME
  std::vector<std::string> labs;  // the labs whose file it holds
  // lab -> the instructor's solution file its file copies, as is or edited (instructor_copy.h): not
  // graded. Empty where WORKBOOK_GRADE_SOLUTION_COPIES=1 (the workbook's own tests, which grade the
  // reference solutions as students' files) or the checkout has no solutions/.
  std::map<std::string, std::string> copied;
};
// Unpacks `path` and takes its lab files; a usage error that says why when it cannot be taken.
// `name` and `results`, where given (grade-class's), are the student's name and where their
// submission's results go, instead of the name from the path and results/submissions/NAME.
Submission take_submission(const Checkout& checkout, const std::string& path, const std::string& name = "",
                           const std::string& results = "");

// The name a submission's results are kept under: its archive's or folder's name without the
// extension; nullopt when that gives no student (empty, hidden, or a name that would not print as
// itself: a control character, a C1 control, bytes that are not UTF-8; as_data.h).
std::optional<std::string> submission_name(const std::string& entry);

// The archive extension a submission's name ends with, in lower case (".zip", ".tgz", ".tar.gz",
// ".tar"), whatever its case; "" for none.
std::string archive_extension(const std::string& entry);

// The points file's steps: each an id of a lab's steps (as its handout and header number them),
// each named once. A mistake is a usage error with the file and line, before anything runs.
void check_points(const Checkout& checkout, const std::string& path);

// The usage error for --no-device-trace, which grade and grade-class took while linked graders ran
// the device trace: there is none any more, so the option can mean nothing.
inline constexpr const char* kNoDeviceTraceAnyMore =
    "--no-device-trace: there is no device trace any more (each step's judge replays only the graded file's own "
    "launches, on the stream it times: docs/integrity.md, part 1); leave the option out";

// The reason each step of a grading without a GPU fails with, when a report is asked for.
inline constexpr const char* kNoGpuReason = "not graded: no CUDA GPU is visible on this machine";
// A submitted lab file that is the instructor's solution: what the student reads (which file it
// copies, and how it was found, is the instructor's to know: results/.../copied.txt, grade.log).
inline constexpr const char* kNotTheStudentsWork =
    "not graded: this file cannot be graded as your work; ask your instructor why";

// The results.json of a submission that was not graded (refused, empty, its Slurm task ended
// first): every step of `labs` (none: every lab) a failed test that says why, so that every
// student's maximum is the same whatever became of their submission.
void write_not_graded_json(const Checkout& checkout, const std::vector<std::string>& labs,
                           const std::string& points_path, const std::string& seed, const std::string& path,
                           const std::string& why);

}  // namespace workbook::runner
