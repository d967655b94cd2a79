// workbook_report: every report of a grading, written by a process that links no student code
// (the trust boundary, docs/integrity.md). A step's grader process writes its rows into a file of
// its own working folder; this program takes them from there, checks that they are that step's,
// and writes the scorecard, results.json, JUnit and the class CSV from the rows collected.
//   --collect=FILE --lab=LAB --step=STEP --into=ROWS
//                          append the rows a step's process left in FILE to ROWS, after checking
//                          that FILE is a plain file of well-formed rows of that step alone; else
//                          append one failed row that says what was wrong
//   --append-failure=ROWS --lab=LAB --step=STEP --reason=TEXT
//                          append a failed row for a step that could not report itself (it crashed,
//                          hung, did not compile, or its code was refused)
//   --summarize=ROWS [--json=FILE] [--junit=FILE] [--points=FILE] [--class-csv=FILE --student=NAME]
//                          print the scorecard of ROWS and write the reports asked for
// Exit 0: done (with --summarize: every applicable step passed); 1: a step failed, or a report
// could not be written; 2: bad usage.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "report.h"

namespace {

using namespace workbook;

// The most a step's rows may take: a step records a row per condition it was measured at.
constexpr std::size_t kMaxRowBytes = 1 << 20;

// FILE's text, read only if it is a plain file (not a link a step's process put in its place).
std::string read_plain_file(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ELOOP) throw std::runtime_error("its file of rows is a link, not a plain file");
  if (fd < 0) throw std::runtime_error("there is no file of rows (" + std::string(std::strerror(errno)) + ")");
  struct stat facts {};
  if (fstat(fd, &facts) != 0 || !S_ISREG(facts.st_mode)) {
    close(fd);
    throw std::runtime_error("its file of rows is not a plain file");
  }
  if (static_cast<std::size_t>(facts.st_size) > kMaxRowBytes) {
    close(fd);
    throw std::runtime_error("its file of rows is larger than " + std::to_string(kMaxRowBytes) + " bytes");
  }
  std::string text(static_cast<std::size_t>(facts.st_size), '\0');
  const ssize_t got = read(fd, text.data(), text.size());
  close(fd);
  if (got < 0) throw std::runtime_error("its file of rows cannot be read");
  text.resize(static_cast<std::size_t>(got));
  return text;
}

StepRow failed_row(const std::string& lab, const std::string& step, const std::string& reason) {
  StepRow row;
  row.lab = lab;
  row.step = step;
  row.measured_at = "run";
  row.result = "FAIL";
  row.reason = reason;
  return row;
}

// The rows of `step`, or why they are not to be believed.
std::vector<StepRow> collected_rows(const std::string& path, const std::string& lab, const std::string& step) {
  std::vector<StepRow> rows;
  std::istringstream lines(read_plain_file(path));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    StepRow row = from_line(line);
    if (row.lab != lab || row.step != step)
      throw std::runtime_error("it reported a row of another step (" + row.lab + " " + row.step + ")");
    if (row.result != "PASS" && row.result != "FAIL" && row.result != "info" && row.result != "n/a")
      throw std::runtime_error("it reported a row whose result is '" + row.result + "'");
    rows.push_back(row);
  }
  if (rows.empty()) throw std::runtime_error("it reported no result");
  return rows;
}

template <typename Write>
bool write_file(const std::string& path, Write&& write) {
  std::ofstream out(path);
  if (out) write(out);
  if (out) out.close();
  if (!out) std::cerr << "error: cannot write " << path << '\n';
  return static_cast<bool>(out);
}

int summarize(std::map<std::string, std::string>& flags) {
  const std::string path = flags["summarize"];
  std::vector<StepRow> rows;
  try {
    rows = read_rows(path);
  } catch (const std::exception& error) {
    std::cerr << "error: " << path << " is not a results file: " << error.what() << '\n';
    return 1;
  }
  if (rows.empty()) {
    std::cerr << "no results in " << path << '\n';
    return 1;
  }
  Points points;
  if (!flags["points"].empty()) {
    try {
      points = read_points(flags["points"]);
    } catch (const std::exception& error) {
      std::cerr << "error: " << error.what() << '\n';
      return 1;
    }
  }
  print_table(std::cout, rows, Table::kCompact);
  std::cout << "(every column, the bars included, for each step: results/grade.log)\n";
  bool written = true;
  if (!flags["json"].empty())
    written = write_file(flags["json"], [&](std::ostream& out) { write_gradescope_json(out, rows, points); }) && written;
  if (!flags["class-csv"].empty()) {
    try {
      append_class_csv(flags["class-csv"], flags["student"], rows, points);
    } catch (const std::exception& error) {
      std::cerr << "error: " << error.what() << '\n';
      written = false;
    }
  }
  if (!flags["junit"].empty()) written = write_file(flags["junit"], [&](std::ostream& out) { write_junit(out, rows); }) && written;
  if (!written) return 1;
  for (const StepVerdict& v : verdicts(rows))
    if (v.applicable && !v.passed) return 1;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> flags;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const std::size_t equals = a.find('=');
    if (a.rfind("--", 0) != 0 || equals == std::string::npos) {
      std::cerr << "error: workbook_report takes --flag=value arguments, not '" << a << "'\n";
      return 2;
    }
    flags[a.substr(2, equals - 2)] = a.substr(equals + 1);
  }
  try {
    if (flags.contains("summarize")) return summarize(flags);
    if (flags.contains("append-failure")) {
      append_rows(flags["append-failure"], {failed_row(flags["lab"], flags["step"], flags["reason"])});
      return 0;
    }
    if (flags.contains("collect")) {
      std::vector<StepRow> rows;
      try {
        rows = collected_rows(flags["collect"], flags["lab"], flags["step"]);
      } catch (const std::exception& error) {
        rows = {failed_row(flags["lab"], flags["step"],
                           std::string("the step's process gave no result to believe: ") + error.what())};
      }
      append_rows(flags["into"], rows);
      return 0;
    }
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << '\n';
    return 1;
  }
  std::cerr << "error: workbook_report needs --summarize, --append-failure or --collect\n";
  return 2;
}
