#include "report.h"

#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "as_data.h"

namespace workbook {

namespace {

constexpr int kFields = 17;

// Fields are tab-separated: a tab or newline inside one would split the row. And the rows are a
// file of their own (grade-rows.tsv, kept with the student's results): each text in them as data.
std::string clean(const std::string& text) {
  std::string out = text;
  for (char& c : out)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return line_as_data(out);
}

std::string number(double value) {
  if (std::isnan(value)) return "-";
  std::ostringstream text;
  text << std::setprecision(10) << value;
  return text.str();
}

double parse_number(const std::string& field) {
  if (field == "-") return kNotMeasured;
  std::size_t used = 0;
  const double value = std::stod(field, &used);
  if (used != field.size()) throw std::invalid_argument("not a number: " + field);
  return value;
}

// 6.25, 18.75, 100: as many digits as the value has, up to four.
std::string short_number(double value) {
  std::ostringstream text;
  text << std::setprecision(4) << value;
  return text.str();
}

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

std::string fixed(double value, int digits) {
  if (std::isnan(value)) return "-";
  std::ostringstream text;
  text << std::fixed << std::setprecision(digits) << value;
  return text.str();
}

const char* name_of(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass: return "PASS";
    case Verdict::kFail: return "FAIL";
    case Verdict::kInfo: return "info";
    case Verdict::kNotApplicable: return "n/a";
  }
  return "?";
}

std::string defence_named_in(const std::string& reason) {
  if (reason.empty() || reason.front() != '[') return "";
  const std::size_t end = reason.find(']');
  return end == std::string::npos ? "" : reason.substr(1, end - 1);
}

std::string to_line(const StepRow& r) {
  const std::string fields[kFields] = {
      clean(r.lab), clean(r.step), clean(r.measured_at), name_of(r.verdict), number(r.time_ms),
      number(r.rate), clean(r.rate_unit), number(r.percent_of_peak), number(r.speedup),
      number(r.occupancy_percent), std::to_string(r.registers), std::to_string(r.shared_bytes),
      std::to_string(r.local_bytes), clean(r.bar), clean(r.reason), clean(r.reference), clean(r.defence)};
  std::string line;
  for (int i = 0; i < kFields; ++i) line += (i ? "\t" : "") + fields[i];
  return line;
}

StepRow from_line(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  if (fields.size() != kFields)
    throw std::invalid_argument("a result row needs " + std::to_string(kFields) + " fields, got " +
                                std::to_string(fields.size()) + ": " + line);
  StepRow r;
  r.lab = fields[0];
  r.step = fields[1];
  r.measured_at = fields[2];
  bool known = false;
  for (Verdict v : {Verdict::kPass, Verdict::kFail, Verdict::kInfo, Verdict::kNotApplicable})
    if (fields[3] == name_of(v)) {
      r.verdict = v;
      known = true;
    }
  if (!known) throw std::invalid_argument("a result row's verdict is PASS, FAIL, info or n/a, not '" + fields[3] + "'");
  r.time_ms = parse_number(fields[4]);
  r.rate = parse_number(fields[5]);
  r.rate_unit = fields[6];
  r.percent_of_peak = parse_number(fields[7]);
  r.speedup = parse_number(fields[8]);
  r.occupancy_percent = parse_number(fields[9]);
  r.registers = std::stoi(fields[10]);
  r.shared_bytes = std::stoi(fields[11]);
  r.local_bytes = std::stoi(fields[12]);
  r.bar = fields[13];
  r.reason = fields[14];
  r.reference = fields[15];
  r.defence = fields[16];
  return r;
}

std::vector<StepRow> read_rows(const std::string& path) {
  std::vector<StepRow> rows;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) rows.push_back(from_line(line));
  return rows;
}

void append_rows(const std::string& path, const std::vector<StepRow>& rows) {
  std::ofstream out(path, std::ios::app);
  if (!out) throw std::runtime_error("cannot append results to " + path);
  for (const StepRow& row : rows) out << to_line(row) << '\n';
}

void append_rows(int fd, const std::vector<StepRow>& rows) {
  std::string text;
  for (const StepRow& row : rows) text += to_line(row) + '\n';
  for (std::size_t written = 0; written < text.size();) {
    const ssize_t wrote = ::write(fd, text.data() + written, text.size() - written);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) throw std::runtime_error("cannot append results to descriptor " + std::to_string(fd));
    written += static_cast<std::size_t>(wrote);
  }
}

std::vector<StepVerdict> verdicts(const std::vector<StepRow>& rows) {
  std::vector<StepVerdict> result;
  std::vector<int> judged_rows;
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  for (const StepRow& row : rows) {
    const auto [at, added] = index.try_emplace({row.lab, row.step}, result.size());
    if (added) {
      StepVerdict unjudged;
      unjudged.lab = row.lab;
      unjudged.step = row.step;
      unjudged.summary = "no row was judged: the step did not finish";
      result.push_back(unjudged);
      judged_rows.push_back(0);
    }
    StepVerdict& verdict = result[at->second];
    if (row.not_applicable()) {
      verdict.applicable = false;
      verdict.summary = row.reason;
    }
    if (!row.judged()) continue;
    const bool first = judged_rows[at->second]++ == 0;
    // The first failure explains the verdict; a pass is reported only while nothing failed.
    if (first) {
      verdict.percent_of_reference = row.percent_of_peak;
      verdict.reference = row.reference;
    }
    // A failing row that was timed and whose failure no defence tagged missed only its bar.
    const bool timed = !std::isnan(row.speedup) && row.measured_at != "correctness" && row.measured_at != "timing";
    const bool bar_only = row.verdict == Verdict::kPass || (timed && row.defence.empty());
    verdict.correct = (first || verdict.correct) && bar_only;
    if (row.verdict == Verdict::kFail && (first || verdict.passed)) {
      verdict.passed = false;
      verdict.summary = row.reason;
    } else if (row.verdict == Verdict::kPass && first) {
      verdict.passed = true;
      if (std::isnan(row.speedup))  // nothing timed (--correctness-only): the row says what was checked
        verdict.summary = row.reason;
      else
        verdict.summary = row.bar + ": measured " + fixed(row.speedup, 2) + "x, " + fixed(row.percent_of_peak, 1) +
                          "% of " + (row.reference.empty() ? "the reference" : row.reference) + " at " + row.measured_at;
    }
  }
  return result;
}

void print_table(std::ostream& out, const std::vector<StepRow>& given_rows, Table table) {
  // Escaped before anything is made of them: the cells' widths and the verdicts below the table are
  // then those of what is printed.
  std::vector<StepRow> rows = given_rows;
  for (StepRow& row : rows)
    for (std::string* text : {&row.lab, &row.step, &row.measured_at, &row.rate_unit, &row.reference, &row.bar, &row.reason,
                              &row.defence})
      *text = line_as_data(*text);
  const bool full = table == Table::kFull;
  std::vector<std::string> headers = {"step", "measured at", "time ms", "rate", "% ref", "speedup", "occup.", "regs"};
  if (full) headers.insert(headers.end(), {"smem B", "local B", "bar"});
  headers.push_back("result");
  std::vector<std::vector<std::string>> cells;
  for (const StepRow& r : rows) {
    const auto integer = [](int v) { return v < 0 ? std::string("-") : std::to_string(v); };
    std::vector<std::string> row = {full ? r.step : r.step.substr(0, r.step.find(' ')), r.measured_at,
                                    fixed(r.time_ms, 3), std::isnan(r.rate) ? "-" : fixed(r.rate, 0) + " " + r.rate_unit,
                                    fixed(r.percent_of_peak, 1), std::isnan(r.speedup) ? "-" : fixed(r.speedup, 2) + "x",
                                    std::isnan(r.occupancy_percent) ? "-" : short_number(r.occupancy_percent) + "%",
                                    integer(r.registers)};
    if (full) row.insert(row.end(), {integer(r.shared_bytes), integer(r.local_bytes), r.bar.empty() ? "-" : r.bar});
    row.push_back(name_of(r.verdict));
    cells.push_back(row);
  }
  std::vector<std::size_t> widths(headers.size());
  for (std::size_t c = 0; c < headers.size(); ++c) {
    widths[c] = headers[c].size();
    for (const auto& row : cells) widths[c] = std::max(widths[c], row[c].size());
  }
  const auto print_row = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < row.size(); ++c)
      out << (c ? "  " : "") << std::left << std::setw(static_cast<int>(widths[c])) << row[c];
    out << '\n';
  };
  print_row(headers);
  std::size_t total_width = 0;
  for (std::size_t w : widths) total_width += w + 2;
  out << std::string(total_width - 2, '-') << '\n';
  for (const auto& row : cells) print_row(row);
  // Say what "% ref" is a percentage of, once per lab.
  std::map<std::string, std::string> references;
  for (const StepRow& r : rows)
    if (!r.reference.empty()) references.try_emplace(r.lab, r.reference);
  for (const auto& [lab, reference] : references)
    out << "% ref (" << lab << "): of " << reference << " on the same inputs, timed in the same run\n";

  std::size_t passed = 0, not_applicable = 0;
  const std::vector<StepVerdict> all = verdicts(rows);
  out << '\n';
  for (const StepVerdict& v : all) {
    passed += v.passed;
    not_applicable += !v.applicable;
    out << (!v.applicable ? "n/a   " : v.passed ? "PASS  " : "FAIL  ") << v.step << ": " << v.summary << '\n';
  }
  out << '\n' << passed << " of " << all.size() - not_applicable << " steps pass";
  if (not_applicable > 0) out << " (" << not_applicable << " more not applicable on this GPU)";
  out << '\n';
}

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

Points::Worth Points::of(const std::string& step_name) const {
  const auto found = by_step.find(step_name.substr(0, step_name.find(' ')));
  return found == by_step.end() ? fallback : found->second;
}

double Points::max_score(const StepVerdict& v) const { return v.applicable ? of(v.step).points : 0.0; }

double Points::score(const StepVerdict& v) const {
  if (!v.applicable) return 0;
  const Worth worth = of(v.step);
  return v.passed ? worth.points : v.correct ? worth.if_correct : 0.0;
}

std::vector<std::pair<int, std::string>> config_lines(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read the " + what + " " + path);
  std::vector<std::pair<int, std::string>> lines;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (const std::size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.emplace_back(number, line);
  }
  return lines;
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
      throw std::invalid_argument(path + ":" + std::to_string(number) + ": " + step + " is named twice (first on line " +
                                  std::to_string(first->second) + ")");
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
void write_gradescope_json(std::ostream& out, const std::vector<StepRow>& rows, const Points& points, const std::string& seed) {
  const std::vector<StepVerdict> all = verdicts(rows);
  double score = 0;
  for (const StepVerdict& v : all) score += points.score(v);
  out << "{\n  \"score\": " << fixed(score, 2) << ",\n";
  // The seed where a step ran; where none did (every reason a "not graded: ..."), what it was not.
  const bool none_ran = !rows.empty() && std::all_of(rows.begin(), rows.end(), [](const StepRow& row) {
    return row.reason.rfind("not graded", 0) == 0;
  });
  if (none_ran)
    out << "  \"output\": \"" << json_text("nothing was graded: each step below says why") << "\",\n";
  else if (!seed.empty())
    out << "  \"output\": \"" << json_text("graded with seed " + seed + ": ./workbook grade --seed " + seed + " replays the same inputs")
        << "\",\n";
  out << "  \"tests\": [\n";
  for (std::size_t i = 0; i < all.size(); ++i) {
    const StepVerdict& v = all[i];
    const double earned = points.score(v);
    std::string output = v.summary;
    if (!v.passed && v.correct && earned > 0) output = "correct, below the bar (partial credit): " + output;
    // A step not applicable on this GPU is worth nothing here, and has no status: Gradescope shows
    // neither a pass nor a failure.
    out << "    {\"name\": \"" << json_text(v.lab + " " + v.step) << "\", \"score\": " << fixed(earned, 2)
        << ", \"max_score\": " << fixed(points.max_score(v), 2);
    if (v.applicable) out << ", \"status\": \"" << (v.passed ? "passed" : "failed") << '"';
    out << ", \"visibility\": \"visible\", \"output\": \"" << json_text(output) << "\"}"
        << (i + 1 < all.size() ? ",\n" : "\n");
  }
  out << "  ],\n  \"leaderboard\": [";
  // Each lab's last step graded on this GPU: its % of the lab's reference (cuBLAS, cuFFT, CUB, cudaMemcpy).
  std::map<std::string, const StepVerdict*> last_of_lab;
  for (const StepVerdict& v : all)
    if (v.applicable) last_of_lab[v.lab] = &v;
  bool comma = false;
  for (const auto& [lab, v] : last_of_lab) {
    const double value = std::isnan(v->percent_of_reference) ? 0.0 : v->percent_of_reference;
    out << (comma ? ", " : "") << "{\"name\": \"" << json_text(lab + " " + v->step.substr(0, v->step.find(' ')) + ", % of " +
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
    out << "    <testcase classname=\"" << xml_escape(v.lab) << "\" name=\"" << xml_escape(v.step) << "\"";
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

namespace {
// A CSV field as RFC 4180 writes it, of one line of data: quoted when it holds a comma or a quote
// ("06.8 Blelloch, conflict-free"), with its quotes doubled; as it is otherwise. Python's csv reads
// it back. A line break cannot be left in it: a spreadsheet would keep it, and a terminal obey it.
std::string csv_field(const std::string& given) {
  std::string text = line_as_data(given);
  // A field a spreadsheet would read as a formula (a student's name or words starting with = + - @)
  // is kept as text: a leading ' is how spreadsheets mark one.
  if (!text.empty() && std::string_view("=+-@").find(text.front()) != std::string_view::npos) text.insert(0, 1, '\'');
  if (text.find_first_of(",\"") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + '"';
}
}  // namespace

LabScores lab_scores(const std::vector<StepRow>& rows, const Points& points) {
  LabScores scores;
  for (const StepVerdict& v : verdicts(rows)) scores[v.lab] += points.score(v);
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
        if (const auto lab_points = found->second.find(lab); lab_points != found->second.end()) points = lab_points->second;
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
  std::map<std::pair<std::string, std::string>, const StepRow*> first_judged;
  for (const StepRow& row : rows)
    if (row.judged()) first_judged.try_emplace({row.lab, row.step}, &row);
  const auto number = [](double value) { return std::isnan(value) ? std::string() : fixed(value, 4); };
  for (const StepVerdict& v : verdicts(rows)) {
    const auto found = first_judged.find({v.lab, v.step});
    const StepRow none;
    const StepRow& row = found == first_judged.end() ? none : *found->second;
    const std::string verdict =
        !v.applicable ? "n/a" : v.passed ? "PASS" : v.correct ? "FAIL (correct, below the bar)" : "FAIL";
    out << csv_field(student) << ',' << csv_field(v.lab) << ',' << csv_field(v.step) << ',' << csv_field(verdict) << ','
        << fixed(points.score(v), 2) << ',' << fixed(points.max_score(v), 2) << ',' << csv_field(row.measured_at) << ','
        << number(row.time_ms) << ',' << number(row.rate) << ',' << csv_field(std::isnan(row.rate) ? "" : row.rate_unit) << ','
        << number(row.percent_of_peak) << ',' << csv_field(std::isnan(row.percent_of_peak) ? "" : row.reference) << ','
        << number(row.speedup) << ',' << csv_field(v.summary) << ',' << csv_field(seed) << '\n';
  }
  if (!out) throw std::runtime_error("cannot write " + path);
}

CsvTable::CsvTable(const std::string& path, std::vector<std::string> columns)
    : file_(path), path_(path), columns_(std::move(columns)) {
  if (!file_) throw std::runtime_error("cannot write " + path);
  for (std::size_t c = 0; c < columns_.size(); ++c) file_ << (c == 0 ? "" : ",") << csv_field(columns_[c]);
  file_ << '\n';
}

void CsvTable::row(std::initializer_list<Cell> cells) {
  if (cells.size() != columns_.size())
    throw std::logic_error("a row of " + std::to_string(cells.size()) + " values for " + std::to_string(columns_.size()) +
                           " columns in " + path_);
  const char* separator = "";
  for (const Cell& cell : cells) {
    file_ << separator << csv_field(cell.text);
    separator = ",";
  }
  file_ << '\n' << std::flush;
}

}  // namespace workbook
