// A step's result rows: what a judge writes for each step it grades, and what the runner reads back
// to write every report. Steps run in processes of their own, apart from the runner (a lab's steps
// in one judge; one that crashes must not take the grading down), so rows cross between processes
// as lines of text, one writer (to_line) and one reader (from_line); and the scorecard, the one way
// rows are shown on a console, the judge's own and the runner's alike. Plain C++.
#pragma once

#include <compare>
#include <cstddef>
#include <iosfwd>
#include <limits>
#include <string>
#include <vector>

#include "protocol/exit_codes.h"

namespace workbook {

inline constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

// A judge grading several steps (a lab's, in one process) exits with this after a step whose kernel
// left the CUDA context unusable (exit_codes.h).
inline constexpr int kExitContextLost = exit_code::kContextLost;

// What a row says: PASS or FAIL on a row the bar judges, info on the others, n/a for a step that
// needs a newer GPU than this one (Step::min_compute_capability): neither passed nor failed.
enum class Verdict { kPass, kFail, kInfo, kNotApplicable };
const char* name_of(Verdict verdict);  // "PASS", "FAIL", "info", "n/a": as the scorecard shows it

// A step as its lab's steps table names it, whole from the grader that grades it to every report:
// its id and title are never glued into one string to be cut apart again.
struct LabStep {
  std::string lab;    // "02_memory"
  std::string id;     // "02.1"
  std::string title;  // "several floats per thread"
  // "02.1 several floats per thread", as shown; the id alone where there is no title (a lab that
  // could not be described stands for its steps as one).
  std::string name() const { return title.empty() ? id : id + " " + title; }
  auto operator<=>(const LabStep&) const = default;
};

struct StepRow {
  LabStep step;
  std::string measured_at;  // the condition of this row, e.g. "occupancy 6.25%"
  Verdict verdict = Verdict::kInfo;
  double time_ms = kNotMeasured;
  double rate = kNotMeasured;  // in rate_unit
  std::string rate_unit = "GB/s";
  double percent_of_peak = kNotMeasured;  // of `reference`, measured in the same run
  std::string reference;                  // what percent_of_peak is of: "cudaMemcpy", "cuBLAS"
  double speedup = kNotMeasured;          // over the lab's baseline, same inputs, same process
  double occupancy_percent = kNotMeasured;
  int registers = -1;
  int shared_bytes = -1;  // static + dynamic, per block
  int local_bytes = -1;   // per thread; more than 0 means spills or a local array
  std::string bar;        // "speedup >= 2.5x" or "" on rows that are not judged
  std::string reason;     // why the step failed, or a note
  // The integrity defence that rejected the step ("remembered-work", defences.h), "" when none did:
  // a step that failed only its bar was honest, and may earn partial credit.
  std::string defence;

  bool judged() const { return verdict == Verdict::kPass || verdict == Verdict::kFail; }
  bool not_applicable() const { return verdict == Verdict::kNotApplicable; }
};

// The defence a failure's reason names in its leading "[tag]", "" when it names none: how a row
// learns its `defence` where it is made.
std::string defence_named_in(const std::string& reason);

std::string to_line(const StepRow& row);                  // one line, tab-separated, no newline
StepRow from_line(const std::string& line);               // throws std::invalid_argument on a malformed line
std::vector<StepRow> read_rows(const std::string& path);  // missing file: no rows
void append_rows(const std::string& path, const std::vector<StepRow>& rows);
// The same, onto an open descriptor (--rows-fd: a file the runner opened, which the step does not own).
void append_rows(int fd, const std::vector<StepRow>& rows);

// A step passes when it has judged rows and all of them pass. A step with an "n/a" row is not
// applicable on this GPU: it neither passes nor fails, and is worth no points.
struct StepVerdict {
  LabStep step;
  bool passed = false;
  bool applicable = true;
  std::string summary;  // the bar and what was measured, or the first failure's reason
  // Correct on every shape checked, and honest (no defence tripped): only the bar was missed.
  bool correct = false;
  double percent_of_reference = kNotMeasured;  // at the bar's first condition, when it was timed
  std::string reference;
};
std::vector<StepVerdict> verdicts(const std::vector<StepRow>& rows);

// The scorecard. Full: every column, for a grader's own log. Compact: the columns a student reads
// first (the step's id, where it was measured, time, rate, % ref, speedup, occupancy, registers,
// result), within kScorecardColumns; the verdicts below the table say why a step failed.
enum class Table { kFull, kCompact };
inline constexpr std::size_t kScorecardColumns = 100;
void print_table(std::ostream& out, const std::vector<StepRow>& rows, Table table = Table::kFull);
// `value` with `digits` decimals, "-" when it was not measured: the one way reports write numbers.
std::string fixed(double value, int digits);

}  // namespace workbook
