// What the build made of one implementation of a lab (starter, solution, submission, a mutant of the
// proofs) and where it lies: read from the file the build writes for it (labs/NN_topic/built-<kind>.txt, written by
// _write_what_was_built() in cmake/AddLab.cmake when the build is configured). The runner spells no
// target's name and no output's path: it asks for a target by the name read here and runs the
// program found here. Plain C++.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace workbook::runner {

struct Built {
  std::string judge_target, judge;      // the lab's judge: one for every implementation
  std::string grader_target, grader;    // the implementation linked into the lab's grader
  std::string planner_target, planner;  // its host code, in the planner the judge starts ("" where none)
  std::string library, library_sass;    // the implementation's library, and the build's SASS dump of it
  std::string device_code;              // the file whose GPU code the judge loads (a library, a fat binary)
  std::string device_code_sass;         // the build's SASS dump of it ("" where the build dumps none)
  std::string device_code_target;       // the target that builds it, and dumps its machine code
  std::string given_code;               // the lab's given GPU code, a library of its own ("" where none)
  std::string given_code_sass;          // the build's SASS dump of it ("" where none)
  std::string gpu_code_architectures;   // the file naming the GPU code every implementation carries
  // Where nvcc times its passes on a student's file, a table for each of its compiles (its GPU half
  // and its host half: cmake/StudentFile.cmake, _compile_students_file); none for other implementations.
  std::vector<std::string> nvcc_passes;
};

// The "KEY<tab>VALUE" lines of a file the build writes (built-<kind>.txt, a lab's lab-tests.txt).
// Throws Fatal (failed) where there is no such file, saying to configure again.
std::map<std::string, std::string> build_keys(const std::string& path);

// What `build_dir`'s build made of `kind` of `lab`. Throws Fatal (failed) where the build was not
// configured with that implementation, saying so.
Built built(const std::string& build_dir, const std::string& lab, const std::string& kind);

}  // namespace workbook::runner
