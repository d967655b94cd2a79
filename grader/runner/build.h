// Building what a command grades, with the checkout's CMake presets: a submission's build folder
// configured for its files, and the labs' graders built together, then, where one does not
// compile, each by itself, so that a lab that does not compile fails alone. Before a student's file is compiled, its
// #include lines are audited (workbook_audit includes): a lab whose file includes what it may not is not compiled at
// all. After it is compiled, its object must carry the GPU code the build compiles every file to (workbook_audit
// gpu-code): one that would run from code the driver compiles instead is not graded. A submission's
// build folder compiles to the checkout build's architectures, decided once when that was configured.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runner/checkout.h"

namespace workbook::runner {

// What became of each lab asked for.
struct LabsBuilt {
  std::vector<std::string> built;                  // their graders are ready
  std::vector<std::string> broken;                 // did not compile (the errors are in build.log)
  std::map<std::string, std::string> first_error;  // lab -> the compiler's first error, when one is in the log
  std::vector<std::string> missing;                // a submission without the lab's file
  std::map<std::string, std::string> refused;      // lab -> the include audit's findings
  // lab -> why its object does not carry the build's GPU code ([gpu-code]): built, but not graded
  std::map<std::string, std::string> miscompiled;
  // lab -> the files nvcc writes the times of its passes on the student's file in (built.h's
  // nvcc_passes), emptied before this build: absent after it when the file was not compiled again.
  std::map<std::string, std::vector<std::string>> nvcc_passes;
};

// The file where nvcc wrote how long each of its passes took on a student's file (the compile option
// --time that cmake/StudentFile.cmake gives a student's file alone; built.h's nvcc_passes): its rows in one line, the
// seconds of each pass, the passes that run once for each GPU architecture (cicc, ptxas) for each ("preprocessing 0.4
// s, cudafe++ 0.8 s, cicc 2.9 s for compute_90 and 2.9 s for compute_90a, ptxas 1.7 s for sm_90 and 1.6 s for sm_90a,
// fatbinary 0.0 s, host compiler 2.4 s"); "" when there is no such file or it holds no row.
std::string nvcc_passes(const std::string& table);

// The CUDA architectures `build_dir` compiles every file to ("90", "80;90"), from its CMake cache.
std::string configured_architectures(const std::string& build_dir);

class Build {
 public:
  // Builds in `build_dir`, logging into `log_folder`/configure.log and build.log.
  Build(const Checkout& checkout, std::string build_dir, std::string log_folder);

  // Configures the build folder with the checkout's preset and `definitions` (-DNAME=VALUE), for the
  // GPU code the checkout's own build compiles to.
  void configure(const std::vector<std::string>& definitions) const;
  // Builds `targets`, appending to build.log and saying every tenth of the way how far it has got;
  // `keep_going`, everything that does not depend on what fails to build.
  bool targets(const std::vector<std::string>& targets, bool keep_going = false) const;
  // The compiler's first errors, or the log's end when there are none to pick out, on stderr.
  void show_errors() const;
  // The warnings the build's log holds on each lab's student file (lab -> the file as built), on
  // the console, at the file as the student names it.
  void show_warnings(const std::map<std::string, std::string>& file_of) const;
  // The compiler's first error, at the line of the student's file that caused it, named from labs/
  // ("labs/02_memory/memory.cu(35): error: ..."), for a failed step's reason; a launcher defined
  // with other parameters than its header's, at its definition in `student_file` (shown as
  // `shown_file`). "" when the log holds none after its first `from` bytes.
  std::string first_error(std::size_t from = 0, const std::string& student_file = "",
                          const std::string& shown_file = "") const;
  // What grades each lab for `kind` (starter, solution, or submission: the files in `taken`):
  // `judged`, the lab's judge and the implementation's planner (grade); else the grader that links
  // the implementation (grade --linked, bench, calibrate: the reference solutions). A submission's
  // folder builds its files alone: its judges are the checkout's (judges()), the same for every
  // student, since a judge links nothing of any implementation.
  LabsBuilt graders(const std::vector<std::string>& labs, const std::string& kind, const std::string& taken = "",
                    bool judged = false) const;

  // Each lab's judge, in this build (the checkout's): once for a class, before its students, so that
  // no student's build, nor two gradings at once, builds them. Throws Fatal when one does not build.
  void judges(const std::vector<std::string>& labs) const;

  const std::string& folder() const { return build_dir_; }
  std::string log() const { return log_folder_ + "/build.log"; }

  // Where this object's builds went, from ninja's own record of each output it made (the build
  // folder's .ninja_log, read from where it ended when this object was made): the longest `most`
  // outputs of 0.1 s or more, named by file, each with its seconds ("sgemm.cu.o 13.3 s,
  // liblab04_sgemm_starter.a 2.6 s (and its machine code dumped), ..."); "" when none.
  std::string where_the_time_went(std::size_t most = 4) const;

 private:
  const Checkout& checkout_;
  std::string build_dir_, log_folder_;
  std::uintmax_t ninja_log_from_ = 0;  // .ninja_log's size when this object was made
};

}  // namespace workbook::runner
