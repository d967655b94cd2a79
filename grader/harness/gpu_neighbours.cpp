#include "harness/gpu_neighbours.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

namespace workbook {

namespace {

// NVML's functions, declared as NVML documents them (its header is not part of the CUDA toolkit
// everywhere): a return code (0 is success, 7 "insufficient size"), an opaque device handle, and
// the first version of a process's record.
using NvmlDevice = void*;
struct NvmlProcess {
  unsigned int pid;
  unsigned long long used_gpu_memory;
};
struct Nvml {
  int (*init)() = nullptr;
  int (*device_by_bus_id)(const char*, NvmlDevice*) = nullptr;
  int (*compute_processes)(NvmlDevice, unsigned int*, NvmlProcess*) = nullptr;
  NvmlDevice device = nullptr;
  std::string unknown;  // why it cannot be asked
};

const Nvml& nvml() {
  static const Nvml loaded = [] {
    Nvml n;
    void* library = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      n.unknown = "NVML (libnvidia-ml.so.1) is not installed";
      return n;
    }
    n.init = reinterpret_cast<int (*)()>(::dlsym(library, "nvmlInit_v2"));
    n.device_by_bus_id =
        reinterpret_cast<int (*)(const char*, NvmlDevice*)>(::dlsym(library, "nvmlDeviceGetHandleByPciBusId_v2"));
    n.compute_processes = reinterpret_cast<int (*)(NvmlDevice, unsigned int*, NvmlProcess*)>(
        ::dlsym(library, "nvmlDeviceGetComputeRunningProcesses"));
    int device = 0;
    char bus_id[32] = {};
    if (n.init == nullptr || n.device_by_bus_id == nullptr || n.compute_processes == nullptr)
      n.unknown = "this NVML lacks a function it needs";
    else if (n.init() != 0) n.unknown = "NVML did not start";
    else if (cudaGetDevice(&device) != cudaSuccess ||
             cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) != cudaSuccess)
      n.unknown = "the GPU's PCI bus id is unknown";
    else if (n.device_by_bus_id(bus_id, &n.device) != 0)
      n.unknown = std::string("NVML does not know the GPU at ") + bus_id;
    return n;
  }();
  return loaded;
}

std::string name_of(unsigned int pid) {
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  if (!std::getline(comm, name)) return std::to_string(pid) + " (not visible here)";
  return std::to_string(pid) + " (" + name + ")";
}

// Whether `pid` is this process's descendant, by its parents in /proc.
bool descends_from_this_process(unsigned int pid) {
  const pid_t self = ::getpid();
  for (int depth = 0; depth < 64 && pid > 1; ++depth) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return false;
    const std::size_t after_name = line.rfind(')');
    if (after_name == std::string::npos) return false;
    char state = 0;
    unsigned int parent = 0;
    if (std::sscanf(line.c_str() + after_name + 1, " %c %u", &state, &parent) != 2) return false;
    if (static_cast<pid_t>(parent) == self) return true;
    pid = parent;
  }
  return false;
}

}  // namespace

GpuNeighbours gpu_neighbours() {
  GpuNeighbours found;
  const Nvml& n = nvml();
  if (!n.unknown.empty()) {
    found.unknown = n.unknown;
    return found;
  }
  NvmlProcess processes[256];
  unsigned int count = 256;
  const int result = n.compute_processes(n.device, &count, processes);
  if (result != 0 && result != 7) {
    found.unknown = "NVML did not list the GPU's processes (error " + std::to_string(result) + ")";
    return found;
  }
  const unsigned int self = static_cast<unsigned int>(::getpid());
  for (unsigned int k = 0; k < count && k < 256; ++k) {
    if (processes[k].pid == self) continue;
    (descends_from_this_process(processes[k].pid) ? found.of_this_grading : found.others)
        .push_back(name_of(processes[k].pid));
  }
  return found;
}

void check_gpu_not_shared() {
  const GpuNeighbours neighbours = gpu_neighbours();
  const auto listed = [](const std::vector<std::string>& processes) {
    std::string text;
    for (const std::string& process : processes) text += (text.empty() ? "" : ", ") + process;
    return text;
  };
  if (!neighbours.of_this_grading.empty())
    throw std::runtime_error(
        "a process your file's host code started holds a context on the GPU while the step would be "
        "timed (" +
        listed(neighbours.of_this_grading) + "): a launcher starts no process that uses the GPU");
  // Someone else's: no fault of the student's, but no fair time either (docs/timing.md, "A GPU shared
  // with another process"), so no verdict: the step fails saying why, and passes when graded again
  // on an idle GPU.
  if (!neighbours.others.empty())
    throw std::runtime_error(
        "not timed: other processes hold a context on this GPU (" + listed(neighbours.others) +
        "), and their kernels would take time slices from the step's. Grade again when nothing else "
        "runs there (nvidia-smi lists what does)");
}

}  // namespace workbook
