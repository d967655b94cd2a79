// Pieces every lab's grader uses the same way: turning what a launcher throws into a step's
// failure, and filling the report's resource columns.
#pragma once

#include <exception>
#include <string>

#include "report.h"
#include "resources.h"
#include "workbook/cuda.h"

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

}  // namespace workbook
