// The judge's handle on a planner (planner.h): a process of its own, started from the planner
// binary of the student's file, to which the judge sends each request and from which it reads each
// plan. The protocol runs on the planner's descriptors 3 (requests) and 4 (plans), so that what the
// student's code prints on its standard output and error reaches the step's log and never the plans.
#pragma once

#include <sys/types.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "plan.h"
#include "workbook/cuda.h"

namespace workbook {

class PlannerProcess {
 public:
  // Starts `command` (the planner binary and its arguments). Throws std::runtime_error when it cannot.
  explicit PlannerProcess(const std::vector<std::string>& command);
  ~PlannerProcess();  // ends the planner (closes its requests, then kills it if it lingers)
  PlannerProcess(const PlannerProcess&) = delete;
  PlannerProcess& operator=(const PlannerProcess&) = delete;

  // The plan for one request. Throws std::runtime_error, saying how the planner ended, when it ends
  // or sends something that is not a plan instead.
  plan::Plan call(const plan::Request& request);

 private:
  std::string how_it_ended();
  pid_t pid_ = -1;
  int requests_ = -1, plans_ = -1;
};

// What a function of the lab that only computes on the host returns (a workspace size, 01.3's
// occupancy), asked of the planner: none of the student's code runs in the judge. Its failure is
// thrown again here: NotImplemented for a TODO, std::runtime_error otherwise. A plan that launches
// anything, or an answer of another size, is an error of the student's file.
template <typename Result, typename... Arguments>
Result planned_answer(PlannerProcess& planner, const std::string& function, const Arguments&... arguments);

// A launcher's plan for one call, asked of the planner and checked before anything of it runs:
// what it threw is thrown again (NotImplemented for a TODO), and a plan that plan::defect() finds
// fault with (a kernel not in the student's object, arguments of other sizes, a shape the GPU cannot
// run, a copy or fill outside `given`) throws std::runtime_error naming the function and the fault.
// What is returned may be replayed (replay.h) on the judge's stream.
template <typename... Arguments>
plan::Plan checked_plan(PlannerProcess& planner, const std::string& function, const std::vector<plan::Buffer>& given,
                        const plan::DeviceLimits& limits, const plan::ParameterSizes& parameter_sizes,
                        const Arguments&... arguments);

}  // namespace workbook

#include "planner.h"  // encode_arguments()

namespace workbook {

template <typename Result, typename... Arguments>
Result planned_answer(PlannerProcess& planner, const std::string& function, const Arguments&... arguments) {
  static_assert(std::is_trivially_copyable_v<Result>, "an answer crosses as bytes");
  const plan::Plan plan = planner.call({function, encode_arguments(arguments...)});
  if (plan.not_implemented) throw NotImplemented(plan.failure);
  if (!plan.failure.empty()) throw std::runtime_error(plan.failure);
  if (!plan.operations.empty())
    throw std::runtime_error(function + " launched work on the GPU, but it only computes an answer on the host");
  if (plan.answer.size() != sizeof(Result))
    throw std::runtime_error(function + " answered " + std::to_string(plan.answer.size()) + " bytes, not the " +
                             std::to_string(sizeof(Result)) + " of its result");
  Result result;
  std::memcpy(&result, plan.answer.data(), sizeof(Result));
  return result;
}

}  // namespace workbook

namespace workbook {

template <typename... Arguments>
plan::Plan checked_plan(PlannerProcess& planner, const std::string& function, const std::vector<plan::Buffer>& given,
                        const plan::DeviceLimits& limits, const plan::ParameterSizes& parameter_sizes,
                        const Arguments&... arguments) {
  plan::Plan plan = planner.call({function, encode_arguments(arguments...)});
  if (plan.not_implemented) throw NotImplemented(plan.failure);
  if (!plan.failure.empty()) throw std::runtime_error(plan.failure);
  if (const std::string fault = plan::defect(plan, given, limits, parameter_sizes); !fault.empty())
    throw std::runtime_error(function + " asked for what the grader does not run: " + fault);
  return plan;
}

}  // namespace workbook
