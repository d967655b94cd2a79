#include "planner/planner.h"

#include <exception>
#include <optional>
#include <stdexcept>
#include <string>

namespace workbook {

namespace {

// The protocol's pipes: the requests (and the judge's replies) come in on one, the plans (and the
// planner's questions) go out on the other. 3 and 4 in a planner (planner_main.cpp), from its start.
struct JudgeChannel {
  int in = 3, out = 4;
};
JudgeChannel& judge_channel() {
  static JudgeChannel channel;
  return channel;
}

}  // namespace

plan::Reply ask_the_judge(const plan::Question& question) {
  try {
    plan::send_message(judge_channel().out, plan::encode(question));
    if (const std::optional<std::string> reply = plan::receive_message(judge_channel().in))
      return plan::decode_reply(*reply);
  } catch (const std::exception&) {
  }
  return {static_cast<std::int32_t>(cudaErrorNoDevice), {}};
}

std::unordered_map<const void*, std::string>& registered_kernels() {
  static std::unordered_map<const void*, std::string> kernels;  // filled before main, so made on first use
  return kernels;
}

std::string kernel_name(const void* kernel) {
  if (const auto registered = registered_kernels().find(kernel); registered != registered_kernels().end())
    return registered->second;
  // Not a kernel nvcc registered (an address that is no kernel's, or a program linked without the
  // wrap): the runtime's answer, which starts CUDA in this process.
  const char* name = nullptr;
  if (cudaFuncGetName(&name, kernel) != cudaSuccess || name == nullptr) {
    (void)cudaGetLastError();  // the failed query is not the next call's error
    throw std::runtime_error("a recorded launch's kernel has no name the CUDA runtime knows");
  }
  return name;
}

std::vector<RecordedCopy>& recorded_copies() {
  static std::vector<RecordedCopy> copies;
  return copies;
}

plan::Plan plan_of_recorded_launches(const KernelNamer& name_of) {
  plan::Plan plan;
  std::size_t copy = 0;
  const auto copies_until = [&](std::size_t launches) {
    for (; copy < recorded_copies().size() && recorded_copies()[copy].after_launches <= launches; ++copy)
      plan.operations.push_back(recorded_copies()[copy].operation);
  };
  for (const LaunchRecord& record : recorded_launches()) {
    copies_until(plan.operations.size() - copy);  // the copies asked for before this launch
    plan::KernelLaunch launch;
    launch.kernel = name_of(record.kernel);
    launch.grid = {record.grid.x, record.grid.y, record.grid.z};
    launch.block = {record.block.x, record.block.y, record.block.z};
    launch.dynamic_shared_bytes = static_cast<std::uint32_t>(record.dynamic_shared_bytes);
    for (const std::vector<unsigned char>& argument : record.arguments)
      launch.arguments.emplace_back(argument.begin(), argument.end());
    plan.operations.emplace_back(std::move(launch));
  }
  copies_until(recorded_launches().size());
  return plan;
}

void serve_plans(int in, int out, const std::vector<StudentFunction>& functions, cudaStream_t stream,
                 const KernelNamer& name_of) {
  judge_channel() = {in, out};
  while (const std::optional<std::string> message = plan::receive_message(in)) {
    const plan::Request request = plan::decode_request(*message);
    const StudentFunction* called = nullptr;
    for (const StudentFunction& function : functions)
      if (function.name == request.function) called = &function;
    if (called == nullptr)
      throw std::runtime_error("the judge asked for " + request.function + ", which this lab does not have");
    plan::send_message(out, plan::encode(called->plan_call(request.problem, stream, name_of)));
  }
}

}  // namespace workbook
