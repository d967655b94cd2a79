// The machine code (SASS) of the grader's own kernels, read with the CUDA toolkit's cuobjdump, for
// the defences that must know what a kernel does rather than what it outputs: whether a kernel
// reads its block's index, say, which no run on a GPU that starts blocks in order can show.
// Plain C++: the reading runs cuobjdump on this program; the parsing is tested on the CPU.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace workbook {

// `cuobjdump -sass` output, split by kernel: each "Function : NAME" section's instructions, keyed
// by the mangled NAME (what cudaFuncGetName() returns): its instruction lines alone, each line's
// words one space apart (the same text whether the kernel was dumped alone or with its whole file).
std::map<std::string, std::string> sass_by_kernel(std::string_view cuobjdump_output);

// Whether a kernel's SASS reads the block's index: blockIdx.x, .y or .z (special register
// SR_CTAID), or a cluster's index, which equals blockIdx for clusters of one block (SR_CLUSTERID).
// gridDim (SR_NCTAID) and the block's rank in its cluster (SR_CgaCtaId) are not its index.
bool reads_block_index(std::string_view sass);

// Whether a kernel's SASS can see what other blocks write while it runs, which a block that waits
// for another must: a global load at GPU or system scope (volatile, relaxed or acquire: LDG...STRONG.
// GPU or .SYS), a global atomic that returns a value (ATOMG, ATOM; not RED, which returns nothing),
// or a GPU- or system-wide fence (MEMBAR). A kernel with none of these cannot wait for another block.
bool watches_other_blocks(std::string_view sass);

// Where a kernel's SASS can reuse shared memory that a copy-engine store may still be reading: ""
// when no path through its control flow leads from a bulk store out of shared memory (UBLKCP.G.S,
// UTMASTG, UBLKRED) to a bulk load into it (UBLKCP.S.G, UTMALDG) without a wait on the stores
// (DEPBAR, which cp.async.bulk.wait_group[.read] becomes); else "the store at 0x0960 reaches the load
// at 0x0b10 ...". Every branch is taken both ways, so a path counts whether or not it can run.
std::string store_to_load_without_wait(std::string_view sass);

// A file whose kernels are graded, and the SASS the build dumped of it (`cuobjdump -sass FILE`, at a
// path the build names: cmake/AddLab.cmake, _machine_code_dump), "" where there is none.
struct MachineCodeFile {
  std::string file;
  std::string dump;
};

// The files whose kernels are graded: this program's own (/proc/self/exe) where it links the
// student's code; a judge (judge.h) sets the student's files and their dumps instead, before any is read.
std::vector<MachineCodeFile>& machine_code_files();

// The SASS of every kernel in those files, read once (cuobjdump). Throws std::runtime_error, saying
// why, when cuobjdump cannot be run or finds nothing.
const std::map<std::string, std::string>& this_programs_sass();

// The SASS of one kernel of those files, by the name cudaFuncGetName() gives (mangled, or else
// demangled), read once per kernel: cuobjdump asked for that kernel alone, or, for a name it does
// not know, every kernel. Throws std::runtime_error when there is none.
std::string sass_of(const std::string& kernel_name);

// "" when the dump the build wrote of a file reads for each of its kernels as `cuobjdump -sass -fun
// KERNEL FILE` does, which the checks read where there is no dump; else the first kernel that does
// not (a static test of each lab's libraries).
std::string dump_disagrees(const MachineCodeFile& code);

// "scan_kernel<256>(unsigned const*, ...)" for "_Z11scan_kernelILi256EEvPKj..." (or the name as
// given, when it does not demangle).
std::string demangled(const std::string& mangled);

}  // namespace workbook
