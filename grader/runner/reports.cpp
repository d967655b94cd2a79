#include "runner/reports.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "protocol/as_data.h"
#include "protocol/config_lines.h"

namespace workbook {

namespace {

// Every writer below writes each text it is given as data (as_data.h), whoever made it: a row's
// reason may hold what a student's launcher threw, a name may be a student's, and a writer that
// escapes everything keeps that so even where a path that makes rows forgets to.

// An XML attribute's value, one line of data: XML 1.0 allows no control character but a line's
// break and a tab, so a raw one would make the JUnit file unreadable too.
std::string xml_escape(const std::string& given) {
  const std::string text = line_as_data(given);
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string json_escape(const std::string& text) {
  std::ostringstream out;
  for (unsigned char c : text) {
    switch (c) {
      case '"': out << "\\\""; break;
      case '\\': out << "\\\\"; break;
      case '\n': out << "\\n"; break;
      case '\t': out << "\\t"; break;
      default:
        if (c < 0x20) out << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int(c) << std::dec;
        else out << c;
    }
  }
  return out.str();
}

Points::Worth Points::of(const LabStep& step) const {
  const auto found = by_step.find(step.id);
  return found == by_step.end() ? fallback : found->second;
}

double Points::max_score(const StepVerdict& v) const { return v.applicable ? of(v.step).points : 0.0; }

double Points::score(const StepVerdict& v) const {
  if (!v.applicable) return 0;
  const Worth worth = of(v.step);
  return v.passed ? worth.points : v.correct ? worth.if_correct : 0.0;
}

Points read_points(const std::string& path) {
  Points points;
  for (const auto& [number, line] : config_lines(path, "points file")) {
    std::istringstream fields(line);
    std::string step;
    fields >> step;
    Points::Worth worth{0, 0};
    std::string extra;
    const auto bad = [&](const std::string& why) {
      return std::invalid_argument(path + ":" + std::to_string(number) + ": " + why +
                                   " (a line is: STEP POINTS [POINTS_IF_CORRECT_BUT_BELOW_THE_BAR])");
    };
    if (!(fields >> worth.points) || worth.points < 0) throw bad("no points, or negative ones, for " + step);
    if (fields >> worth.if_correct) {
      if (worth.if_correct < 0 || worth.if_correct > worth.points) throw bad("partial credit must lie in [0, points]");
    } else {
      worth.if_correct = 0;
    }
    fields.clear();
    if (fields >> extra) throw bad("unexpected '" + extra + "'");
    if (step == "*") {
      points.fallback = worth;
    } else if (const auto first = points.line_of_step.find(step); first != points.line_of_step.end()) {
      throw std::invalid_argument(path + ":" + std::to_string(number) + ": " + step +
                                  " is named twice (first on line " + std::to_string(first->second) + ")");
    } else {
      points.by_step[step] = worth;
      points.line_of_step[step] = number;
    }
  }
  return points;
}

namespace {
// A JSON string's contents, one line of data: escaped for JSON alone, a control character would be
// valid JSON and still reach whoever reads the output (Gradescope's page, a `cat`) as itself.
std::string json_text(const std::string& text) { return json_escape(line_as_data(text)); }
}  // namespace

// https://gradescope-autograders.readthedocs.io/en/latest/specs/ : one test per step, each worth
// what the points file says (one point by default), a total, and a leaderboard.
void write_gradescope_json(std::ostream& out, const std::vector<StepRow>& rows, const Points& points,
                           const std::string& seed) {
  const std::vector<StepVerdict> all = verdicts(rows);
  double score = 0;
  for (const StepVerdict& v : all) score += points.score(v);
  out << "{\n  \"score\": " << fixed(score, 2) << ",\n";
  // The seed where a step ran; where none did (every reason a "not graded: ..."), what it was not.
  const bool none_ran = !rows.empty() && std::all_of(rows.begin(), rows.end(), [](const StepRow& row) {
    return row.reason.rfind("not graded", 0) == 0;
  });
  if (none_ran) out << "  \"output\": \"" << json_text("nothing was graded: each step below says why") << "\",\n";
  else if (!seed.empty())
    out << "  \"output\": \""
        << json_text("graded with seed " + seed + ": ./workbook grade --seed " + seed + " replays the same inputs")
        << "\",\n";
  out << "  \"tests\": [\n";
  for (std::size_t i = 0; i < all.size(); ++i) {
    const StepVerdict& v = all[i];
    const double earned = points.score(v);
    std::string output = v.summary;
    if (!v.passed && v.correct && earned > 0) output = "correct, below the bar (partial credit): " + output;
    // A step not applicable on this GPU is worth nothing here, and has no status: Gradescope shows
    // neither a pass nor a failure.
    out << "    {\"name\": \"" << json_text(v.step.lab + " " + v.step.name()) << "\", \"score\": " << fixed(earned, 2)
        << ", \"max_score\": " << fixed(points.max_score(v), 2);
    if (v.applicable) out << ", \"status\": \"" << (v.passed ? "passed" : "failed") << '"';
    out << ", \"visibility\": \"visible\", \"output\": \"" << json_text(output) << "\"}"
        << (i + 1 < all.size() ? ",\n" : "\n");
  }
  out << "  ],\n  \"leaderboard\": [";
  // Each lab's last step graded on this GPU: its % of the lab's reference (cuBLAS, cuFFT, CUB, cudaMemcpy).
  std::map<std::string, const StepVerdict*> last_of_lab;
  for (const StepVerdict& v : all)
    if (v.applicable) last_of_lab[v.step.lab] = &v;
  bool comma = false;
  for (const auto& [lab, v] : last_of_lab) {
    const double value = std::isnan(v->percent_of_reference) ? 0.0 : v->percent_of_reference;
    out << (comma ? ", " : "") << "{\"name\": \""
        << json_text(lab + " " + v->step.id + ", % of " +
                     (v->reference.empty() ? std::string("the reference") : v->reference))
        << "\", \"value\": " << fixed(value, 1) << "}";
    comma = true;
  }
  out << "]\n}\n";
}

void write_junit(std::ostream& out, const std::vector<StepRow>& rows) {
  const std::vector<StepVerdict> all = verdicts(rows);
  std::size_t failures = 0;
  std::size_t skipped = 0;
  for (const StepVerdict& v : all) {
    failures += v.applicable && !v.passed;
    skipped += !v.applicable;
  }
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"workbook\" tests=\""
      << all.size() << "\" failures=\"" << failures << "\" skipped=\"" << skipped << "\">\n";
  for (const StepVerdict& v : all) {
    out << "    <testcase classname=\"" << xml_escape(v.step.lab) << "\" name=\"" << xml_escape(v.step.name()) << "\"";
    if (!v.applicable) {
      out << ">\n      <skipped message=\"" << xml_escape(v.summary) << "\"/>\n    </testcase>\n";
    } else if (v.passed) {
      out << "/>\n";
    } else {
      out << ">\n      <failure message=\"" << xml_escape(v.summary) << "\"/>\n    </testcase>\n";
    }
  }
  out << "  </testsuite>\n</testsuites>\n";
}

LabScores lab_scores(const std::vector<StepRow>& rows, const Points& points) {
  LabScores scores;
  for (const StepVerdict& v : verdicts(rows)) scores[v.step.lab] += points.score(v);
  return scores;
}

void write_gradebook(std::ostream& out, const std::vector<std::string>& students, const std::vector<std::string>& labs,
                     const std::map<std::string, LabScores>& scores) {
  out << "student";
  for (const std::string& lab : labs) out << ',' << csv_field(lab);
  out << ",total\n";
  for (const std::string& student : students) {
    const auto found = scores.find(student);
    double total = 0;
    out << csv_field(student);
    for (const std::string& lab : labs) {
      double points = 0;
      if (found != scores.end())
        if (const auto lab_points = found->second.find(lab); lab_points != found->second.end())
          points = lab_points->second;
      total += points;
      out << ',' << fixed(points, 2);
    }
    out << ',' << fixed(total, 2) << '\n';
  }
}

void append_class_csv(const std::string& path, const std::string& student, const std::vector<StepRow>& rows,
                      const Points& points, const std::string& seed) {
  bool fresh = true;
  if (std::ifstream existing(path); existing) fresh = existing.peek() == std::ifstream::traits_type::eof();
  std::ofstream out(path, std::ios::app);
  if (!out) throw std::runtime_error("cannot write " + path);
  if (fresh)
    out << "student,lab,step,verdict,score,max_score,measured_at,time_ms,rate,rate_unit,percent_of_reference,reference,"
           "speedup,reason,seed\n";
  std::map<LabStep, const StepRow*> first_judged;
  for (const StepRow& row : rows)
    if (row.judged()) first_judged.try_emplace(row.step, &row);
  const auto number = [](double value) { return std::isnan(value) ? std::string() : fixed(value, 4); };
  for (const StepVerdict& v : verdicts(rows)) {
    const auto found = first_judged.find(v.step);
    const StepRow none;
    const StepRow& row = found == first_judged.end() ? none : *found->second;
    const std::string verdict = !v.applicable ? "n/a"
                                : v.passed    ? "PASS"
                                : v.correct   ? "FAIL (correct, below the bar)"
                                              : "FAIL";
    out << csv_field(student) << ',' << csv_field(v.step.lab) << ',' << csv_field(v.step.name()) << ','
        << csv_field(verdict) << ',' << fixed(points.score(v), 2) << ',' << fixed(points.max_score(v), 2) << ','
        << csv_field(row.measured_at) << ',' << number(row.time_ms) << ',' << number(row.rate) << ','
        << csv_field(std::isnan(row.rate) ? "" : row.rate_unit) << ',' << number(row.percent_of_peak) << ','
        << csv_field(std::isnan(row.percent_of_peak) ? "" : row.reference) << ',' << number(row.speedup) << ','
        << csv_field(v.summary) << ',' << csv_field(seed) << '\n';
  }
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace workbook
