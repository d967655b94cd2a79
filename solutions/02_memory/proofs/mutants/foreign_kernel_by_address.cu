// Boundary mutant: part of the copy is done by a kernel that is not in the
// student's file: the grader's own baseline, reached without any relocation that names it.
// workbook::launch remembers, in a map that lives in a header every lab includes, each kernel it
// let use more than 48 KiB of shared memory, the grader's among them (the baseline, run at low
// occupancy with its padding). The launcher reads the map's keys, asks the CUDA runtime for each
// one's name (cudaFuncGetName, which every lab may call) and, once the baseline has run, launches it
// through workbook::launch like its own kernel, on the given stream, with a record that matches.
// Nothing in its object file names another kernel. Judged, as a student's file is, its planner holds
// no kernel of the grader's to find, and a plan may name only the file's own kernels: it is graded on
// its own copy.
#include <cstring>

#include "student_copy.cuh"

namespace {
using CopyKernel = void (*)(const float*, float*, std::size_t);

// A kernel that workbook::launch has seen, whose name contains `wanted`; null until there is one.
CopyKernel kernel_named(const char* wanted) {
  for (const auto& [kernel, bytes] : workbook::shared_memory_allowed()) {
    const char* name = nullptr;
    if (cudaFuncGetName(&name, kernel) == cudaSuccess && name != nullptr && std::strstr(name, wanted) != nullptr)
      return reinterpret_cast<CopyKernel>(const_cast<void*>(kernel));
  }
  return nullptr;
}

void copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  static CopyKernel baseline = nullptr;
  if (baseline == nullptr) baseline = kernel_named("copy_one_float_per_thread_kernel");
  // The defect: once it can, the grader's kernel copies the first 4096 floats.
  const std::size_t head = baseline == nullptr ? 0 : p.n < 4096 ? p.n : 4096;
  if (head > 0) workbook::launch(baseline, dim3(static_cast<unsigned>((head + 255) / 256)), dim3(256), 0, stream, p.in, p.out, head);
  if (p.n > head)
    workbook::launch(copy_kernel, dim3(blocks_for(p.n - head, p.threads_per_block)), dim3(p.threads_per_block),
                     p.occupancy_padding_bytes, stream, p.in + head, p.out + head, p.n - head);
}
}  // namespace
