// What the lab's tests program (lab_tests.cpp) knows of a lab and writes of each test, shared with
// the part of it compiled against the lab's proofs table (lab_proofs.cpp). Plain C++.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "protocol/lab_facts.h"
#include "runner/built.h"
#include "runner/checkout.h"

namespace workbook::lab_tests {

using Strings = std::vector<std::string>;

// One CTest test: what it runs and what CTest is told of it.
struct Test {
  std::string name;
  Strings command;
  std::string labels;       // "gpu;02_memory;judge": a gpu test is skipped (exit 77) where there is no GPU
  int timeout = 0;          // seconds; 0: CTest's default
  std::string pass_regex;   // where the exit status does not say it (CTest's PASS_REGULAR_EXPRESSION)
  std::string environment;  // "NAME=VALUE"

  Test(std::string name, Strings command, std::string labels, int timeout = 0, std::string pass_regex = "",
       std::string environment = "")
      : name(std::move(name)),
        command(std::move(command)),
        labels(std::move(labels)),
        timeout(timeout),
        pass_regex(std::move(pass_regex)),
        environment(std::move(environment)) {}
};

// The lab as the build made it.
struct Lab {
  std::string build, name, number, topic, source;  // source: the checkout's root
  std::map<std::string, std::string> said;         // lab-tests.txt
  std::vector<workbook::runner::StepInfo> steps;   // as the lab's judge describes them

  workbook::runner::Built of(const std::string& kind) const { return workbook::runner::built(build, name, kind); }
  std::string fact(const std::string& key) const {
    const auto found = said.find(key);
    if (found == said.end()) throw std::runtime_error("lab-tests.txt of " + name + " does not say " + key);
    return found->second;
  }
  std::string in_source(const std::string& path) const { return source + "/" + path; }
  std::string script(const std::string& name) const { return in_source("grader/tests/" + name); }
  std::string student_file() const { return "labs/" + name + "/" + topic + ".cu"; }
  std::string every_step() const { return "--test-case=" + number + ".*"; }
};

// The judge grading `kind` as every file is graded: its planner, and the GPU code the judge loads
// (with the lab's given code), each file with its machine code's dump where the build wrote one.
Strings judged(const Lab& lab, const std::string& kind);
Strings operator+(Strings words, const Strings& more);
// The #include check of a file (`workbook_audit includes`): its lines stay inside the lab and the toolkit.
Strings include_check(const Lab& lab, const std::string& file);

// The proofs' tests, from the lab's proofs table (lab_proofs.cpp): none where the table is not
// compiled in (a student's copy has no solutions/).
void proofs_tests(const Lab& lab, std::vector<Test>& tests);

}  // namespace workbook::lab_tests
