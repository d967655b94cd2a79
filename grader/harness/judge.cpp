#include "judge.h"

#include <sys/prctl.h>

#include <algorithm>
#include <variant>

#include "buffers.h"
#include "defences.h"
#include "machine_code.h"
#include "workbook/cuda.h"
#include "workbook/launch_log.h"

namespace workbook {

namespace {

std::unique_ptr<Judge>& the_judge() {
  static std::unique_ptr<Judge> judge;
  return judge;
}

plan::DeviceLimits limits_of_this_device() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  plan::DeviceLimits limits;
  limits.max_threads_per_block = static_cast<std::uint32_t>(p.maxThreadsPerBlock);
  limits.max_block = {static_cast<std::uint32_t>(p.maxThreadsDim[0]), static_cast<std::uint32_t>(p.maxThreadsDim[1]),
                      static_cast<std::uint32_t>(p.maxThreadsDim[2])};
  limits.max_grid = {static_cast<std::uint32_t>(p.maxGridSize[0]), static_cast<std::uint32_t>(p.maxGridSize[1]),
                     static_cast<std::uint32_t>(p.maxGridSize[2])};
  limits.max_dynamic_shared_bytes = static_cast<std::uint32_t>(p.sharedMemPerBlockOptin);
  return limits;
}

}  // namespace

Judge::Judge(std::string planner, const std::vector<std::string>& device_code)
    : planner_binary_(std::move(planner)), kernels_(device_code), limits_(limits_of_this_device()) {
  // Started now, not at the first call: its start-up (its program loaded; no CUDA context, which it
  // makes only if a launcher asks the runtime something) overlaps the judge's own, before anything is
  // timed, instead of adding to every step's time.
  Judge::planner();
}

PlannerProcess& Judge::planner() {
  if (!planner_) planner_ = std::make_unique<PlannerProcess>(std::vector<std::string>{planner_binary_});
  return *planner_;
}

const plan::Plan& Judge::plan_of(const std::string& function, const plan::Bytes& arguments) {
  plan::Book::Key key{function, arguments};
  if (const plan::Plan* known = plans_.find(key)) return *known;
  plan::Plan plan = planner().call({function, arguments});
  if (plan.failure.empty()) {
    const plan::ParameterSizes sizes = [this](const std::string& name) { return kernels_.parameter_sizes(name); };
    if (std::string fault = fault_of(plan, function, writable_buffers(), limits_, sizes); !fault.empty()) {
      plan = {};
      plan.failure = std::move(fault);  // kept, and thrown again at every call of this problem
    }
  }
  return plans_.keep(std::move(key), std::move(plan), /*for_timing=*/only_planning_);
}

void Judge::launch(const std::string& function, const plan::Bytes& arguments, cudaStream_t stream) {
  const plan::Plan& plan = plan_of(function, arguments);
  throw_failure_of(plan);
  if (!plan.answer.empty()) throw std::runtime_error(function + " returned a value, but it is a launcher");
  last_call_launched_nothing_ = std::none_of(plan.operations.begin(), plan.operations.end(), [](const plan::Operation& o) {
    return std::holds_alternative<plan::KernelLaunch>(o);
  });
  if (only_planning_) return;
  kernels_.replay(plan, stream);
  // Recorded as workbook::launch() records a launch, for the skeleton's defences and resources.
  for (const plan::Operation& operation : plan.operations)
    if (const auto* launched = std::get_if<plan::KernelLaunch>(&operation)) {
      LaunchRecord record;
      record.kernel = kernels_.kernel(launched->kernel);
      record.grid = dim3(launched->grid.x, launched->grid.y, launched->grid.z);
      record.block = dim3(launched->block.x, launched->block.y, launched->block.z);
      record.dynamic_shared_bytes = launched->dynamic_shared_bytes;
      record.stream = stream;
      for (const plan::Bytes& argument : launched->arguments) record.arguments.emplace_back(argument.begin(), argument.end());
      recorded_launches().push_back(std::move(record));
    }
}

plan::Bytes Judge::answer(const std::string& function, const plan::Bytes& arguments, std::size_t answer_bytes) {
  return answer_of(plan_of(function, arguments), function, answer_bytes);
}

void Judge::plan_ahead(const std::function<void()>& body) {
  plans_.forget_untimed();  // the correctness cases': made before the timed arrays existed
  only_planning_ = true;
  try {
    body();
  } catch (...) {
    only_planning_ = false;
    planner_.reset();
    throw;
  }
  only_planning_ = false;
  planner_.reset();
}

Judge* judge() { return the_judge().get(); }

void reset_student_module(cudaStream_t stream) {
  if (judge() == nullptr) return;
  try {
    judge()->kernels().restore_globals(stream);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(tagged(Defence::kFreshModule, e.what()));
  }
}

void start_judging(const std::string& planner, const std::vector<std::string>& device_code) {
  // The planner runs as the judge's user: undumpable, the judge's memory and descriptors are closed
  // to it (no ptrace, no /proc/<judge>/mem or /fd), as to any process of that user but root.
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) throw std::runtime_error("the judge could not close itself to its planner");
  // Whatever a planner starts and leaves behind is the judge's to end before anything is timed
  // (issue 62: a process left running contended for the GPU while the baseline was timed).
  adopt_what_planners_leave();
  // No device heap: a kernel's malloc() returns null, so no allocation of one call's is left for the
  // next to find ([fresh-module]). No lab needs one; printf's buffer is not the heap.
  if (cudaDeviceSetLimit(cudaLimitMallocHeapSize, 0) != cudaSuccess) cudaGetLastError();  // a runtime that keeps a heap: no error left behind
  the_judge() = std::make_unique<Judge>(planner, device_code);
  machine_code_files() = device_code;
}

}  // namespace workbook
