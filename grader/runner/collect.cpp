#include "runner/collect.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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

std::vector<StepRow> believed_rows(const std::string& path, const LabStep& step) {
  std::vector<StepRow> rows;
  std::istringstream lines(read_plain_file(path));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    StepRow row = from_line(line);
    if (row.step != step)
      throw std::runtime_error("it reported a row of another step (" + row.step.lab + " " + row.step.name() + ")");
    rows.push_back(row);
  }
  if (rows.empty()) throw std::runtime_error("it reported no result");
  return rows;
}

}  // namespace

std::vector<std::vector<StepRow>> rows_of_steps(const std::string& path, const std::vector<LabStep>& steps) {
  std::vector<std::vector<StepRow>> rows(steps.size());
  std::istringstream lines(read_plain_file(path));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || lines.eof()) continue;  // the last line is whole only once its newline is written
    StepRow row = from_line(line);
    const auto step = std::find(steps.begin(), steps.end(), row.step);
    if (step == steps.end())
      throw std::runtime_error("it reported a row of a step it was not grading (" + row.step.lab + " " +
                               row.step.name() + ")");
    rows[static_cast<std::size_t>(step - steps.begin())].push_back(row);
  }
  return rows;
}

Accounted account_for_steps(const std::vector<std::vector<StepRow>>& reported, const std::vector<LabStep>& steps,
                            int status, const std::string& stopped_why, const std::string& not_graded_why) {
  Accounted done;
  for (std::size_t k = 0; k < steps.size(); ++k)
    if (!reported[k].empty()) done.steps_done = k + 1;
  for (std::size_t k = 0; k < done.steps_done; ++k) {
    if (reported[k].empty())
      done.rows.push_back(failed_row(steps[k], "the step's process gave no result to believe: it reported no result"));
    for (const StepRow& row : reported[k]) done.rows.push_back(row);
  }
  if (done.steps_done == steps.size()) return done;
  if (!stopped_why.empty()) {  // stopped in the step after the last that reported: that one fails
    done.rows.push_back(failed_row(steps[done.steps_done], stopped_why));
    ++done.steps_done;
  } else if (status != kExitContextLost || done.steps_done == 0) {
    for (; done.steps_done < steps.size(); ++done.steps_done)
      done.rows.push_back(failed_row(steps[done.steps_done], not_graded_why));
  }
  return done;
}

StepRow failed_row(const LabStep& step, const std::string& reason) {
  StepRow row;
  row.step = step;
  row.measured_at = "run";
  row.verdict = Verdict::kFail;
  row.reason = reason;
  return row;
}

std::vector<StepRow> collect_rows(const std::string& path, const LabStep& step) {
  try {
    return believed_rows(path, step);
  } catch (const std::exception& error) {
    return {failed_row(step, std::string("the step's process gave no result to believe: ") + error.what())};
  }
}

}  // namespace workbook::runner
