#include "skeleton.h"

#include <cmath>
#include <map>
#include <stdexcept>

#include "judge.h"
#include "machine_code.h"
#include "planner.h"  // kernel_name()

namespace workbook {

namespace {

// A launched kernel's name for the audit's messages: a judge's replayed kernel's, else planner.h's,
// or "?" where it has none.
std::string name_or_unknown(const void* kernel) {
  if (const Judge* judging = judge())
    if (std::optional<std::string> replayed = judging->kernels().name_of(kernel)) return *replayed;
  try {
    return kernel_name(kernel);
  } catch (const std::runtime_error&) {
    return "?";
  }
}

std::string describe(const char* name, dim3 grid, dim3 block) {
  std::ostringstream text;
  text << name << " <<<(" << grid.x << ", " << grid.y << ", " << grid.z << "), (" << block.x << ", " << block.y << ", "
       << block.z << ")>>>";
  return text.str();
}

}  // namespace

std::string block_order_violation(const std::vector<LaunchRecord>& launches) {
  for (const LaunchRecord& launch : launches) {
    const KernelResources resources = resources_of(launch);
    const long long at_once = static_cast<long long>(resources.resident_blocks_per_sm) * device_facts().sm_count;
    if (resources.grid_blocks <= at_once) continue;  // every block can run at once: none waits to start
    std::string machine_code;
    try {
      machine_code = sass_of(resources.name);
    } catch (const std::runtime_error& e) {
      return tagged(Defence::kBlockOrder, std::string("cannot read the machine code of ") + demangled(resources.name) +
                                              " to check that it does not count on the order blocks start: " + e.what());
    }
    if (!reads_block_index(machine_code) || !watches_other_blocks(machine_code)) continue;
    std::ostringstream why;
    why << demangled(resources.name) << " runs " << resources.grid_blocks << " blocks, more than the " << at_once
        << " this GPU holds at once; it reads blockIdx, and it reads what other blocks write while it runs (volatile "
           "or atomic loads, or fences), as a block that waits for another does. CUDA does not promise that blocks "
           "start in blockIdx order: a block may wait for one that cannot start until it finishes. Take each block's "
           "tile from an atomic counter, in the order blocks start";
    return tagged(Defence::kBlockOrder, why.str());
  }
  return "";
}

std::string stage_reuse_violation(const std::vector<LaunchRecord>& launches) {
  if (device_facts().compute_capability < 90) return "";  // no copy engine: no bulk copy can run here
  static std::map<std::string, std::string> path_of_kernel;  // read once per kernel: correctness runs many cases
  for (const LaunchRecord& launch : launches) {
    const std::string name = resources_of(launch).name;
    if (!path_of_kernel.contains(name)) {
      std::string machine_code;
      try {
        machine_code = sass_of(name);
      } catch (const std::runtime_error& e) {
        return tagged(Defence::kStageReuse, std::string("cannot read the machine code of ") + demangled(name) +
                                                " to check its copy-engine stores: " + e.what());
      }
      path_of_kernel[name] = store_to_load_without_wait(machine_code);
    }
    const std::string& path = path_of_kernel[name];
    if (path.empty()) continue;
    return tagged(Defence::kStageReuse,
                  demangled(name) + " may load into shared memory that a copy-engine store is still reading: " + path +
                      ". Before a stage is loaded again, wait until the store that reads it has read it "
                      "(cp.async.bulk.wait_group.read: wait_until_read() in workbook/bulk_copy.cuh). This GPU's copy engine "
                      "happens to work in order, so no run here shows the race; the programming model does not promise it");
  }
  return "";
}

bool defence_enabled(Defence defence) { return !session().disabled.contains(defence); }

std::string with_cuda_advice(const std::string& reason, const std::string& step_id) {
  if (!reason.starts_with("CUDA error: ")) return reason;
  const auto names = [&](std::initializer_list<const char*> errors) {
    for (const char* error : errors)
      if (reason.find(error) != std::string::npos) return true;
    return false;
  };
  std::string meaning;
  if (names({"cudaErrorLaunchFailure", "cudaErrorIllegalAddress", "cudaErrorMisalignedAddress", "cudaErrorIllegalInstruction",
             "cudaErrorHardwareStackError", "cudaErrorInvalidAddressSpace", "cudaErrorInvalidPc", "cudaErrorAssert"}))
    meaning = "a kernel crashed: most often it read or wrote outside its arrays, or at an address not aligned for the "
              "access (a float4 at an address that is not a multiple of 16 bytes). The error is reported by the next "
              "call that waits for the GPU, often the grader's own, so the file named above is not where the fault is";
  else if (names({"cudaErrorLaunchTimeout"}))
    meaning = "a kernel ran too long: an endless loop, or blocks waiting for a block that cannot run";
  else if (names({"cudaErrorLaunchOutOfResources"}))
    meaning = "a block asks for more registers than an SM holds for it: fewer threads per block, or "
              "__launch_bounds__ so that the compiler keeps to what fits";
  else if (names({"cudaErrorInvalidConfiguration", "cudaErrorInvalidValue"}))
    meaning = "a launch asked for what the GPU cannot give: a grid or block of zero or too many threads, or more "
              "shared memory than a block may have";
  else
    meaning = "the error's name is in the CUDA Runtime API's list of errors";
  return reason + ". What it usually means: " + meaning + ". To find the line: ./workbook grade " + step_id +
         " --sanitize runs the step's correctness cases under compute-sanitizer, which names it";
}

std::optional<LaunchRecord> main_launch(const std::vector<LaunchRecord>& launches) {
  std::optional<LaunchRecord> heaviest;
  int most_registers = -1;
  for (const LaunchRecord& launch : launches) {
    const int registers = resources_of(launch).registers_per_thread;
    if (registers > most_registers) {
      most_registers = registers;
      heaviest = launch;
    }
  }
  return heaviest;
}

namespace {

// "_Z...copy_kernel..." as a student reads it, or the name itself when it is no C++ name.
std::string readable(const std::string& mangled) {
  const std::string text = demangled(mangled);
  return text.empty() ? mangled : text;
}

std::string describe(const DeviceActivity& a) {
  std::ostringstream text;
  switch (a.kind) {
    case DeviceActivity::Kind::kKernel: return describe(readable(a.name).c_str(), a.grid, a.block);
    case DeviceActivity::Kind::kCopy: text << "a " << a.copy_kind << " copy of " << a.bytes << " bytes"; break;
    case DeviceActivity::Kind::kMemset: text << "a memset of " << a.bytes << " bytes"; break;
  }
  return text.str();
}

}  // namespace

// What the device ran (the trace) against what the call said it launched (the launch log). A
// kernel the student's file does not define is someone else's work, however the launcher reached
// it (a library's, the grader's: a function pointer needs no relocation that a check of the object
// could read); a copy between device memories is the copy engines doing a kernel's work. Anything
// on another stream ran outside the timer's sight. A kernel with no record behind it, or a record
// with no kernel, makes the reported registers and occupancy a fiction.
std::string audit_device_work(const std::vector<DeviceActivity>& ran, std::vector<LaunchRecord> launches, cudaStream_t stream) {
  const std::uint32_t given = trace_stream_id(stream);
  std::string outside, unrecorded;
  int unrecorded_count = 0;
  for (const DeviceActivity& a : ran) {
    if (defence_enabled(Defence::kForeignWork)) {
      if (a.kind == DeviceActivity::Kind::kKernel && !session().own_code.contains(a.name))
        return tagged(Defence::kForeignWork,
                      describe(a) + " ran during the call, and your file does not contain it (a library's kernel, or the "
                                    "grader's): a step's work is done by the kernels of your own file");
      if (a.kind == DeviceActivity::Kind::kCopy && a.device_to_device)
        return tagged(Defence::kForeignWork, describe(a) + " ran during the call: the copy engines did work that the "
                                                           "step's kernels are to do");
    }
    if (a.stream_id != given) {
      if (outside.empty()) outside = describe(a);
      continue;
    }
    if (a.kind != DeviceActivity::Kind::kKernel) continue;  // a copy or memset on the stream: timed, its own
    const auto same = [&](const LaunchRecord& r) {
      return r.stream == stream && name_or_unknown(r.kernel) == a.name && r.grid.x == a.grid.x && r.grid.y == a.grid.y &&
             r.grid.z == a.grid.z && r.block.x == a.block.x && r.block.y == a.block.y && r.block.z == a.block.z &&
             r.dynamic_shared_bytes == a.dynamic_shared_bytes;
    };
    if (const auto match = std::find_if(launches.begin(), launches.end(), same); match != launches.end())
      launches.erase(match);
    else if (++unrecorded_count == 1)
      unrecorded = describe(a);
  }
  if (!outside.empty() && defence_enabled(Defence::kOutsideTimer))
    return tagged(Defence::kOutsideTimer, outside + " ran on a stream other than the one the launcher was given: the "
                                                    "timer only sees that stream, so all of a launcher's work goes there");
  if (!defence_enabled(Defence::kUnrecordedLaunch)) return "";
  if (unrecorded_count > 0)
    return tagged(Defence::kUnrecordedLaunch,
                  std::to_string(unrecorded_count) + " kernel launch(es) did not go through workbook::launch(), the first " +
                      unrecorded + ": launch every kernel with workbook::launch(), so that the grader sees what ran");
  // A record on the given stream with no kernel behind it was written by hand (recorded_launches()
  // is a lab's to reach): the resources reported would be a kernel's that never ran. Records on
  // other streams are [outside-timer]'s to judge (launches_off_stream).
  std::erase_if(launches, [&](const LaunchRecord& r) { return r.stream != stream; });
  if (!launches.empty())
    return tagged(Defence::kUnrecordedLaunch,
                  std::to_string(launches.size()) + " launch record(s) with no kernel behind them, the first " +
                      describe(name_or_unknown(launches.front().kernel).c_str(), launches.front().grid, launches.front().block) +
                      ": launch every kernel with workbook::launch(), and record nothing by hand");
  return "";
}

std::string launches_off_stream(const std::vector<LaunchRecord>& launches, cudaStream_t stream) {
  for (const LaunchRecord& launch : launches)
    if (launch.stream != stream)
      return tagged(Defence::kOutsideTimer,
                    "the launcher launched " + describe(name_or_unknown(launch.kernel).c_str(), launch.grid, launch.block) +
                        " on a stream other than the one it was given: the timer only sees work on that stream, so all "
                        "of a launcher's work goes there");
  return "";
}

std::string waited_for_the_device(const Timing& candidate) {
  if (candidate.waits == 0) return "";
  return tagged(Defence::kOutsideTimer,
                std::to_string(candidate.waits) + " of the timed calls waited for the device before returning (a "
                "synchronization, a blocking copy, cudaFree): a launcher only puts work on its stream, and leaves "
                "the waiting to its caller");
}

std::string first_failed_call(const std::vector<DeviceMismatches>& outputs, const std::vector<DeviceMismatches>& inputs,
                              int calls, bool every_call) {
  for (int call = 0; call < calls; ++call) {
    // A changed input first: it is the cause, and a wrong output may only be its consequence.
    if (inputs[call].count > 0 && defence_enabled(Defence::kInputChanged))
      return tagged(Defence::kInputChanged, "timed call " + std::to_string(call + 1) + " changed " +
                                                std::to_string(inputs[call].count) + " input elements, the first at [" +
                                                std::to_string(inputs[call].first) + "]: inputs are read-only");
    const DeviceMismatches& out = outputs[call];
    if (out.count == 0) continue;
    std::ostringstream why;
    if (!every_call) {
      why << "after the timed calls the output had " << out.count << " wrong elements, the first at [" << out.first << "]";
      return why.str();
    }
    why << "call " << call + 1 << " of the " << calls << " timed calls (fresh inputs each, outputs poisoned before "
        << "each) left " << out.count << " wrong elements, the first at [" << out.first
        << "]: every call must compute the whole output from the inputs it is given";
    return tagged(Defence::kRememberedWork, why.str());
  }
  return "";
}

std::string share_of_limits(const Measurement& m) {
  if (m.bytes <= 0 && m.flops <= 0) return "";
  const DevicePeaks& peaks = device_peaks();
  std::ostringstream text;
  text << std::fixed << std::setprecision(1) << "share of the device's limits ([ceiling]):";
  const auto shares = [&](const std::string& who, double ms) {
    text << ' ' << who;
    if (m.bytes > 0) text << ' ' << 100.0 * m.bytes / (ms * 1e6) / peaks.memory_limit_gb_per_s << "% of memory";
    if (m.flops > 0) text << (m.bytes > 0 ? ", " : " ") << 100.0 * m.flops / (ms * 1e9) / peaks.fma_limit_tflop_per_s << "% of FP32";
  };
  shares("candidate", m.candidate_ms);
  text << ';';
  shares(m.reference.name, m.reference_ms);
  return text.str();
}

std::string above_ceiling(const Measurement& m) {
  std::ostringstream why;
  why << std::fixed << std::setprecision(1);
  const DevicePeaks& peaks = device_peaks();
  if (m.reference.is_ceiling && m.percent_of_reference() > 100.0 * kCeilingSlack)
    why << "measured at " << m.percent_of_reference() << "% of " << m.reference.name
        << " on the same inputs, which no correct kernel can be";
  // The device's own limits, from its attributes: a read-only reduction and a copy alike stay under
  // the memory's theoretical bandwidth, whatever a same-run copy measured.
  else if (m.bytes > 0 && m.bytes / (m.candidate_ms * 1e6) > peaks.memory_limit_gb_per_s)
    why << "measured at " << m.bytes / (m.candidate_ms * 1e6) << " GB/s, above the device memory's theoretical bandwidth ("
        << peaks.memory_limit_gb_per_s << " GB/s: memory clock x bus width x 2)";
  else if (m.flops > 0 && m.flops / (m.candidate_ms * 1e9) > peaks.fma_limit_tflop_per_s)
    why << "measured at " << m.flops / (m.candidate_ms * 1e9) << " TFLOP/s, above the device's FP32 limit ("
        << peaks.fma_limit_tflop_per_s << " TFLOP/s: every FP32 lane of every SM at its highest clock)";
  else
    return "";
  return tagged(Defence::kCeiling, why.str() + ": the measurement is wrong (does every call do all the work?)");
}

}  // namespace workbook
