#include "planner_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>
#include <vector>

namespace workbook {

namespace {

void close_if_open(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// The processes whose parent is this one, from /proc.
std::vector<pid_t> children() {
  std::vector<pid_t> found;
  const pid_t self = ::getpid();
  DIR* processes = ::opendir("/proc");
  if (processes == nullptr) return found;
  while (const dirent* entry = ::readdir(processes)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (pid <= 0) continue;
    std::ifstream status("/proc/" + std::string(entry->d_name) + "/status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("PPid:", 0) == 0) {
        if (std::atoi(line.c_str() + 5) == self) found.push_back(pid);
        break;
      }
  }
  ::closedir(processes);
  return found;
}

}  // namespace

void adopt_what_planners_leave() {
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) throw std::runtime_error("the judge could not adopt its planners' orphans");
}

std::string end_every_child() {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < until) {
    const std::vector<pid_t> left = children();
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    if (left.empty()) return "";
    for (pid_t pid : left) ::kill(pid, SIGKILL);
    for (pid_t pid : left) ::waitpid(pid, nullptr, 0);  // each orphan of theirs is this process's child next
  }
  return "processes your file's host code started would not end";
}

PlannerProcess::PlannerProcess(const std::vector<std::string>& command) {
  if (command.empty()) throw std::logic_error("a planner needs a command");
  ::signal(SIGPIPE, SIG_IGN);  // a planner that died makes a write fail, not end the judge
  int to_planner[2], from_planner[2], printed[2];
  if (::pipe2(to_planner, O_CLOEXEC) != 0) throw std::runtime_error("no pipe for the planner");
  if (::pipe2(from_planner, O_CLOEXEC) != 0) {
    ::close(to_planner[0]);
    ::close(to_planner[1]);
    throw std::runtime_error("no pipe for the planner");
  }
  if (::pipe2(printed, O_CLOEXEC) != 0) {
    for (int fd : {to_planner[0], to_planner[1], from_planner[0], from_planner[1]}) ::close(fd);
    throw std::runtime_error("no pipe for the planner");
  }
  std::vector<char*> argv;
  for (const std::string& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ == 0) {
    // The protocol on 3 and 4, and no other descriptor of the judge's, whether or not it was opened
    // close-on-exec (a step's rows arrive on an inherited one). The pipes may be 3 or 4 already:
    // moved above them first, so that dup2 never copies onto itself (which would leave close-on-exec
    // set) or onto the other pipe.
    ::setpgid(0, 0);  // a group of its own, which everything it starts joins unless it leaves
    const int requests = ::fcntl(to_planner[0], F_DUPFD_CLOEXEC, 10), plans = ::fcntl(from_planner[1], F_DUPFD_CLOEXEC, 10);
    if (requests < 0 || plans < 0 || ::dup2(requests, 3) < 0 || ::dup2(plans, 4) < 0) ::_exit(127);
    if (::dup2(printed[1], 1) < 0 || ::dup2(printed[1], 2) < 0) ::_exit(127);  // its prints: to the judge, labelled
    if (::syscall(SYS_close_range, 5u, ~0u, 0u) != 0) ::_exit(127);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  if (pid_ > 0) {
    ::setpgid(pid_, pid_);  // as the child does, so that the group exists whichever runs first
    group_ = pid_;
  }
  ::close(to_planner[0]);
  ::close(from_planner[1]);
  ::close(printed[1]);
  output_ = printed[0];
  reader_ = std::thread([this] {
    char chunk[4096];
    for (;;) {
      // Asked every 50 ms whether the processes are over: a process that would not die must not
      // keep the judge waiting for the end of the pipe.
      pollfd ready{output_, POLLIN, 0};
      const int found = ::poll(&ready, 1, 50);
      if (found == 0 && stop_reading_) return;
      if (found <= 0) continue;
      const ssize_t n = ::read(output_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // every process of theirs has closed it
      printed_bytes_ += static_cast<std::size_t>(n);
      if (printed_.size() < kShownOutputBytes)
        printed_.append(chunk, std::min(static_cast<std::size_t>(n), kShownOutputBytes - printed_.size()));
    }
  });
  requests_ = to_planner[1];
  plans_ = from_planner[0];
  if (pid_ < 0) {
    close_if_open(requests_);
    close_if_open(plans_);
    show_output();  // the pipe's only writer is gone: the reader ends at once
    throw std::runtime_error("the planner could not be started");
  }
}

PlannerProcess::~PlannerProcess() {
  close_if_open(requests_);  // the planner's loop ends at the end of its requests
  close_if_open(plans_);
  if (pid_ > 0) {
    bool ended = false;
    for (int waited_ms = 0; waited_ms < 1000 && !ended; waited_ms += 10) {
      ended = ::waitpid(pid_, nullptr, WNOHANG) == pid_;
      if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!ended) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  if (group_ > 0) ::kill(-group_, SIGKILL);  // what it started and left in its group
  end_every_child();  // and what left the group, adopted as orphans (adopt_what_planners_leave())
  show_output();
}

void PlannerProcess::show_output() {
  stop_reading_ = true;  // every writer has ended (or would not): what is in the pipe is read, then no more
  if (reader_.joinable()) reader_.join();
  close_if_open(output_);
  if (printed_bytes_ == 0) return;
  std::cout << "[workbook] what your file's host code printed (each line after \"| \"; the grader's own lines never "
               "start so):\n";
  std::istringstream lines(printed_);
  for (std::string line; std::getline(lines, line);) std::cout << "| " << line << '\n';
  if (printed_bytes_ > printed_.size())
    std::cout << "[workbook] and " << printed_bytes_ - printed_.size() << " bytes more, not shown (at most "
              << kShownOutputBytes << " are)\n";
  std::cout.flush();
}

std::string PlannerProcess::how_it_ended() {
  int status = 0;
  if (pid_ <= 0 || ::waitpid(pid_, &status, 0) != pid_) return "it ended";
  pid_ = -1;
  if (WIFSIGNALED(status))
    return "it was ended by signal " + std::to_string(WTERMSIG(status)) + " (" + ::strsignal(WTERMSIG(status)) + ")";
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return "it could not be started";
  return "it exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

void throw_failure_of(const plan::Plan& plan) {
  if (plan.not_implemented) throw NotImplemented(plan.failure);
  if (!plan.failure.empty()) throw std::runtime_error(plan.failure);
}

const plan::Bytes& answer_of(const plan::Plan& plan, const std::string& function, std::size_t bytes) {
  throw_failure_of(plan);
  if (!plan.operations.empty())
    throw std::runtime_error(function + " launched work on the GPU, but it only computes an answer on the host");
  if (plan.answer.size() != bytes)
    throw std::runtime_error(function + " answered " + std::to_string(plan.answer.size()) + " bytes, not the " +
                             std::to_string(bytes) + " of its result");
  return plan.answer;
}

std::string fault_of(const plan::Plan& plan, const std::string& function, const std::vector<plan::Buffer>& given,
                     const plan::DeviceLimits& limits, const plan::ParameterSizes& parameter_sizes) {
  const std::string fault = plan::defect(plan, given, limits, parameter_sizes);
  return fault.empty() ? "" : function + " asked for what the grader does not run: " + fault;
}

plan::Plan PlannerProcess::call(const plan::Request& request) {
  const std::string while_planning = "the planner (your file's host code) stopped while " + request.function + " ran: ";
  if (pid_ <= 0) throw std::runtime_error(while_planning + "it had already ended");
  std::optional<std::string> message;
  try {
    plan::send_message(requests_, plan::encode(request));
    // Not waited for once it has ended, even where a process it started holds the pipe open.
    message = plan::receive_message(plans_, [this] {
      siginfo_t ended{};
      return ::waitid(P_PID, static_cast<id_t>(pid_), &ended, WEXITED | WNOHANG | WNOWAIT) == 0 && ended.si_pid == 0;
    });
  } catch (const std::runtime_error&) {
    message.reset();
  }
  if (!message) throw std::runtime_error(while_planning + how_it_ended());
  try {
    return plan::decode_plan(*message);
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error("the planner answered " + request.function + " with something that is not a plan (" +
                             error.what() + ")");
  }
}

}  // namespace workbook
