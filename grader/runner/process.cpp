#include "process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace workbook::runner {

namespace {

// Starts `command`; its captured output, if any, goes to `take` piece by piece as it is read.
int start_and_wait(const Command& command, const std::function<void(const char*, std::size_t)>& take) {
  if (command.argv.empty()) throw std::invalid_argument("run: no program");
  int pipe_fds[2] = {-1, -1};
  const bool capture = command.output_path.empty();
  if (capture && pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {  // the child: only async-signal-safe calls would be strict; it execs at once
    int out = capture ? pipe_fds[1] : open(command.output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) _exit(127);
    dup2(out, STDOUT_FILENO);
    dup2(out, STDERR_FILENO);
    if (!command.folder.empty() && chdir(command.folder.c_str()) != 0) _exit(127);
    for (const auto& [name, value] : command.env) setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> argv;
    for (const std::string& a : command.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    const std::string why = "cannot run " + command.argv[0] + ": " + std::strerror(errno) + "\n";
    (void)!write(STDERR_FILENO, why.data(), why.size());
    _exit(127);
  }
  if (capture) {
    close(pipe_fds[1]);
    char buffer[4096];
    for (ssize_t got; (got = read(pipe_fds[0], buffer, sizeof buffer)) != 0;) {
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) break;
      take(buffer, static_cast<std::size_t>(got));
    }
    close(pipe_fds[0]);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

Outcome run(const Command& command) {
  Outcome outcome;
  outcome.status = start_and_wait(command, [&](const char* piece, std::size_t size) { outcome.output.append(piece, size); });
  return outcome;
}

int run_lines(const Command& command, const std::function<void(const std::string&)>& each_line) {
  std::string pending;
  const int status = start_and_wait(command, [&](const char* piece, std::size_t size) {
    pending.append(piece, size);
    for (std::size_t end; (end = pending.find('\n')) != std::string::npos; pending.erase(0, end + 1))
      each_line(pending.substr(0, end));
  });
  if (!pending.empty()) each_line(pending);
  return status;
}

std::string path_of(const std::string& program) {
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0 ? program : "";
  const char* path = std::getenv("PATH");
  std::string folders = path != nullptr ? path : "";
  for (std::size_t start = 0; start <= folders.size();) {
    const std::size_t end = std::min(folders.find(':', start), folders.size());
    const std::string folder = folders.substr(start, end - start);
    if (!folder.empty() && access((folder + "/" + program).c_str(), X_OK) == 0) return folder + "/" + program;
    start = end + 1;
  }
  return "";
}

}  // namespace workbook::runner
