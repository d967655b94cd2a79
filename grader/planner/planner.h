// The planner's side of the trust boundary (docs/integrity.md, part 1): the process that runs a student's
// host code, and only there. For each request of the judge it calls one function of the lab's
// interface with the request's arguments (their bytes; pointers are the judge's device addresses,
// plain numbers here), while workbook::launch() only records (launch_log.h's planning_launches()),
// and answers with the plan (plan.h): the launches, each kernel named as the driver names it, the
// value a host-only function returned, or what the function threw.
#pragma once

#include <cuda_runtime_api.h>

#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "protocol/arguments.h"
#include "protocol/plan.h"
#include "workbook/cuda.h"
#include "workbook/launch_log.h"

namespace workbook {

// A recorded kernel's name, as nvcc's start-up code registered it (registered_kernels()), else as
// cudaFuncGetName says; throws std::runtime_error where it has none.
std::string kernel_name(const void* kernel);
using KernelNamer = std::function<std::string(const void* kernel)>;

// Every __global__ function of the planner's program, by the address its launches name (its host
// stub), with the name its device code has: what nvcc's start-up code hands the CUDA runtime before
// main (__cudaRegisterFunction, which every planner links wrapped: planner_copies.cpp). Naming a
// kernel from here needs no CUDA context, where cudaFuncGetName makes one.
std::unordered_map<const void*, std::string>& registered_kernels();

// The uploads and fills a launcher asked for while planning (planner_copies.cpp, which every
// planner links with the linker's --wrap of cudaMemcpyAsync and cudaMemsetAsync), each with the
// number of launches recorded before it.
struct RecordedCopy {
  std::size_t after_launches = 0;
  plan::Operation operation;
};
std::vector<RecordedCopy>& recorded_copies();

// The launches recorded since the last clear_recorded_launches(), with the recorded copies in their
// places, as a plan, oldest first.
plan::Plan plan_of_recorded_launches(const KernelNamer& name_of = kernel_name);

// One function of a lab's interface, as the planner calls it.
struct StudentFunction {
  std::string name;
  std::function<plan::Plan(const plan::Bytes& arguments, cudaStream_t stream, const KernelNamer& name_of)> plan_call;
};

// student_function("copy_float4", copy_lab::copy_float4): decodes the arguments (the sizes must add
// up), calls it planning, and returns its launches, its value (for a function that returns one) or
// what it threw. A std::logic_error (not a plan) when the bytes are not its arguments. A lab's
// list of functions names each through WORKBOOK_STUDENT_FUNCTION (below), never by a string.
template <typename Result, typename... Parameters>
StudentFunction student_function(std::string name, Result (*function)(Parameters...)) {
  static_assert(std::is_void_v<Result> || std::is_trivially_copyable_v<Result>, "an answer crosses as bytes");
  return {name, [name, function](const plan::Bytes& bytes, cudaStream_t stream, const KernelNamer& name_of) {
            std::tuple<std::decay_t<Parameters>...> arguments;
            std::size_t at = 0;
            std::apply(
                [&](auto&... argument) {
                  const auto take = [&](auto& value) {
                    if constexpr (kIsStream<decltype(value)>) {
                      value = stream;
                    } else {
                      if (bytes.size() - at < sizeof(value)) throw std::logic_error(name + ": too few argument bytes");
                      std::memcpy(&value, bytes.data() + at, sizeof(value));
                      at += sizeof(value);
                    }
                  };
                  (take(argument), ...);
                },
                arguments);
            if (at != bytes.size()) throw std::logic_error(name + ": more argument bytes than its parameters take");
            plan::Plan plan;
            clear_recorded_launches();
            recorded_copies().clear();
            planning_launches() = true;
            try {
              if constexpr (std::is_void_v<Result>) {
                std::apply(function, arguments);
              } else {
                const Result value = std::apply(function, arguments);
                const auto* first = reinterpret_cast<const std::uint8_t*>(&value);
                plan.answer.assign(first, first + sizeof(Result));
              }
              planning_launches() = false;
              const plan::Bytes answer = std::move(plan.answer);
              plan = plan_of_recorded_launches(name_of);
              plan.answer = answer;
            } catch (const NotImplemented& error) {
              planning_launches() = false;
              plan = {};
              plan.failure = error.what();
              plan.not_implemented = true;
            } catch (const std::exception& error) {
              planning_launches() = false;
              plan = {};
              plan.failure = error.what();
            }
            clear_recorded_launches();
            recorded_copies().clear();
            return plan;
          }};
}

// "memory_lab::copy_float4" -> "copy_float4": the name a function of a lab's interface crosses by,
// as the judge's stand-in for it sends it (__func__, judge.h).
inline std::string unqualified(std::string_view qualified) {
  const std::size_t last = qualified.rfind("::");
  return std::string(last == std::string_view::npos ? qualified : qualified.substr(last + 2));
}

// One entry of a lab's list of functions (which the build writes from the header's TODO(NN.k) lines,
// grader/protocol/student_functions.cpp), made from the function itself: its name is the function's own,
// so an entry cannot plan one function under another's name, and a name that is no function of the
// interface does not compile. WORKBOOK_STUDENT_FUNCTION(memory_lab::copy_float4)
#define WORKBOOK_STUDENT_FUNCTION(function) ::workbook::student_function(::workbook::unqualified(#function), function)

// What the CUDA runtime would answer with a GPU, asked of the judge (plan::Question): the planner
// has none. Sent on the protocol's pipes between a request and its plan (the judge answers while it
// waits for the plan, and before its first request, a question asked before main() waits for it).
// A reply with cudaErrorNoDevice when no judge answers (the pipes have closed).
plan::Reply ask_the_judge(const plan::Question& question);

// The lab's functions, as the list the build writes from its header declares them: what a planner serves.
const std::vector<StudentFunction>& lab_functions();

// The planner's loop: each request read from `in` answered with its plan on `out`, until `in`
// ends (returns). A request for a function not in `functions`, or malformed, ends it with
// std::runtime_error: the judge only sends well-formed requests for the lab's own functions.
void serve_plans(int in, int out, const std::vector<StudentFunction>& functions, cudaStream_t stream,
                 const KernelNamer& name_of = kernel_name);

}  // namespace workbook
