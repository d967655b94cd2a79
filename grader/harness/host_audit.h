// The host-code audit ([host-code], docs/integrity.md): what a student's file may do outside its
// kernels, checked before any of it runs. A student's labs/NN_topic/<topic>.cu is host code too,
// and it is linked into the process that grades it. So, before compiling, its #include lines are
// read (nothing outside the lab, the workbook's student headers and the toolkit's and the standard
// library's headers), and after compiling, its object file:
//   imports      only the common set below and what the reference solution's own object imports
//                (generated into grader/labs/NN_topic/host_code.allowed, which ships with the lab)
//   definitions  external linkage only for the functions the lab's header declares; nothing a
//                shared library of the process exports (no interposing on malloc or the runtime)
//   initializers no static constructors or destructors of its own (nvcc's registration only), no
//                function registered to run at exit, no load-time resolvers (ifuncs)
//   instructions no system calls or other privileged instructions in its host code
// Plain C++; the object file is read with binutils (nm, objdump, c++filt), as the static checks do.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace workbook::host_audit {

// One thing the audit refuses, in words a student can act on.
struct Finding {
  std::string what;  // "memory.cu:12: #include \"/etc/passwd\"", "imports dlopen"
  std::string why;   // why it is refused and what to do instead
};

// "[host-code] what: why", the form every finding is reported in.
std::string describe(const Finding& finding);

// ---------------------------------------------------------------------------------------------
// #include lines, before compiling

struct IncludeRules {
  std::string lab_folder;       // labs/NN_topic: the lab's own headers
  std::string student_headers;  // the folder holding workbook/launch.cuh and the other student headers
  std::string internals;        // the grader's own headers (grader/harness), which a student's file may not include
  // Whether a file exists (the real file system, or a test's own).
  std::function<bool(const std::string&)> exists;
};

// The #include lines (and #include_next, #import, __has_include, .incbin) of `source`, a file's
// text named `file_name` in the findings. Lines continued with a backslash and comments are read
// as the compiler reads them; an include named by a macro is refused, since only a name written
// out can be checked without running the preprocessor.
std::vector<Finding> check_includes(const std::string& file_name, const std::string& source, const IncludeRules& rules);

// ---------------------------------------------------------------------------------------------
// The object file, after compiling

// What the reference solution's object file allows a student's (host_code.allowed): mangled names.
struct Allowance {
  std::set<std::string> imports;  // beyond the common set
  std::set<std::string> defines;  // the functions the lab's header declares
};
Allowance read_allowance(const std::string& path);  // throws std::runtime_error when it cannot read it
// The allowance file for a solution's object: every import outside the common set, every external
// definition outside an anonymous namespace. `lab` and `command` go into its header comment.
std::string allowance_text(const std::string& object, const std::string& lab, const std::string& command);

// Whether a symbol (mangled, as nm prints it without -C; `demangled` as c++filt gives it) is in
// the common set every lab may import: what nvcc generates, the C++ runtime's support, memory and
// string functions, math, and the CUDA runtime's device queries, function attributes and errors.
bool in_common_set(const std::string& mangled, const std::string& demangled);

// Every finding in `object` (a static library or an object file holding the student's file alone),
// compiled from `<topic>.cu`. `shared_exports`: the names the process's shared libraries define
// (a definition of one of them in the student's code would replace the library's for the whole
// process); empty to skip that check.
std::vector<Finding> audit_object(const std::string& object, const std::string& topic, const Allowance& allowance,
                                  const std::set<std::string>& shared_exports);

// Every name `object` defines (mangled), locally or not: the student's kernels among them. The
// device trace counts a kernel as the student's own only if its name is one of these
// (<grader>.own_code, written at build time).
std::vector<std::string> defined_names(const std::string& object);

// The kernels an object, a library or a program defines, by their demangled names
// ("memory_baseline::copy_kernel(float const*, float*, unsigned long)"), from their host stubs.
std::set<std::string> kernels_of(const std::string& file);

// The names every shared library `binary` loads exports (ldd, then nm -D --defined-only).
std::set<std::string> shared_library_exports(const std::string& binary);

}  // namespace workbook::host_audit
