// Which GPU code an object file carries, read from the fat binary nvcc embeds in it, with no tool of
// the CUDA toolkit (CI's toolkit has no cuobjdump). Each image is named as nvcc names its target:
// "sm_90" for machine code (SASS) that runs on compute capability 9.0 as it is, "sm_90a" for Hopper's
// architecture-specific machine code (wgmma, setmaxnreg), "compute_90" for PTX, which the driver
// compiles at load time for a GPU that has no machine code of its own in the file. A file built for
// the wrong GPU still runs, from PTX compiled by the driver: this is how the grader tells.
// Plain C++: tested on the CPU against objects nvcc built.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace workbook {

// The images of one or more fat binaries laid end to end (an object's .nv_fatbin section). Throws
// std::runtime_error when the bytes are not a fat binary.
std::set<std::string> gpu_code_in_fat_binaries(std::string_view bytes);

// The images of every fat binary in an object file (a 64-bit ELF relocatable object), a static
// library (an ar archive of them) or a fat binary file (nvcc -fatbin). Throws std::runtime_error, saying why, when the
// file cannot be read or is neither.
std::set<std::string> gpu_code_in_file(const std::string& path);

// Every fat binary in an object file, a static library or a fat binary file, each whole (its header and images), as
// the CUDA driver loads one (cuLibraryLoadData): the student's device code, which the judge loads
// without linking the student's host code. Throws std::runtime_error as gpu_code_in_file() does.
std::vector<std::string> fat_binaries_in_file(const std::string& path);

// The variables a kernel could write and keep from one launch to the next: the `__device__`,
// `__managed__` and `__constant__` globals of each machine-code image of one fat binary, read from
// the image's ELF symbol table, by section (".nv.global" for those that start zeroed,
// ".nv.global.init" for those with an initial value, ".nv.managed", ".nv.constant3"), each symbol
// at its offset in the image. (The driver need not keep those offsets: replay.cpp says what it does.)
// Throws std::runtime_error for an image that is not readable ELF; a
// compressed image is listed with `compressed` set and no sections.
struct GlobalsImage {
  std::string image;  // "sm_90"
  bool compressed = false;
  struct Symbol {
    std::string name;
    std::uint64_t offset = 0, bytes = 0;
  };
  struct Section {
    std::string name;
    std::uint64_t bytes = 0;
    std::vector<Symbol> symbols;
  };
  std::vector<Section> sections;  // only those holding bytes
};
std::vector<GlobalsImage> device_globals_in_fat_binary(std::string_view fat_binary);

// The images that nvcc makes for CMake's CUDA_ARCHITECTURES ("80;90", "90-real", "90a-virtual"):
// "90" is machine code and PTX, "-real" machine code alone, "-virtual" PTX alone. Throws
// std::invalid_argument for an entry of another form.
std::set<std::string> gpu_code_for_architectures(std::string_view architectures);

// "sm_90, compute_90" (sorted), or "no GPU code".
std::string listed(const std::set<std::string>& images);

}  // namespace workbook
