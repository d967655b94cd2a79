// Result rows and what is made of them: the console table, Gradescope's results.json and JUnit.
// Steps run in processes of their own, apart from the runner (a lab's steps in one judge; one that
// crashes must not take the grading down), so rows travel between processes as lines of text in a
// file; the runner (grader/runner/) reads them back and writes every report. Plain C++.
#pragma once

#include <fstream>
#include <initializer_list>
#include <iosfwd>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "exit_codes.h"

namespace workbook {

inline constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

// A judge grading several steps (a lab's, in one process) exits with this after a step whose kernel
// left the CUDA context unusable (exit_codes.h).
inline constexpr int kExitContextLost = exit_code::kContextLost;

// What a row says: PASS or FAIL on a row the bar judges, info on the others, n/a for a step that
// needs a newer GPU than this one (Step::min_compute_capability): neither passed nor failed.
enum class Verdict { kPass, kFail, kInfo, kNotApplicable };
const char* name_of(Verdict verdict);  // "PASS", "FAIL", "info", "n/a": as the scorecard shows it

struct StepRow {
  std::string lab;          // "02_memory"
  std::string step;         // "02.1 several floats per thread"
  std::string measured_at;  // the condition of this row, e.g. "occupancy 6.25%"
  Verdict verdict = Verdict::kInfo;
  double time_ms = kNotMeasured;
  double rate = kNotMeasured;            // in rate_unit
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

std::string to_line(const StepRow& row);  // one line, tab-separated, no newline
StepRow from_line(const std::string& line);  // throws std::invalid_argument on a malformed line
std::vector<StepRow> read_rows(const std::string& path);  // missing file: no rows
void append_rows(const std::string& path, const std::vector<StepRow>& rows);
// The same, onto an open descriptor (--rows-fd: a file the runner opened, which the step does not own).
void append_rows(int fd, const std::vector<StepRow>& rows);

// A step passes when it has judged rows and all of them pass. A step with an "n/a" row is not
// applicable on this GPU: it neither passes nor fails, and is worth no points.
struct StepVerdict {
  std::string lab;
  std::string step;
  bool passed = false;
  bool applicable = true;
  std::string summary;  // the bar and what was measured, or the first failure's reason
  // Correct on every shape checked, and honest (no defence tripped): only the bar was missed.
  bool correct = false;
  double percent_of_reference = kNotMeasured;  // at the bar's first condition, when it was timed
  std::string reference;
};
std::vector<StepVerdict> verdicts(const std::vector<StepRow>& rows);

// The lines of an instructor's small config file (points, bars profiles): each with '#' and what
// follows it removed, blank ones skipped, paired with its line number for messages. Throws
// std::invalid_argument("cannot read the <what> <path>") when the file cannot be read.
std::vector<std::pair<int, std::string>> config_lines(const std::string& path, const std::string& what);

// What each step is worth, from an instructor's points file (docs/instructors.md): a line
// "STEP POINTS [IF_CORRECT]" per step, "*" for every step not named; IF_CORRECT (default 0) is the
// partial credit of a step that is correct but misses its bar. '#' starts a comment.
struct Points {
  struct Worth {
    double points = 1;
    double if_correct = 0;
  };
  Worth fallback;
  std::map<std::string, Worth> by_step;  // by step id, "04.10"
  std::map<std::string, int> line_of_step;  // where the file names each step, for messages
  Worth of(const std::string& step_name) const;  // "04.10 packed cp.async pipeline" -> its worth
  double score(const StepVerdict& v) const;
  double max_score(const StepVerdict& v) const;  // 0 for a step not applicable on this GPU
};
// Throws std::invalid_argument, with the file and line, on a malformed line or a step named twice.
Points read_points(const std::string& path);

// Every writer below writes each text it is given as data (as_data.h's line_as_data()): a row's
// reason or a student's name may be a student's text, and no path that makes them must be trusted
// to have escaped it. JSON stays JSON, CSV stays CSV, XML stays XML.

// The scorecard. Full: every column, for a grader's own log. Compact: the columns a student reads
// first (the step's id, where it was measured, time, rate, % ref, speedup, occupancy, registers,
// result), within kScorecardColumns; the verdicts below the table say why a step failed.
enum class Table { kFull, kCompact };
inline constexpr std::size_t kScorecardColumns = 100;
void print_table(std::ostream& out, const std::vector<StepRow>& rows, Table table = Table::kFull);
// Gradescope's results.json: one test per step with its score, the total, and a leaderboard entry
// per lab (its last step's % of the lab's reference, 0 when it was not timed).
// `seed`, when given, is said at the top ("output"): the run it came from can be replayed.
void write_gradescope_json(std::ostream& out, const std::vector<StepRow>& rows, const Points& points = {},
                           const std::string& seed = "");
void write_junit(std::ostream& out, const std::vector<StepRow>& rows);
// Appends one line per step of `rows` to the class CSV at `path` (its header first, when the file is
// new or empty): the student, the lab, the step, the verdict, the score and what was measured at
// the bar's first condition, and last the seed the class was graded with. Throws if it cannot write.
void append_class_csv(const std::string& path, const std::string& student, const std::vector<StepRow>& rows,
                      const Points& points, const std::string& seed = "");

// The class's gradebook, the form gradebooks import: a header row, then one row per student, their
// name (the submission's, so name submissions by login or email), their points in each of `labs`
// (0 where nothing was graded) and their total. `scores`: per student, per lab, the points.
using LabScores = std::map<std::string, double>;
void write_gradebook(std::ostream& out, const std::vector<std::string>& students, const std::vector<std::string>& labs,
                     const std::map<std::string, LabScores>& scores);
// A student's points per lab, from the rows of their grading (Points::score of each step).
LabScores lab_scores(const std::vector<StepRow>& rows, const Points& points);

std::string json_escape(const std::string& text);

// `value` with `digits` decimals, "-" when it was not measured: the one way reports write numbers.
std::string fixed(double value, int digits);

// A CSV file whose header is `columns`: a row must have one value per column (or it throws), so
// that the rows cannot drift from the header. The benchmarks write theirs through it.
class CsvTable {
 public:
  CsvTable(const std::string& path, std::vector<std::string> columns);  // throws if it cannot write
  // A value of a row: text as it is, numbers as an ostream writes them.
  struct Cell {
    std::string text;
    Cell(const std::string& s) : text(s) {}  // NOLINT: implicit, so that a row reads like a list
    Cell(const char* s) : text(s) {}         // NOLINT
    template <typename Number>
      requires std::is_arithmetic_v<Number>
    Cell(Number value) {  // NOLINT
      std::ostringstream out;
      out << value;
      text = out.str();
    }
  };
  void row(std::initializer_list<Cell> cells);

 private:
  std::ofstream file_;
  std::string path_;
  std::vector<std::string> columns_;
};

}  // namespace workbook
