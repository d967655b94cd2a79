#include "judge/judge.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <ext/stdio_filebuf.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <variant>

#include "audit/machine_code.h"
#include "harness/buffers.h"
#include "harness/defences.h"
#include "harness/described_device.h"
#include "harness/session.h"
#include "protocol/as_data.h"
#include "workbook/cuda.h"
#include "workbook/launch_log.h"

namespace workbook {

namespace {

std::unique_ptr<Judge>& the_judge() {
  static std::unique_ptr<Judge> judge;
  return judge;
}

plan::DeviceLimits limits_of(const cudaDeviceProp& p) {
  plan::DeviceLimits limits;
  limits.max_threads_per_block = static_cast<std::uint32_t>(p.maxThreadsPerBlock);
  limits.max_block = {static_cast<std::uint32_t>(p.maxThreadsDim[0]), static_cast<std::uint32_t>(p.maxThreadsDim[1]),
                      static_cast<std::uint32_t>(p.maxThreadsDim[2])};
  limits.max_grid = {static_cast<std::uint32_t>(p.maxGridSize[0]), static_cast<std::uint32_t>(p.maxGridSize[1]),
                     static_cast<std::uint32_t>(p.maxGridSize[2])};
  limits.max_dynamic_shared_bytes = static_cast<std::uint32_t>(p.sharedMemPerBlockOptin);
  return limits;
}

plan::DeviceLimits limits_of_this_device() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  return limits_of(p);
}

// Without a GPU the driver cannot say a kernel's parameters: each kernel of a plan is taken to have
// the parameters its launches pass (a launch through workbook::launch passes its kernel's own).
plan::ParameterSizes parameter_sizes_as_launched(const plan::Plan& plan) {
  return [&plan](const std::string& name) -> std::optional<std::vector<std::size_t>> {
    for (const plan::Operation& operation : plan.operations)
      if (const auto* launched = std::get_if<plan::KernelLaunch>(&operation); launched && launched->kernel == name) {
        std::vector<std::size_t> sizes;
        for (const plan::Bytes& argument : launched->arguments) sizes.push_back(argument.size());
        return sizes;
      }
    return std::nullopt;
  };
}

// What the student's kernels print with printf is theirs, not the grader's: the driver writes it to
// this process's standard output (descriptor 1) whenever the GPU hands it over, where it would pass
// for the grader's own lines in grade.log. So descriptor 1 becomes a pipe, drained by a thread of its
// own (a kernel that prints without end never blocks the judge), and what came through, at most
// kShownOutputBytes, is shown when the judge ends, each line after "| " as a planner's prints are;
// the grader's own output (std::cout, and doctest's through it) goes where descriptor 1 went.
struct KernelPrints {
  int pipe_out = -1;
  std::thread reader;
  std::string kept;
  std::size_t bytes = 0;
};
KernelPrints* kernel_prints = nullptr;  // never freed: it is read at exit, after static objects may be gone

void show_what_kernels_printed() {
  KernelPrints& prints = *kernel_prints;
  if (cudaDeviceSynchronize() != cudaSuccess) (void)cudaGetLastError();  // the last prints handed over
  std::fflush(stdout);
  ::close(1);  // the pipe's only writer: the reader reads to its end
  if (prints.reader.joinable()) prints.reader.join();
  show_students_output("kernels", prints.kept, prints.bytes);
}

void label_what_kernels_print() {
  std::cout.flush();
  std::fflush(stdout);
  int ends[2];
  const int grader_out = ::fcntl(1, F_DUPFD_CLOEXEC, 10);
  if (grader_out < 0 || ::pipe2(ends, O_CLOEXEC) != 0 || ::dup2(ends[1], 1) < 0)
    throw std::runtime_error("the judge could not set its standard output apart from the kernels' prints");
  ::close(ends[1]);
  // The grader's lines, each written as it is made (unitbuf), so that they and the kernels' keep their order.
  static auto* grader_lines = new __gnu_cxx::stdio_filebuf<char>(grader_out, std::ios::out);
  std::cout.rdbuf(grader_lines);
  std::cout.setf(std::ios::unitbuf);
  kernel_prints = new KernelPrints;
  kernel_prints->pipe_out = ends[0];
  kernel_prints->reader = std::thread([prints = kernel_prints] {
    char chunk[4096];
    for (;;) {
      const ssize_t n = ::read(prints->pipe_out, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      prints->bytes += static_cast<std::size_t>(n);
      if (prints->kept.size() < kShownOutputBytes)
        prints->kept.append(chunk, std::min(static_cast<std::size_t>(n), kShownOutputBytes - prints->kept.size()));
    }
  });
  std::atexit(show_what_kernels_printed);
}

}  // namespace

Judge::Judge(std::string planner, const std::vector<std::string>& device_code)
    : planner_binary_(std::move(planner)),
      kernels_(std::make_unique<StudentKernels>(device_code)),
      limits_(limits_of_this_device()) {
  // Started now, not at the first call: its start-up (its program loaded; no CUDA context, which it
  // cannot make) overlaps the judge's own, before anything is timed, instead of adding to every
  // step's time.
  Judge::planner();
}

Judge::Judge(std::string planner, WithoutGpu)
    : planner_binary_(std::move(planner)), limits_(limits_of(described_device())) {
  Judge::planner();
}

plan::Reply Judge::answer_without_gpu(const plan::Question& question) {
  using Kind = plan::Question::Kind;
  if (question.kind == Kind::kDeviceProperties) return {0, reply_bytes(described_device())};
  if (question.kind == Kind::kDeviceAttribute && question.numbers.size() == 1)
    if (const std::optional<int> value = described_attribute(static_cast<cudaDeviceAttr>(question.numbers[0])))
      return {0, reply_bytes(*value)};
  asked_what_only_a_gpu_knows_ = true;
  return {cudaErrorNoDevice, {}};
}

PlannerProcess& Judge::planner() {
  // Its questions (what the runtime would answer with a GPU: the planner has none) answered from the
  // student's kernels as loaded here.
  // A tensor map only of memory the grader gave this call (its inputs, outputs and workspace): the
  // copy engine reads and writes what a map describes, so a map elsewhere would be a pointer the
  // plan's checks never see.
  if (!planner_)
    planner_ = std::make_unique<PlannerProcess>(std::vector<std::string>{planner_binary_},
                                                [this](const plan::Question& question) {
                                                  if (question.kind == plan::Question::Kind::kTensorMap) {
                                                    plan::TensorMapArguments map;
                                                    if (question.bytes.size() != sizeof map)
                                                      return plan::Reply{1 /* cudaErrorInvalidValue */, {}};
                                                    std::memcpy(&map, question.bytes.data(), sizeof map);
                                                    if (!plan::tensor_map_outside(map, given_buffers()).empty())
                                                      return plan::Reply{1 /* cudaErrorInvalidValue */, {}};
                                                  }
                                                  if (!kernels_) return answer_without_gpu(question);
                                                  return kernels_->answer(question);
                                                });
  return *planner_;
}

const plan::Plan& Judge::plan_of(const std::string& function, const plan::Bytes& arguments) {
  plan::Book::Key key{function, arguments};
  if (const plan::Plan* known = plans_.find(key)) return *known;
  asked_what_only_a_gpu_knows_ = false;
  plan::Plan plan = planner().call({function, arguments});
  // What the launcher threw, as the student wrote it: the step's reason, and a line of the judge's
  // own output (doctest's), from here on. As data at the boundary it crossed, whoever writes it next.
  plan.failure = line_as_data(plan.failure);
  if (!plan.failure.empty() && !plan.not_implemented && asked_what_only_a_gpu_knows_) needed_a_gpu_.insert(key);
  if (plan.failure.empty()) {
    const plan::ParameterSizes sizes =
        kernels_ ? plan::ParameterSizes([this](const std::string& name) { return kernels_->parameter_sizes(name); })
                 : parameter_sizes_as_launched(plan);
    if (std::string fault = fault_of(plan, function, writable_buffers(), limits_, sizes); !fault.empty()) {
      plan = {};
      plan.failure = std::move(fault);  // kept, and thrown again at every call of this problem
    }
  }
  return plans_.keep(std::move(key), std::move(plan), /*for_timing=*/only_planning_);
}

void Judge::launch(const std::string& function, const plan::Bytes& arguments, cudaStream_t stream) {
  const plan::Plan& plan = plan_of(function, arguments);
  if (needed_a_gpu_.contains({function, arguments})) throw NeedsAGpu(plan.failure);
  throw_failure_of(plan);
  if (!plan.answer.empty()) throw std::runtime_error(function + " returned a value, but it is a launcher");
  last_call_launched_nothing_ =
      std::none_of(plan.operations.begin(), plan.operations.end(),
                   [](const plan::Operation& o) { return std::holds_alternative<plan::KernelLaunch>(o); });
  if (only_planning_ || !kernels_) return;
  kernels_->replay(plan, stream);
  // Recorded as workbook::launch() records a launch, for the skeleton's defences and resources.
  for (const plan::Operation& operation : plan.operations)
    if (const auto* launched = std::get_if<plan::KernelLaunch>(&operation)) {
      LaunchRecord record;
      record.kernel = kernels_->kernel(launched->kernel);
      record.grid = dim3(launched->grid.x, launched->grid.y, launched->grid.z);
      record.block = dim3(launched->block.x, launched->block.y, launched->block.z);
      record.dynamic_shared_bytes = launched->dynamic_shared_bytes;
      record.stream = stream;
      for (const plan::Bytes& argument : launched->arguments)
        record.arguments.emplace_back(argument.begin(), argument.end());
      recorded_launches().push_back(std::move(record));
    }
}

plan::Bytes Judge::answer(const std::string& function, const plan::Bytes& arguments, std::size_t answer_bytes) {
  const plan::Plan& plan = plan_of(function, arguments);
  if (needed_a_gpu_.contains({function, arguments})) throw NeedsAGpu(plan.failure);
  return answer_of(plan, function, answer_bytes);
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

void Judge::reset_module(cudaStream_t stream) const {
  try {
    if (kernels_) kernels_->restore_globals(stream);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(tagged(Defence::kFreshModule, e.what()));
  }
}

std::string confinement_refusal() {
  const char* required = std::getenv("WORKBOOK_CONFINEMENT_REQUIRED");
  if (required == nullptr || std::string(required) != "1" || landlock_version() > 0) return "";
  return "this system has no Landlock (Linux 5.13 or newer, with landlock among the kernel's security modules): a "
         "submission's host code could read the instructor's files and other students' work here, so no submission "
         "is graded on it. Grade submissions on a machine whose kernel has Landlock";
}

namespace {

// Before any planner starts, with or without a GPU. The planner runs as the judge's user: undumpable,
// the judge's memory and descriptors are closed to it (no ptrace, no /proc/<judge>/mem or /fd), as to
// any process of that user but root. Whatever a planner starts and leaves behind is the judge's to
// end (a process left running would contend for the GPU while the baseline is timed).
void close_the_judge_to_its_planners() {
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
    throw std::runtime_error("the judge could not close itself to its planner");
  adopt_what_planners_leave();
}

}  // namespace

void start_judging(const std::string& planner, const std::vector<std::string>& device_code,
                   const std::vector<std::string>& sass) {
  close_the_judge_to_its_planners();
  // Where the planner's reads and writes cannot be confined (no Landlock), whoever reads the log is
  // told; a submission is not graded there at all (confinement_refusal()).
  if (landlock_version() == 0 && confinement_refusal().empty())
    std::cout << "[workbook] this system has no Landlock (Linux 5.13 or newer): your file's host code, in its planner, "
                 "may read and write whatever the grading user may\n";
  label_what_kernels_print();
  // No device heap: a kernel's malloc() returns null, so no allocation of one call's is left for the
  // next to find ([fresh-module]). No lab needs one; printf's buffer is not the heap.
  if (cudaDeviceSetLimit(cudaLimitMallocHeapSize, 0) != cudaSuccess)
    cudaGetLastError();  // a runtime that keeps a heap: no error left behind
  the_judge() = std::make_unique<Judge>(planner, device_code);
  session().judged = the_judge().get();
  machine_code_files().clear();
  for (std::size_t i = 0; i < device_code.size(); ++i)
    machine_code_files().push_back({device_code[i], i < sass.size() ? sass[i] : ""});
}

void start_judging_without_gpu(const std::string& planner) {
  close_the_judge_to_its_planners();
  the_judge() = std::make_unique<Judge>(planner, Judge::WithoutGpu{});
  session().judged = the_judge().get();
}

}  // namespace workbook
