#include "protocol/rows.h"

#include <unistd.h>

#include <cerrno>

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

namespace workbook {

namespace {

constexpr int kFields = 18;

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
  const std::string fields[kFields] = {clean(r.step.lab),
                                       clean(r.step.id),
                                       clean(r.step.title),
                                       clean(r.measured_at),
                                       name_of(r.verdict),
                                       number(r.time_ms),
                                       number(r.rate),
                                       clean(r.rate_unit),
                                       number(r.percent_of_peak),
                                       number(r.speedup),
                                       number(r.occupancy_percent),
                                       std::to_string(r.registers),
                                       std::to_string(r.shared_bytes),
                                       std::to_string(r.local_bytes),
                                       clean(r.bar),
                                       clean(r.reason),
                                       clean(r.reference),
                                       clean(r.defence)};
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
  r.step = {fields[0], fields[1], fields[2]};
  r.measured_at = fields[3];
  bool known = false;
  for (Verdict v : {Verdict::kPass, Verdict::kFail, Verdict::kInfo, Verdict::kNotApplicable})
    if (fields[4] == name_of(v)) {
      r.verdict = v;
      known = true;
    }
  if (!known) throw std::invalid_argument("a result row's verdict is PASS, FAIL, info or n/a, not '" + fields[4] + "'");
  r.time_ms = parse_number(fields[5]);
  r.rate = parse_number(fields[6]);
  r.rate_unit = fields[7];
  r.percent_of_peak = parse_number(fields[8]);
  r.speedup = parse_number(fields[9]);
  r.occupancy_percent = parse_number(fields[10]);
  r.registers = std::stoi(fields[11]);
  r.shared_bytes = std::stoi(fields[12]);
  r.local_bytes = std::stoi(fields[13]);
  r.bar = fields[14];
  r.reason = fields[15];
  r.reference = fields[16];
  r.defence = fields[17];
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
  std::map<LabStep, std::size_t> index;
  for (const StepRow& row : rows) {
    const auto [at, added] = index.try_emplace(row.step, result.size());
    if (added) {
      StepVerdict unjudged;
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
                          "% of " + (row.reference.empty() ? "the reference" : row.reference) + " at " +
                          row.measured_at;
    }
  }
  return result;
}

void print_table(std::ostream& out, const std::vector<StepRow>& given_rows, Table table) {
  // Escaped before anything is made of them: the cells' widths and the verdicts below the table are
  // then those of what is printed.
  std::vector<StepRow> rows = given_rows;
  for (StepRow& row : rows)
    for (std::string* text : {&row.step.lab, &row.step.id, &row.step.title, &row.measured_at, &row.rate_unit,
                              &row.reference, &row.bar, &row.reason, &row.defence})
      *text = line_as_data(*text);
  const bool full = table == Table::kFull;
  std::vector<std::string> headers = {"step", "measured at", "time ms", "rate", "% ref", "speedup", "occup.", "regs"};
  if (full) headers.insert(headers.end(), {"smem B", "local B", "bar"});
  headers.push_back("result");
  std::vector<std::vector<std::string>> cells;
  for (const StepRow& r : rows) {
    const auto integer = [](int v) { return v < 0 ? std::string("-") : std::to_string(v); };
    std::vector<std::string> row = {full ? r.step.name() : r.step.id,
                                    r.measured_at,
                                    fixed(r.time_ms, 3),
                                    std::isnan(r.rate) ? "-" : fixed(r.rate, 0) + " " + r.rate_unit,
                                    fixed(r.percent_of_peak, 1),
                                    std::isnan(r.speedup) ? "-" : fixed(r.speedup, 2) + "x",
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
    if (!r.reference.empty()) references.try_emplace(r.step.lab, r.reference);
  for (const auto& [lab, reference] : references)
    out << "% ref (" << lab << "): of " << reference << " on the same inputs, timed in the same run\n";

  std::size_t passed = 0, not_applicable = 0;
  const std::vector<StepVerdict> all = verdicts(rows);
  out << '\n';
  for (const StepVerdict& v : all) {
    passed += v.passed;
    not_applicable += !v.applicable;
    out << (!v.applicable ? "n/a   " : v.passed ? "PASS  " : "FAIL  ") << v.step.name() << ": " << v.summary << '\n';
  }
  out << '\n' << passed << " of " << all.size() - not_applicable << " steps pass";
  if (not_applicable > 0) out << " (" << not_applicable << " more not applicable on this GPU)";
  out << '\n';
}

}  // namespace workbook
