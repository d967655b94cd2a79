#include "collect.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace workbook::runner {

namespace {

// The most a step's rows may take: a step records a row per condition it was measured at.
constexpr std::size_t kMaxRowBytes = 1 << 20;

// The file's text, read only if it is a plain file (not a link a step's process put in its place).
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

std::vector<StepRow> believed_rows(const std::string& path, const std::string& lab, const std::string& step) {
  std::vector<StepRow> rows;
  std::istringstream lines(read_plain_file(path));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    StepRow row = from_line(line);
    if (row.lab != lab || row.step != step)
      throw std::runtime_error("it reported a row of another step (" + row.lab + " " + row.step + ")");
    rows.push_back(row);
  }
  if (rows.empty()) throw std::runtime_error("it reported no result");
  return rows;
}

}  // namespace

StepRow failed_row(const std::string& lab, const std::string& step, const std::string& reason) {
  StepRow row;
  row.lab = lab;
  row.step = step;
  row.measured_at = "run";
  row.verdict = Verdict::kFail;
  row.reason = reason;
  return row;
}

std::vector<StepRow> collect_rows(const std::string& path, const std::string& lab, const std::string& step) {
  try {
    return believed_rows(path, lab, step);
  } catch (const std::exception& error) {
    return {failed_row(lab, step, std::string("the step's process gave no result to believe: ") + error.what())};
  }
}

}  // namespace workbook::runner
