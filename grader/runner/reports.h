// The runner's reports, made of the judges' rows (rows.h): Gradescope's results.json, JUnit, the
// class's CSV and gradebook, and the points file they are scored with. One writer each. Plain C++.
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "protocol/rows.h"

namespace workbook {

// What each step is worth, from an instructor's points file (docs/instructors.md): a line
// "STEP POINTS [IF_CORRECT]" per step, "*" for every step not named; IF_CORRECT (default 0) is the
// partial credit of a step that is correct but misses its bar. '#' starts a comment.
struct Points {
  struct Worth {
    double points = 1;
    double if_correct = 0;
  };
  Worth fallback;
  std::map<std::string, Worth> by_step;     // by step id, "04.10"
  std::map<std::string, int> line_of_step;  // where the file names each step, for messages
  Worth of(const LabStep& step) const;      // by its id, "04.10"
  double score(const StepVerdict& v) const;
  double max_score(const StepVerdict& v) const;  // 0 for a step not applicable on this GPU
};
// Throws std::invalid_argument, with the file and line, on a malformed line or a step named twice.
Points read_points(const std::string& path);

// Every writer below writes each text it is given as data (as_data.h's line_as_data()): a row's
// reason or a student's name may be a student's text, and no path that makes them must be trusted
// to have escaped it. JSON stays JSON, CSV stays CSV, XML stays XML.

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

}  // namespace workbook
