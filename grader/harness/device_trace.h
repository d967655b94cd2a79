// The device trace: what the GPU actually ran during a graded call, seen by the toolkit's CUPTI
// activity API rather than inferred from what a launcher said it launched. Every kernel, copy and
// memset the device ran, on any stream, is recorded with its name, stream and launch shape, so that
// a defence does not depend on guessing how a launcher got its work onto the GPU (docs/integrity.md).
//
// A window is opened with the whole device idle and closed with the whole device idle again: what
// ran in between is exactly the call's work (and the grader's own gate, which the timing removes).
// CUPTI records only inside a window: recording slows kernels of many blocks (up to 14% on an H100),
// so a timed call is either traced or timed, never both (timing.h).
// CUPTI serves one tool per process: under compute-sanitizer or Nsight Compute the trace cannot
// start, and the grader is then run with --no-device-trace, which every report names.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace workbook {

struct DeviceActivity {
  enum class Kind { kKernel, kCopy, kMemset };
  Kind kind = Kind::kKernel;
  std::string name;              // a kernel's mangled name, as its module names it
  std::uint32_t stream_id = 0;   // CUPTI's id of the stream it ran on (trace_stream_id())
  dim3 grid{}, block{};
  std::size_t dynamic_shared_bytes = 0;
  std::uint64_t bytes = 0;        // a copy's or a memset's
  std::string copy_kind;          // "device to device", "host to device", ...: a copy's
  bool device_to_device = false;  // a copy from device memory to device memory (a peer's included)
};

// Starts the trace for this process, once, before the first CUDA call that creates a context. ""
// when it runs, else why it cannot (an older driver, another tool holding CUPTI).
std::string start_device_trace();
bool device_trace_running();

// A window of the trace: open it with the device idle; close it after the device is idle again
// (cudaDeviceSynchronize), and it returns everything the device ran in between, oldest first. Both
// throw std::runtime_error if CUPTI fails, so that an empty window always means nothing ran.
void open_trace_window();
std::vector<DeviceActivity> close_trace_window();

// Reads the names the student's file (and the lab's given files) define, written beside the grader
// at build time (<grader>.own_code, by `workbook_audit defines`), into session().own_code: a kernel
// the trace sees that is not among them is not the student's. "" or why they cannot be read.
std::string load_own_code();

// The id CUPTI gives `stream` in its records.
std::uint32_t trace_stream_id(cudaStream_t stream);

}  // namespace workbook
