// The check behind every lab's workspace_of() (given.cuh): a launcher that needs device memory of
// its own gets it from the caller, as CUB's callers give temporary storage, and checks it first.
// Any Problem with the fields `void* workspace` and `std::size_t workspace_bytes`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace workbook {

// The problem's workspace, after checking that it holds `bytes` (what the step's *_workspace_bytes()
// asked for) and is 16-byte aligned. nullptr when bytes is 0.
template <typename Problem>
void* checked_workspace(const Problem& p, const char* step, std::size_t bytes) {
  if (bytes == 0) return nullptr;
  const std::string where = std::string(step) + ": ";
  if (p.workspace == nullptr || p.workspace_bytes < bytes)
    throw std::invalid_argument(where + "needs a workspace of " + std::to_string(bytes) + " bytes, was given " +
                                std::to_string(p.workspace == nullptr ? 0 : p.workspace_bytes));
  if (reinterpret_cast<std::uintptr_t>(p.workspace) % 16 != 0)
    throw std::invalid_argument(where + "the workspace must be 16-byte aligned");
  return p.workspace;
}

}  // namespace workbook
