// Pieces every lab's grader uses the same way: turning what a launcher throws into a step's
// failure, remembering what the candidate launched while it is timed, and filling the report's
// resource columns.
#pragma once

#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "report.h"
#include "resources.h"
#include "session.h"
#include "timing.h"
#include "workbook/cuda.h"
#include "workbook/launch_log.h"

namespace workbook {

// Runs `body` (which returns "" or why the step fails) and turns whatever a student's launcher
// throws into the reason the step fails: an open TODO, a CUDA error, a refused shape.
template <typename Body>
std::string failure_of(Body&& body) {
  try {
    return body();
  } catch (const NotImplemented& e) {
    return e.what();
  } catch (const CudaError& e) {
    return std::string("CUDA error: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("the launcher threw: ") + e.what();
  }
}

// The candidate's timed call, wrapped so that afterwards `launches` holds the kernels its latest
// call launched through workbook::launch(), oldest first, whatever the other works timed beside it
// launch after it. The grader picks the step's own kernel from them once the timing is over.
inline GpuWork recording_launches(GpuWork candidate, std::vector<LaunchRecord>& launches) {
  return [candidate = std::move(candidate), &launches](cudaStream_t stream) {
    clear_recorded_launches();
    candidate(stream);
    launches = recorded_launches();
  };
}

// The kernel a step is about, among those its launcher launched (nullopt: none): the one holding
// the most registers per thread, the first of them on a tie. A step may launch helpers beside its
// own kernel (lab 04 packs the operands before the product and adds split-k's partial sums after
// it); they are light, and the kernel whose registers and occupancy the step is about is not.
inline std::optional<LaunchRecord> main_launch(const std::vector<LaunchRecord>& launches) {
  if (launches.size() <= 1) return launches.empty() ? std::nullopt : std::optional<LaunchRecord>(launches.front());
  std::optional<LaunchRecord> heaviest;
  int most_registers = -1;
  for (const LaunchRecord& launch : launches) {
    cudaFuncAttributes attributes{};
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, launch.kernel));
    if (attributes.numRegs > most_registers) {
      most_registers = attributes.numRegs;
      heaviest = launch;
    }
  }
  return heaviest;
}

// The registers, shared memory, local memory and occupancy columns of a row.
inline void add_resources(StepRow& row, const KernelResources& r) {
  row.occupancy_percent = 100.0 * r.occupancy;
  row.registers = r.registers_per_thread;
  row.shared_bytes = static_cast<int>(r.static_shared_bytes + r.dynamic_shared_bytes);
  row.local_bytes = static_cast<int>(r.local_bytes_per_thread);
}

// The row of a step that passed its correctness checks under --correctness-only (nothing timed).
inline StepRow correctness_only_row(StepRow row) {
  row.measured_at = "correctness only";
  row.result = "PASS";
  row.reason = "correct on every shape checked; nothing timed";
  return row;
}

// A step's row before anything is timed: failing at "correctness", with its bar. The graders fill
// in the reason, or use it for a failure in the timing that follows.
inline StepRow failing_row(const std::string& lab, const std::string& step, const std::string& bar) {
  StepRow row;
  row.lab = lab;
  row.step = step;
  row.measured_at = "correctness";
  row.result = "FAIL";
  row.bar = bar;
  return row;
}

// The correctness half of grading a step, the same in every lab: runs `check` ("" or why the step
// fails, as failure_of() sees it) and returns its verdict. It records the row when grading ends
// here: when the step failed, and under --correctness-only, where nothing is timed.
template <typename Check>
std::string grade_correctness(StepRow failed, Check&& check) {
  failed.reason = failure_of(std::forward<Check>(check));
  if (!failed.reason.empty()) record(failed);
  else if (session().correctness_only) record(correctness_only_row(failed));
  return failed.reason;
}

}  // namespace workbook
