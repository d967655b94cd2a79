// What a kernel costs the SM (registers, shared memory, local memory) and how many of its blocks
// fit on one SM at once (theoretical occupancy), read from the CUDA runtime for the launches a
// launcher really made.
#pragma once

#include <cstddef>
#include <string>

#include "workbook/launch_log.h"

namespace workbook {

struct DeviceFacts {
  std::string name;
  int sm_count = 0;
  int max_threads_per_sm = 0;
  std::size_t shared_bytes_per_sm = 0;
  std::size_t shared_bytes_per_block_optin = 0;
  std::size_t reserved_shared_bytes_per_block = 0;  // the runtime keeps 1 KiB per block on sm_80+
  int l2_bytes = 0;
  int compute_capability = 0;  // 90 for Hopper
  // The GPU reaches ordinary (pageable) host memory: HMM, or ATS on Grace Hopper.
  bool pageable_memory_access = false;
};
const DeviceFacts& device_facts();  // the current device (--plan-check: the described one), read once

// "" where this GPU can be trusted to grade, else why not, for every step's verdict. A GPU that
// reaches pageable host memory lets a student's kernel write the grading process's own memory (its
// timings, its rows) with no pointer the grader gave it: no defence inside the process holds there.
std::string machine_refusal(const DeviceFacts& facts);

struct KernelResources {
  std::string name;
  int registers_per_thread = 0;
  std::size_t static_shared_bytes = 0;
  std::size_t dynamic_shared_bytes = 0;
  std::size_t local_bytes_per_thread = 0;  // > 0: spills or an array the compiler could not keep in registers
  unsigned threads_per_block = 0;
  unsigned grid_blocks = 0;
  int resident_blocks_per_sm = 0;
  double occupancy = 0;  // resident warps / the SM's maximum, in [0, 1]
};
KernelResources resources_of(const LaunchRecord& launch);
// The same from a kernel's attributes, however they were asked for (the runtime's, above; the
// driver's, for a judge's replayed kernels, replay.h): the launch's shape and the occupancy they give.
KernelResources resources_from(std::string name, int registers_per_thread, std::size_t static_shared_bytes,
                               std::size_t local_bytes_per_thread, const LaunchRecord& launch,
                               int resident_blocks_per_sm);

// Volkov's occupancy control: dynamic shared memory that the kernel never touches, sized so that
// exactly `blocks_per_sm` blocks fit on an SM (when nothing else limits them first).
std::size_t occupancy_padding_bytes(int blocks_per_sm);

}  // namespace workbook
