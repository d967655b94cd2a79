#include "device_trace.h"

#include <cupti.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "session.h"

namespace workbook {

namespace {

// CUPTI hands its records over in buffers it asks the client for; 8 MiB holds some 20,000 kernel
// records, more than the longest window fills between two flushes.
constexpr std::size_t kBufferBytes = 8u << 20;
constexpr std::size_t kBufferAlignment = 8;  // CUPTI's requirement for an activity buffer

struct TraceState {
  std::mutex mutex;  // CUPTI may deliver buffers from a thread of its own
  std::vector<DeviceActivity> activities;
  bool running = false;
  std::string failure;  // why start_device_trace() could not start it
};

TraceState& state() {
  static auto* const instance = new TraceState();  // never destroyed: CUPTI may call back at exit
  return *instance;
}

std::string cupti_error(CUptiResult result) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) return "CUPTI error " + std::to_string(result);
  return text;
}

const char* copy_kind_name(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "host to device";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "device to host";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "device to device";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "host to host";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "peer to peer";
    default: return "array";
  }
}

DeviceActivity activity_of(const CUpti_Activity* record) {
  DeviceActivity a;
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      a.kind = DeviceActivity::Kind::kKernel;
      a.name = k->name != nullptr ? k->name : "?";
      a.stream_id = k->streamId;
      a.grid = dim3(k->gridX, k->gridY, k->gridZ);
      a.block = dim3(k->blockX, k->blockY, k->blockZ);
      a.dynamic_shared_bytes = static_cast<std::size_t>(k->dynamicSharedMemory);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* c = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      a.kind = DeviceActivity::Kind::kCopy;
      a.stream_id = c->streamId;
      a.bytes = c->bytes;
      a.copy_kind = copy_kind_name(c->copyKind);
      a.device_to_device = c->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOD || c->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
      const auto* c = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
      a.kind = DeviceActivity::Kind::kCopy;
      a.stream_id = c->streamId;
      a.bytes = c->bytes;
      a.copy_kind = "peer to peer";
      a.device_to_device = true;
      break;
    }
    default: {  // CUPTI_ACTIVITY_KIND_MEMSET
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      a.kind = DeviceActivity::Kind::kMemset;
      a.stream_id = m->streamId;
      a.bytes = m->bytes;
      break;
    }
  }
  return a;
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid_bytes) {
  std::vector<DeviceActivity> found;
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_MEMCPY:
      case CUPTI_ACTIVITY_KIND_MEMCPY2:
      case CUPTI_ACTIVITY_KIND_MEMSET: found.push_back(activity_of(record)); break;
      default: break;
    }
  }
  std::free(buffer);
  const std::lock_guard<std::mutex> lock(state().mutex);
  for (DeviceActivity& a : found) state().activities.push_back(std::move(a));
}

// CONCURRENT_KERNEL, not KERNEL: it records every kernel without serializing them. Recording is on
// only inside a window: while it is on, kernels of many blocks run up to 14% slower on an H100
// (solutions/02_memory/NOTES.md), so no timed sample is taken with it on.
CUptiResult record(bool on) {
  for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                  CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET})
    if (CUptiResult r = on ? cuptiActivityEnable(kind) : cuptiActivityDisable(kind); r != CUPTI_SUCCESS) return r;
  return CUPTI_SUCCESS;
}

}  // namespace

std::string start_device_trace() {
  TraceState& s = state();
  if (s.running) return "";
  if (!s.failure.empty()) return s.failure;
  const auto fail = [&](const char* what, CUptiResult result) {
    s.failure = std::string(what) + ": " + cupti_error(result);
    if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED || result == CUPTI_ERROR_NOT_INITIALIZED)
      s.failure += " (another tool, such as compute-sanitizer or Nsight Compute, may hold CUPTI)";
    return s.failure;
  };
  if (CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed); r != CUPTI_SUCCESS)
    return fail("CUPTI would not take the trace's buffers", r);
  // Once, to learn now whether CUPTI can record at all; then only inside windows.
  if (CUptiResult r = record(true); r != CUPTI_SUCCESS) return fail("CUPTI would not trace the device", r);
  if (CUptiResult r = record(false); r != CUPTI_SUCCESS) return fail("CUPTI would not stop tracing the device", r);
  s.running = true;
  return "";
}

bool device_trace_running() { return state().running; }

namespace {

// A window CUPTI did not record would look empty, and every honest launch record would then look
// forged: a trace that stops working is an error of the grading, never a verdict on the kernel.
void must(CUptiResult result, const char* what) {
  if (result != CUPTI_SUCCESS)
    throw std::runtime_error(std::string("the device trace (CUPTI) could not ") + what + ": " + cupti_error(result) +
                             "; this is the grader's error, not the kernel's (--no-device-trace grades without it)");
}

}  // namespace

void open_trace_window() {
  if (!state().running) return;
  {
    const std::lock_guard<std::mutex> lock(state().mutex);
    state().activities.clear();
  }
  must(record(true), "start recording");
}

std::vector<DeviceActivity> close_trace_window() {
  if (!state().running) return {};
  must(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "deliver its records");
  must(record(false), "stop recording");
  const std::lock_guard<std::mutex> lock(state().mutex);
  return std::exchange(state().activities, {});
}

std::string load_own_code() {
  char path[4096] = {};
  const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) return "cannot find the grader's own executable (/proc/self/exe)";
  const std::string list = std::string(path, static_cast<std::size_t>(length)) + ".own_code";
  std::ifstream in(list);
  if (!in) return "cannot read " + list + ", the names the student's file defines (the build writes it beside the grader: build again)";
  for (std::string name; std::getline(in, name);)
    if (!name.empty()) session().own_code.insert(name);
  return "";
}

std::uint32_t trace_stream_id(cudaStream_t stream) {
  std::uint32_t id = 0;
  if (cuptiGetStreamIdEx(nullptr, stream, 0, &id) != CUPTI_SUCCESS) return ~0u;
  return id;
}

}  // namespace workbook
