// The judge's handle on a planner (planner.h): a process of its own, started from the planner
// binary of the student's file, to which the judge sends each request and from which it reads each
// plan. The protocol runs on the planner's descriptors 3 (requests) and 4 (plans), so that what the
// student's code prints on its standard output and error reaches the step's log and never the plans.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "protocol/arguments.h"
#include "protocol/as_data.h"
#include "protocol/plan.h"
#include "workbook/cuda.h"

namespace workbook {

// At most this much of what a student's host code, or their kernels, print is shown in a step's log.
inline constexpr std::size_t kShownOutputBytes = 64 * 1024;

// Shows what the student's `whose` ("host code", "kernels") printed, `kept` of `printed_bytes` in
// all, on std::cout: each line after "| ", which no line of the grader's starts with, and written as
// data (text_as_data(), as_data.h), and how much more there was. Nothing when nothing was printed.
void show_students_output(const std::string& whose, const std::string& kept, std::size_t printed_bytes);

class PlannerProcess {
 public:
  // What the judge answers a planner's question (plan::Question: what the CUDA runtime would answer
  // with a GPU, which a planner does not have); it throws nothing. Without one, every question is
  // answered "no device".
  using Answerer = std::function<plan::Reply(const plan::Question&)>;
  // Starts `command` (the planner binary and its arguments), closed to the GPU: it and every process
  // it starts may make no ioctl (the driver's only way in), no ptrace, no io_uring and no socket; with
  // Landlock they read only what_a_planner_may_read() and write only in the working folder; and, where
  // the kernel lends user namespaces, they live in a PID namespace whose first process is the planner.
  // Throws std::runtime_error when it cannot be started.
  explicit PlannerProcess(const std::vector<std::string>& command, Answerer answer = {});
  // Ends the planner (closes its requests, then kills it if it lingers), and then every process it
  // started: its process group, and whatever reached this process as an orphan (see
  // adopt_what_planners_leave()), each killed and reaped. Nothing of the student's runs after it.
  ~PlannerProcess();
  // The same, now: "" when nothing of the planner's was left, or why something would not end (said
  // on std::cout too). Once; the destructor then does nothing more.
  std::string end();
  // Whether the planner lives in a PID namespace of its own (all its processes end with it).
  bool contained() const { return contained_; }
  PlannerProcess(const PlannerProcess&) = delete;
  PlannerProcess& operator=(const PlannerProcess&) = delete;

  // The plan for one request. Throws std::runtime_error, saying how the planner ended, when it ends
  // or sends something that is not a plan instead.
  plan::Plan call(const plan::Request& request);

 private:
  std::string how_it_ended();
  Answerer answer_;
  pid_t pid_ = -1, group_ = -1;
  bool contained_ = false;
  int requests_ = -1, plans_ = -1;
  // What the student's code prints (the planner's standard output and error, and its children's):
  // read as it comes, kept up to kShownOutputBytes, and shown labelled once every process of
  // theirs has ended (show_output()), never as the grader's own lines.
  int output_ = -1;
  std::thread reader_;
  std::atomic<bool> stop_reading_{false};
  std::string printed_;
  std::size_t printed_bytes_ = 0;
  void show_output();
  // The thread that keeps what the planner and its processes print, up to kShownOutputBytes.
  void start_reading_prints();
};

// The Landlock ABI this kernel offers (0: none). With one, a planner and every process it starts
// may write only under its working folder and /dev/null, and signal nothing outside them; without
// one they may write wherever the grader's user may (the judge says so, once: judge.cpp).
int landlock_version();
// The folders a planner may read, with Landlock: the system's (/usr, /lib*, /bin, /sbin, /etc, /dev,
// /proc, /sys) and the CUDA toolkit's libraries, less any private folder inside them: the checkout
// this program was built in, and the folders WORKBOOK_PRIVATE_FOLDERS lists (':' between them; the
// runner names its results/ and a class's folder there). Its working folder and its own binary are
// added by the planner's start.
std::vector<std::string> what_a_planner_may_read();

// Makes this process the reaper of every orphan among its descendants (PR_SET_CHILD_SUBREAPER):
// a process a planner starts and leaves behind (a double fork, a new session) becomes this process's
// child, and ~PlannerProcess() ends it, before anything is timed. The judge calls it once at start.
void adopt_what_planners_leave();
// Kills and reaps every child of this process, and the children that reach it as those die; "" or
// why some would not end within a few seconds. So one planner at a time: ending one ends all.
std::string end_every_child();

// What a function of the lab that only computes on the host returns (a workspace size, 01.3's
// occupancy), asked of the planner: none of the student's code runs in the judge. Its failure is
// thrown again here: NotImplemented for a TODO, std::runtime_error otherwise. A plan that launches
// anything, or an answer of another size, is an error of the student's file.
template <typename Result, typename... Arguments>
Result planned_answer(PlannerProcess& planner, const std::string& function, const Arguments&... arguments);

// The checks of a plan that both the helpers below and the judge (judge.h, which keeps plans) make:
// - throw_failure_of(): what the student's code threw while planning, thrown again (NotImplemented
//   for a TODO, std::runtime_error otherwise);
// - answer_of(): a host-only function's answer, after throw_failure_of(), refused when the plan
//   launched anything or the answer is not `bytes` long;
// - fault_of(): "" when plan::defect() finds nothing, else "FUNCTION asked for what the grader does
//   not run: ..." in words a student can act on.
void throw_failure_of(const plan::Plan& plan);
const plan::Bytes& answer_of(const plan::Plan& plan, const std::string& function, std::size_t bytes);
std::string fault_of(const plan::Plan& plan, const std::string& function, const std::vector<plan::Buffer>& given,
                     const plan::DeviceLimits& limits, const plan::ParameterSizes& parameter_sizes);

// A launcher's plan for one call, asked of the planner and checked before anything of it runs:
// what it threw is thrown again (NotImplemented for a TODO), and a plan that plan::defect() finds
// fault with (a kernel not in the student's object, arguments of other sizes, a shape the GPU cannot
// run, a copy or fill outside `given`) throws std::runtime_error naming the function and the fault.
// What is returned may be replayed (replay.h) on the judge's stream.
template <typename... Arguments>
plan::Plan checked_plan(PlannerProcess& planner, const std::string& function, const std::vector<plan::Buffer>& given,
                        const plan::DeviceLimits& limits, const plan::ParameterSizes& parameter_sizes,
                        const Arguments&... arguments);

template <typename Result, typename... Arguments>
Result planned_answer(PlannerProcess& planner, const std::string& function, const Arguments&... arguments) {
  static_assert(std::is_trivially_copyable_v<Result>, "an answer crosses as bytes");
  const plan::Plan plan = planner.call({function, encode_arguments(arguments...)});
  Result result;
  std::memcpy(&result, answer_of(plan, function, sizeof(Result)).data(), sizeof(Result));
  return result;
}

template <typename... Arguments>
plan::Plan checked_plan(PlannerProcess& planner, const std::string& function, const std::vector<plan::Buffer>& given,
                        const plan::DeviceLimits& limits, const plan::ParameterSizes& parameter_sizes,
                        const Arguments&... arguments) {
  plan::Plan plan = planner.call({function, encode_arguments(arguments...)});
  throw_failure_of(plan);
  if (const std::string fault = fault_of(plan, function, given, limits, parameter_sizes); !fault.empty())
    throw std::runtime_error(fault);
  return plan;
}

}  // namespace workbook
