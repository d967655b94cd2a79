// What the step grading asks of the judge, the whole of it: the judge (grader/judge/judge.h) runs
// the graded file's host code in a planner and replays its plans, and the grading code knows it only
// through this interface, which main() gives the session (session().judged) when it judges. Where
// the grader links the file itself (grade_NN_topic_<kind>: the reference solutions, --linked) there
// is none, and the grading code calls the launchers directly.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <optional>
#include <stdexcept>

#include "harness/resources.h"
#include "workbook/launch_log.h"

namespace workbook {

// Thrown, with no GPU (--plan-check), for a call whose launcher failed after it asked what only a GPU
// answers (a kernel's attributes or occupancy, a tensor map): what it would do on one is not known.
struct NeedsAGpu : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class JudgedCode {
 public:
  virtual ~JudgedCode() = default;
  // Runs `calls` (one call of each thing about to be timed) only planning, then ends the student's
  // planner: none of their host code runs while anything is timed.
  virtual void plan_ahead(const std::function<void()>& calls) = 0;
  // Whether the last launcher call's plan launched no kernel: its output, if wrong, was never
  // computed here (a kernel launched past workbook::launch is not in a plan).
  virtual bool last_call_launched_nothing() const = 0;
  // [fresh-module]: the student's GPU code as it was loaded, its `__device__` variables set back to
  // their first values, on `stream`, untimed. Throws, tagged [fresh-module], where it cannot.
  virtual void reset_module(cudaStream_t stream) const = 0;
  // A replayed launch's resources, asked of the driver that loaded the student's kernels; nothing
  // for a launch of the grader's own.
  virtual std::optional<KernelResources> resources(const LaunchRecord& launch) const = 0;
};

}  // namespace workbook
