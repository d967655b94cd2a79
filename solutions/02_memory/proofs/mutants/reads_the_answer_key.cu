// Host-code mutant (judged): the launcher looks for the instructor's reference solution in the
// checkout it is graded from (above its planner's binary, or beside its working folder), and throws
// its text, which once reached the step's reason: the console, grade.log and the results.json a
// student is shown. A planner reads nothing of the checkout or of results/, so it finds nothing and
// copies honestly: its verdicts must be its honest copy's (02.1-02.3 cleared, 02.4 and 02.6 failed).
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "every_step.h"
#include "honest_copy.cuh"

namespace {

// The first readable copy of the lab's solution among the folders above `from`.
std::string solution_above(std::string from) {
  while (!from.empty()) {
    for (const char* name : {"/solutions/02_memory/memory.cu", "/labs/02_memory/memory.cu"}) {
      std::ifstream file(from + name);
      std::ostringstream text;
      text << file.rdbuf();
      if (file && text.str().find("copy_with_copy_engine") != std::string::npos) return text.str();
    }
    from.resize(from.rfind('/'));
  }
  return "";
}

}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  char binary[4096] = {};
  char folder[4096] = {};
  (void)!readlink("/proc/self/exe", binary, sizeof binary - 1);
  (void)!getcwd(folder, sizeof folder - 1);
  for (const std::string& start : {std::string(binary), std::string(folder)})
    if (const std::string key = solution_above(start); !key.empty())
      throw std::runtime_error("THE ANSWER KEY: " + key.substr(0, 2000));  // the defect
  honest_copy(p, p.n, stream);
}
