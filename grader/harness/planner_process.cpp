#include "planner_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

namespace workbook {

namespace {

void close_if_open(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

PlannerProcess::PlannerProcess(const std::vector<std::string>& command) {
  if (command.empty()) throw std::logic_error("a planner needs a command");
  ::signal(SIGPIPE, SIG_IGN);  // a planner that died makes a write fail, not end the judge
  int to_planner[2], from_planner[2];
  if (::pipe2(to_planner, O_CLOEXEC) != 0) throw std::runtime_error("no pipe for the planner");
  if (::pipe2(from_planner, O_CLOEXEC) != 0) {
    ::close(to_planner[0]);
    ::close(to_planner[1]);
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
    const int requests = ::fcntl(to_planner[0], F_DUPFD_CLOEXEC, 10), plans = ::fcntl(from_planner[1], F_DUPFD_CLOEXEC, 10);
    if (requests < 0 || plans < 0 || ::dup2(requests, 3) < 0 || ::dup2(plans, 4) < 0) ::_exit(127);
    if (::syscall(SYS_close_range, 5u, ~0u, 0u) != 0) ::_exit(127);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(to_planner[0]);
  ::close(from_planner[1]);
  requests_ = to_planner[1];
  plans_ = from_planner[0];
  if (pid_ < 0) {
    close_if_open(requests_);
    close_if_open(plans_);
    throw std::runtime_error("the planner could not be started");
  }
}

PlannerProcess::~PlannerProcess() {
  close_if_open(requests_);  // the planner's loop ends at the end of its requests
  close_if_open(plans_);
  if (pid_ <= 0) return;
  for (int waited_ms = 0; waited_ms < 1000; waited_ms += 10) {
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
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
    message = plan::receive_message(plans_);
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
