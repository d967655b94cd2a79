// The #include check ([host-code], docs/integrity.md): a student's #include lines, read before
// compiling, so that a file that reaches outside the lab (another folder, the grader's own headers,
// a vendor library) hears so at once, in words it can act on. What the file's host code does once
// compiled is no longer checked: it runs only in its planner (judge.h), on nothing the judge
// measures. Also the kernels an object defines.
// Plain C++; object files are read with binutils (nm, c++filt), as the static checks do.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace workbook::host_audit {

// One thing the audit refuses, in words a student can act on.
struct Finding {
  std::string what;  // "memory.cu:12: #include \"/etc/passwd\""
  std::string why;   // why it is refused and what to do instead
};

// "[host-code] what: why", the form every finding is reported in.
std::string describe(const Finding& finding);

// ---------------------------------------------------------------------------------------------
// #include lines, before compiling

struct IncludeRules {
  std::string lab_folder;       // labs/NN_topic: the lab's own headers
  std::string student_headers;  // the folder holding workbook/launch.cuh and the other student headers
  std::string internals;        // the grader's folder: its headers (grader/*/), which a student's file may not include
  // Whether a file exists (the real file system, or a test's own).
  std::function<bool(const std::string&)> exists;
};

// The #include lines (and #include_next, #import, __has_include, .incbin) of `source`, a file's
// text named `file_name` in the findings. Lines continued with a backslash and comments are read
// as the compiler reads them; an include named by a macro is refused, since only a name written
// out can be checked without running the preprocessor.
std::vector<Finding> check_includes(const std::string& file_name, const std::string& source, const IncludeRules& rules);

// ---------------------------------------------------------------------------------------------
// Object files

// The kernels an object, a library or a program defines, by their demangled names
// ("memory_baseline::copy_kernel(float const*, float*, unsigned long)"), from their host stubs.
std::set<std::string> kernels_of(const std::string& file);

}  // namespace workbook::host_audit
