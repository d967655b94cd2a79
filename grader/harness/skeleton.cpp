#include "harness/skeleton.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

#include "audit/machine_code.h"

namespace workbook {

std::string block_order_violation(const std::vector<LaunchRecord>& launches) {
  for (const LaunchRecord& launch : launches) {
    const KernelResources resources = resources_of(launch);
    const long long at_once = static_cast<long long>(resources.resident_blocks_per_sm) * device_facts().sm_count;
    if (resources.grid_blocks <= at_once) continue;  // every block can run at once: none waits to start
    std::string machine_code;
    try {
      machine_code = sass_of(resources.name);
    } catch (const std::runtime_error& e) {
      return tagged(Defence::kBlockOrder,
                    std::string("cannot read the machine code of ") + demangled(resources.name) +
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
  if (device_facts().compute_capability < 90) return "";     // no copy engine: no bulk copy can run here
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
    return tagged(
        Defence::kStageReuse,
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
  if (names({"cudaErrorLaunchFailure", "cudaErrorIllegalAddress", "cudaErrorMisalignedAddress",
             "cudaErrorIllegalInstruction", "cudaErrorHardwareStackError", "cudaErrorInvalidAddressSpace",
             "cudaErrorInvalidPc", "cudaErrorAssert"}))
    meaning =
        "a kernel crashed: most often it read or wrote outside its arrays, or at an address not aligned for the "
        "access (a float4 at an address that is not a multiple of 16 bytes). The error is reported by the next "
        "call that waits for the GPU, often the grader's own, so the file named above is not where the fault is";
  else if (names({"cudaErrorLaunchTimeout"}))
    meaning = "a kernel ran too long: an endless loop, or blocks waiting for a block that cannot run";
  else if (names({"cudaErrorLaunchOutOfResources"}))
    meaning =
        "a block asks for more registers than an SM holds for it: fewer threads per block, or "
        "__launch_bounds__ so that the compiler keeps to what fits";
  else if (names({"cudaErrorInvalidConfiguration", "cudaErrorInvalidValue"}))
    meaning =
        "a launch asked for what the GPU cannot give: a grid or block of zero or too many threads, or more "
        "shared memory than a block may have";
  else meaning = "the error's name is in the CUDA Runtime API's list of errors";
  return reason + ". What it usually means: " + meaning + ". To find the line: ./workbook grade " + step_id +
         " --sanitize runs the step's correctness cases under compute-sanitizer, which names it";
}

void weigh_launches(std::vector<LaunchShare> launches, Measurement& m) {
  m.launches = std::move(launches);
  m.resources.reset();
  m.occupancy = 0;
  if (m.launches.empty()) return;
  const auto most = [&](auto key) {
    return std::max_element(m.launches.begin(), m.launches.end(),
                            [&](const LaunchShare& a, const LaunchShare& b) { return key(a) < key(b); });
  };
  double total_ms = 0;
  for (const LaunchShare& launch : m.launches) total_ms += launch.ms;
  if (!defence_enabled(Defence::kWorkLaunches) || total_ms <= 0) {  // the launch holding the most registers
    m.resources = most([](const LaunchShare& l) { return l.resources.registers_per_thread; })->resources;
    m.occupancy = m.resources->occupancy;
    return;
  }
  m.resources = most([](const LaunchShare& l) { return l.ms; })->resources;
  // The launches that do the work: the longest first, until they take kWorkShare of the call's time.
  std::vector<LaunchShare> longest_first = m.launches;
  std::stable_sort(longest_first.begin(), longest_first.end(),
                   [](const LaunchShare& a, const LaunchShare& b) { return a.ms > b.ms; });
  double covered_ms = 0;
  for (const LaunchShare& launch : longest_first) {
    if (covered_ms >= kWorkShare * total_ms) break;
    covered_ms += launch.ms;
    m.occupancy = std::max(m.occupancy, launch.resources.occupancy);
  }
}

std::string occupancy_above(const Measurement& m, double limit) {
  constexpr double kRounding = 1e-9;
  if (m.launches.empty() || m.occupancy <= limit + kRounding) return "";
  double total_ms = 0;
  for (const LaunchShare& launch : m.launches) total_ms += launch.ms;
  std::ostringstream why;
  why << std::fixed << std::setprecision(2) << "the kernels ran at " << 100.0 * m.occupancy
      << "% theoretical occupancy";
  if (m.launches.size() > 1 && total_ms > 0) {
    why << " (the highest of the launches that take " << 100.0 * kWorkShare << "% of the call's time, longest first:";
    for (std::size_t i = 0; i < m.launches.size(); ++i)
      why << (i == 0 ? " " : ", ") << demangled(m.launches[i].resources.name) << " at "
          << 100.0 * m.launches[i].resources.occupancy << "% for " << 100.0 * m.launches[i].ms / total_ms
          << "% of the time";
    why << ')';
  }
  why << ", above the step's " << 100.0 * limit << "%";
  int most_registers = -1;
  double occupancy_of_heaviest = 1;
  for (const LaunchShare& launch : m.launches)
    if (launch.resources.registers_per_thread > most_registers) {
      most_registers = launch.resources.registers_per_thread;
      occupancy_of_heaviest = launch.resources.occupancy;
    }
  if (defence_enabled(Defence::kWorkLaunches) && occupancy_of_heaviest <= limit + kRounding)
    return tagged(Defence::kWorkLaunches, why.str() +
                                              ". A step is judged at the occupancy of the launches that take its "
                                              "time: a launch that does little of the work does not set it");
  return why.str();
}

std::string first_failed_call(const std::vector<DeviceMismatches>& outputs, const std::vector<DeviceMismatches>& inputs,
                              int calls, bool every_call) {
  for (int call = 0; call < calls; ++call) {
    // A changed input first: it is the cause, and a wrong output may only be its consequence.
    if (inputs[call].count > 0 && defence_enabled(Defence::kInputChanged))
      return tagged(Defence::kInputChanged, "call " + std::to_string(call + 1) + " of the " + std::to_string(calls) +
                                                " calls checked changed " + std::to_string(inputs[call].count) +
                                                " input elements, the first at [" + std::to_string(inputs[call].first) +
                                                "]: inputs are read-only");
    const DeviceMismatches& out = outputs[call];
    if (out.count == 0) continue;
    std::ostringstream why;
    if (!every_call) {
      why << "after the timed calls the output had " << out.count << " wrong elements, the first at [" << out.first
          << "]";
      return why.str();
    }
    why << "call " << call + 1 << " of the " << calls << " calls checked (fresh inputs each, outputs poisoned before "
        << "each) left " << out.count << " wrong elements, the first at [" << out.first
        << "]: every call must compute the whole output from the inputs it is given";
    return tagged(Defence::kRememberedWork, why.str());
  }
  return "";
}

std::string share_of_limits(const Measurement& m) {
  if (m.bytes <= 0 && m.flops <= 0) return "";
  const DeviceCeilings& peaks = device_ceilings();
  std::ostringstream text;
  text << std::fixed << std::setprecision(1) << "share of the device's limits ([ceiling]):";
  const auto shares = [&](const std::string& who, double ms) {
    text << ' ' << who;
    if (m.bytes > 0) text << ' ' << 100.0 * m.bytes / (ms * 1e6) / peaks.memory_limit_gb_per_s << "% of memory";
    if (m.flops > 0)
      text << (m.bytes > 0 ? ", " : " ") << 100.0 * m.flops / (ms * 1e9) / peaks.fma_limit_tflop_per_s << "% of FP32";
  };
  shares("candidate", m.candidate_ms);
  text << ';';
  shares(m.reference.name, m.reference_ms);
  return text.str();
}

std::string above_ceiling(const Measurement& m) {
  std::ostringstream why;
  why << std::fixed << std::setprecision(1);
  const DeviceCeilings& peaks = device_ceilings();
  if (m.reference.is_ceiling && m.percent_of_reference() > 100.0 * kCeilingSlack)
    why << "measured at " << m.percent_of_reference() << "% of " << m.reference.name
        << " on the same inputs, which no correct kernel can be";
  // The device's own limits, from its attributes: a read-only reduction and a copy alike stay under
  // the memory's theoretical bandwidth, whatever a same-run copy measured.
  else if (m.bytes > 0 && m.bytes / (m.candidate_ms * 1e6) > peaks.memory_limit_gb_per_s)
    why << "measured at " << m.bytes / (m.candidate_ms * 1e6)
        << " GB/s, above the device memory's theoretical bandwidth (" << peaks.memory_limit_gb_per_s
        << " GB/s: memory clock x bus width x 2)";
  else if (m.flops > 0 && m.flops / (m.candidate_ms * 1e9) > peaks.fma_limit_tflop_per_s)
    why << "measured at " << m.flops / (m.candidate_ms * 1e9) << " TFLOP/s, above the device's FP32 limit ("
        << peaks.fma_limit_tflop_per_s << " TFLOP/s: every FP32 lane of every SM at its highest clock)";
  else return "";
  return tagged(Defence::kCeiling, why.str() + ": the measurement is wrong (does every call do all the work?)");
}

}  // namespace workbook
