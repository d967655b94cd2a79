#include "runner/built.h"

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "runner/checkout.h"

namespace workbook::runner {

std::map<std::string, std::string> build_keys(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Fatal(kExitFailed, "the build has no " + path + ": configure it again (./workbook setup)");
  std::map<std::string, std::string> said;
  for (std::string line; std::getline(in, line);)
    if (const std::size_t tab = line.find('\t'); tab != std::string::npos)
      said[line.substr(0, tab)] = line.substr(tab + 1);
  return said;
}

Built built(const std::string& build_dir, const std::string& lab, const std::string& kind) {
  const std::string path = build_dir + "/labs/" + lab + "/built-" + kind + ".txt";
  if (!std::ifstream(path))
    throw Fatal(kExitFailed, "the build in " + build_dir + " has no " + kind + " of " + lab + " (no " + path +
                                 "): configure it again (./workbook setup)");
  const std::map<std::string, std::string> said = build_keys(path);
  const auto value = [&](const std::string& key) {
    const auto found = said.find(key);
    if (found == said.end()) throw Fatal(kExitFailed, path + " does not say " + key + ": configure the build again");
    return found->second;
  };
  std::vector<std::string> tables;  // a CMake list: `;` between its items
  std::istringstream listed(value("nvcc_passes"));
  for (std::string table; std::getline(listed, table, ';');)
    if (!table.empty()) tables.push_back(table);
  return {value("judge_target"),
          value("judge"),
          value("grader_target"),
          value("grader"),
          value("planner_target"),
          value("planner"),
          value("library"),
          value("library_sass"),
          value("device_code"),
          value("device_code_sass"),
          value("device_code_target"),
          value("given_code"),
          value("given_code_sass"),
          value("gpu_code_architectures"),
          tables};
}

}  // namespace workbook::runner
