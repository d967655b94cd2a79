// The judge: a step's process that grades a student's file without linking any of its host code
// (the trust boundary, docs/integrity.md part 1). It is the lab's grader as always, with one difference:
// the functions of the lab's interface are stand-ins (judged calls, which the build writes
// from the header's TODO(NN.k) lines: grader/protocol/student_functions.cpp), each of which asks the student's planner
// (planner_process.h) for its plan, checks it (plan::defect(): the student's own kernels, argument sizes, device
// limits, uploads and fills only into the outputs and workspaces the grader gave) and replays it (replay.h) with the
// student's kernels, loaded from their object file. Each replayed launch is recorded in the launch
// log as workbook::launch() records one, so every defence of the skeleton reads it as it reads a linked grader's
// launches.
//
// A plan is asked for once per problem (function and argument bytes) and replayed for every call of
// the same problem; before anything is timed the planner is ended (plan_ahead()), so that nothing of
// the student's host code runs while the grader measures. What is timed is planned afresh there,
// never replayed from a correctness case whose arrays lay at the same addresses (plan::Book).
#pragma once

#include <cuda_runtime_api.h>

#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "harness/judged_code.h"
#include "judge/planner_process.h"
#include "judge/replay.h"
#include "protocol/plan.h"

namespace workbook {

class Judge final : public JudgedCode {
 public:
  // `planner`: the student's planner binary (plan_NN_topic_<implementation>); `device_code`: the
  // files whose GPU code is the student's (their object, the lab's given code). Loads the kernels.
  Judge(std::string planner, const std::vector<std::string>& device_code);
  // With no GPU (--plan-check): no kernels are loaded, the planner's questions are answered from the
  // described GPU (described_device.h), and plans are checked, never replayed.
  struct WithoutGpu {};
  Judge(std::string planner, WithoutGpu);

  // One call of a launcher: its plan for these argument bytes, replayed on `stream`.
  void launch(const std::string& function, const plan::Bytes& arguments, cudaStream_t stream);
  // One call of a host-only function (a workspace size, 01.3's calculator): its answer's bytes.
  plan::Bytes answer(const std::string& function, const plan::Bytes& arguments, std::size_t answer_bytes);

  // Forgets the correctness cases' plans, runs `body`, in which every launch only gets its plan
  // (nothing is replayed), then ends the planner: the grader calls it with one call of what it is
  // about to time. Called again for what was planned ahead, it finds those plans kept.
  void plan_ahead(const std::function<void()>& body) override;

  bool last_call_launched_nothing() const override { return last_call_launched_nothing_; }
  // StudentKernels::restore_globals(), its failure tagged [fresh-module].
  void reset_module(cudaStream_t stream) const override;
  std::optional<KernelResources> resources(const LaunchRecord& launch) const override {
    return kernels_ ? kernels_->resources(launch) : std::nullopt;
  }

 private:
  const plan::Plan& plan_of(const std::string& function, const plan::Bytes& arguments);
  PlannerProcess& planner();
  plan::Reply answer_without_gpu(const plan::Question& question);

  std::string planner_binary_;
  std::unique_ptr<StudentKernels> kernels_;  // null without a GPU
  plan::DeviceLimits limits_;
  // Without a GPU: whether the plan being made asked what only a GPU answers, and the problems
  // whose plans failed after such a question (their failure says nothing of the student's code).
  bool asked_what_only_a_gpu_knows_ = false;
  std::set<plan::Book::Key> needed_a_gpu_;
  std::unique_ptr<PlannerProcess> planner_;
  plan::Book plans_;
  bool only_planning_ = false;
  bool last_call_launched_nothing_ = false;
};

// The step's judge, or null where the grader links the student's code itself (grade_NN_topic_<kind>):
// what the lab's judged calls (below) go to. The grading code has it as session().judged.
Judge* judge();
// main.cpp, given --planner and --device-code: from now on the lab's judged calls go to this judge,
// and the session's grading code asks it (session().judged). Also points the machine-code checks at
// the student's files and the build's dumps of them (--sass: `sass`, one for each file, "" where none).
void start_judging(const std::string& planner, const std::vector<std::string>& device_code,
                   const std::vector<std::string>& sass);
// The same with no GPU, for --plan-check: the judge's calls go to a Judge(planner, WithoutGpu).
void start_judging_without_gpu(const std::string& planner);
// Why this judge grades nothing ("" where it may): the file is someone else's (the runner set
// WORKBOOK_CONFINEMENT_REQUIRED=1 for a submission) and this system has no Landlock, so its planner
// could read whatever the grading user may, the instructor's solutions and a class's files included.
std::string confinement_refusal();

// What the build's stand-in for each function of a lab's interface holds, e.g.
//   auto memory_lab::copy_float4(const CopyProblem& problem, cudaStream_t stream) -> void {
//     workbook::judged_launch(__func__, stream, problem);
//   }
// `function` is always __func__, the stand-in's own name, which is the student's function's: the
// planner plans the function of that name (WORKBOOK_STUDENT_FUNCTION, planner.h), so a stand-in can
// never ask for another step's launcher.
template <typename... Arguments>
void judged_launch(const char* function, cudaStream_t stream, const Arguments&... arguments) {
  if (judge() == nullptr) throw std::logic_error(std::string(function) + " was called in a grader that judges nothing");
  judge()->launch(function, encode_arguments(arguments...), stream);
}

template <typename Result, typename... Arguments>
Result judged_answer(const char* function, const Arguments&... arguments) {
  static_assert(std::is_trivially_copyable_v<Result>, "an answer crosses as bytes");
  if (judge() == nullptr) throw std::logic_error(std::string(function) + " was called in a grader that judges nothing");
  const plan::Bytes bytes = judge()->answer(function, encode_arguments(arguments...), sizeof(Result));
  Result result;
  std::memcpy(&result, bytes.data(), sizeof(Result));
  return result;
}

}  // namespace workbook
