// The judge's side of the trust boundary (docs/integrity.md, part 1): a student's device code loaded from
// their object's fat binaries, with none of their host code, and a plan (plan.h) replayed with it.
// The kernels are the driver's (cuLibraryLoadData), found by the names the planner recorded; their
// parameter sizes, from the driver, are what plan::defect() checks a launch's arguments against.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/resources.h"
#include "protocol/plan.h"
#include "workbook/launch_log.h"

namespace workbook {

// A value as a reply's bytes, which the planner copies back into the value it asked for.
template <typename T>
plan::Bytes reply_bytes(const T& value) {
  const auto* first = reinterpret_cast<const std::uint8_t*>(&value);
  return plan::Bytes(first, first + sizeof value);
}

class StudentKernels {
 public:
  // Loads every fat binary of `object` (an object file or a static library). Throws
  // std::runtime_error, with the driver's words, when one cannot be loaded on this GPU.
  explicit StudentKernels(const std::string& object) : StudentKernels(std::vector<std::string>{object}) {}
  // The same, for every file of `objects` (the student's object and the lab's given code).
  explicit StudentKernels(const std::vector<std::string>& objects);
  ~StudentKernels();
  StudentKernels(const StudentKernels&) = delete;
  StudentKernels& operator=(const StudentKernels&) = delete;

  // The sizes of kernel `name`'s parameters, in order, or nothing when the object has no such kernel.
  std::optional<std::vector<std::size_t>> parameter_sizes(const std::string& name) const;
  // Every kernel's name, sorted.
  std::vector<std::string> names() const;
  // The kernel's handle, as a launch record holds a kernel (launch_log.h), and back: the name of a
  // handle, or nothing when it is none of these kernels.
  const void* kernel(const std::string& name) const;
  std::optional<std::string> name_of(const void* kernel) const;
  // What resources.h reports of a launch of one of these kernels (registers, shared and local memory,
  // occupancy), asked of the driver; nothing when the launch's kernel is none of them.
  std::optional<KernelResources> resources(const LaunchRecord& launch) const;

  // Runs a plan that plan::defect() found nothing in, on `stream`: each launch with its recorded
  // shape and argument bytes (the dynamic shared-memory limit raised where a launch asks for more
  // than 48 KiB), each upload and fill as cudaMemcpyAsync and cudaMemsetAsync. Throws
  // std::runtime_error, with the driver's words, when a launch is refused.
  void replay(const plan::Plan& plan, cudaStream_t stream) const;

  // What the CUDA runtime would tell the student's launcher with this GPU, asked by their planner
  // (plan::Question): a device attribute or the device's properties, a kernel's attributes or its
  // occupancy as a replay launches it, a tensor map. Errors come back as the runtime's codes; it
  // throws nothing.
  plan::Reply answer(const plan::Question& question) const;

  // [fresh-module]: sets the student's module memory (every `__device__`, `__managed__` and
  // `__constant__` variable, a function's `static __device__` included, and the rest of each one's
  // slot in the driver's banks, replay.cpp) back to what it held when loaded, on `stream`, so that
  // nothing a kernel wrote there reaches the next call. Throws std::runtime_error where the
  // variables could not be found when the code was loaded (why_globals_unknown()).
  void restore_globals(cudaStream_t stream) const;
  const std::string& why_globals_unknown() const { return globals_unknown_; }

 private:
  // Raises a kernel's dynamic shared-memory limit (and its carveout) where a launch asks for more
  // than the default 48 KiB, as the runtime's caller would have with cudaFuncSetAttribute.
  void allow_shared_memory(const std::string& name, std::uint64_t dynamic_shared_bytes) const;
  void load(const std::string& object);  // its fat binaries' kernels, added to kernels_ and names_
  // Finds where the driver placed the loaded image's variables (by name, or a static by its
  // section's neighbours) and keeps a copy of the module memory they span as loaded.
  void keep_globals(CUlibrary library, const std::string& fat_binary, const std::string& object);
  struct GlobalSection {
    CUdeviceptr at = 0;
    std::size_t bytes = 0;
    void* as_loaded = nullptr;  // a device copy of these bytes as loaded
    bool by_kernel = false;     // copied by a kernel of the grader's (replay.cpp says why)
  };
  static void copy(void* to, const void* from, const GlobalSection& section, cudaStream_t stream);
  std::vector<GlobalSection> globals_;
  std::string globals_unknown_;
  struct Kernel {
    CUkernel handle = nullptr;
    std::vector<std::size_t> parameter_sizes;
  };
  std::vector<CUlibrary> libraries_;
  std::map<std::string, Kernel> kernels_;
  std::map<const void*, std::string> names_;  // by handle
};

}  // namespace workbook
