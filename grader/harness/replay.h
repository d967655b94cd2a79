// The judge's side of the trust boundary (shared/DESIGN.md): a student's device code loaded from
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

#include "plan.h"

namespace workbook {

class StudentKernels {
 public:
  // Loads every fat binary of `object` (an object file or a static library). Throws
  // std::runtime_error, with the driver's words, when one cannot be loaded on this GPU.
  explicit StudentKernels(const std::string& object);
  ~StudentKernels();
  StudentKernels(const StudentKernels&) = delete;
  StudentKernels& operator=(const StudentKernels&) = delete;

  // The sizes of kernel `name`'s parameters, in order, or nothing when the object has no such kernel.
  std::optional<std::vector<std::size_t>> parameter_sizes(const std::string& name) const;
  // Every kernel's name, sorted.
  std::vector<std::string> names() const;
  // The kernel as the runtime API takes a kernel (cudaFuncGetAttributes, the occupancy calculator).
  const void* kernel(const std::string& name) const;

  // Runs a plan that plan::defect() found nothing in, on `stream`: each launch with its recorded
  // shape and argument bytes (the dynamic shared-memory limit raised where a launch asks for more
  // than 48 KiB), each upload and fill as cudaMemcpyAsync and cudaMemsetAsync. Throws
  // std::runtime_error, with the driver's words, when a launch is refused.
  void replay(const plan::Plan& plan, cudaStream_t stream) const;

 private:
  struct Kernel {
    CUkernel handle = nullptr;
    std::vector<std::size_t> parameter_sizes;
  };
  std::vector<CUlibrary> libraries_;
  std::map<std::string, Kernel> kernels_;
};

}  // namespace workbook
