// A step's kernels run once for `./workbook profile NN.k` (profile.h), under Nsight Compute: the
// judge replays the step's plan at its bar's first shape, once to warm up (module loading, first
// launches), then once between cudaProfilerStart() and cudaProfilerStop(), the range ncu profiles
// with --profile-from-start off. Nothing is timed or checked, and no row is written.
#pragma once

#include <cuda_profiler_api.h>

#include <iostream>
#include <string>

#include "harness/grade_step.h"
#include "harness/judged_code.h"
#include "harness/session.h"
#include "protocol/as_data.h"
#include "workbook/cuda.h"

namespace workbook {

template <typename Lab>
int profile_step(const std::string& id) {
  const auto said = [&](const std::string& why, int status) {
    std::cout << "[workbook] profile: " << why << '\n';
    return status;
  };
  const typename Lab::Step* found = find_step<Lab>(id);
  if (found == nullptr) return said(std::string(Lab::kName) + " has no step " + id, 2);
  const auto& step = *found;
  if (step.launcher == nullptr)
    return said(id + " runs no kernel of yours (it answers on the host): nothing to profile", 2);
  if (step.bar.empty())
    return said(id + " has no bar, so no shape to profile it at: its correctness cases are its measurement", 2);
  if (const std::string why = not_applicable_reason(step); !why.empty()) return said(id + " " + why, 2);
  if (!session().machine_refusal.empty()) return said(session().machine_refusal, 2);
  const auto condition = graded_requirement(step, 0).at;
  std::cout << "[workbook] profile: " << id << " at " << Lab::describe(step, condition) << '\n';
  const cudaStream_t stream = session().stream;
  const std::string failure = failure_of([&] {
    try {
      const auto timed = Lab::timed(condition);
      give_workspace(step, timed->problem, timed->arrays);
      // The plan is asked for once, and the planner ended, before anything runs (judge.h).
      if (JudgedCode* judged = session().judged) judged->plan_ahead([&] { step.launcher(timed->problem, stream); });
      step.launcher(timed->problem, stream);
      CUDA_CHECK(cudaStreamSynchronize(stream));
      CUDA_CHECK(cudaProfilerStart());
      step.launcher(timed->problem, stream);
      CUDA_CHECK(cudaStreamSynchronize(stream));
      CUDA_CHECK(cudaProfilerStop());
    } catch (const NotImplemented& todo) {
      return id + " is not written yet: " + line_as_data(todo.what());
    }
    return std::string();
  });
  if (!failure.empty()) return said(with_cuda_advice(failure, id), 1);
  return 0;
}

}  // namespace workbook
