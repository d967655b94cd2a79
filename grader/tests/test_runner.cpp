// The runner's trust boundary: the rows a step's process leaves are taken only when they are that
// step's own, in a plain file; anything else becomes one failed row that says why.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "collect.h"
#include "process.h"

using namespace workbook;
using namespace workbook::runner;

namespace {

std::string scratch_file(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("workbook_runner_test_" + std::to_string(getpid()) + "_" + name)).string();
}

StepRow row_of(const std::string& step, Verdict verdict) {
  StepRow row;
  row.lab = "02_memory";
  row.step = step;
  row.verdict = verdict;
  return row;
}

bool refused(const std::vector<StepRow>& rows) {
  return rows.size() == 1 && rows[0].verdict == Verdict::kFail &&
         rows[0].reason.find("the step's process gave no result to believe") == 0;
}

}  // namespace

TEST_CASE("the runner takes a step's own rows, and no others") {
  const std::string own = scratch_file("own.tsv"), other = scratch_file("other.tsv"), link = scratch_file("link.tsv");
  const std::string bad = scratch_file("bad.tsv"), empty = scratch_file("empty.tsv");
  append_rows(own, {row_of("02.1 x", Verdict::kPass), row_of("02.1 x", Verdict::kInfo)});
  append_rows(other, {row_of("02.1 x", Verdict::kPass), row_of("02.2 y", Verdict::kPass)});
  std::ofstream(bad) << "one\ttwo\n";
  std::ofstream(empty).close();
  std::filesystem::remove(link);
  std::filesystem::create_symlink(own, link);

  const std::vector<StepRow> taken = collect_rows(own, "02_memory", "02.1 x");
  REQUIRE(taken.size() == 2);
  CHECK(taken[0].verdict == Verdict::kPass);
  CHECK(refused(collect_rows(own, "02_memory", "02.2 y")));  // asked for another step
  CHECK(refused(collect_rows(other, "02_memory", "02.1 x")));
  CHECK(refused(collect_rows(link, "02_memory", "02.1 x")));
  CHECK(refused(collect_rows(bad, "02_memory", "02.1 x")));
  CHECK(refused(collect_rows(empty, "02_memory", "02.1 x")));
  CHECK(refused(collect_rows(scratch_file("missing.tsv"), "02_memory", "02.1 x")));
  for (const std::string& path : {own, other, link, bad, empty}) std::filesystem::remove(path);
}

TEST_CASE("the runner starts a program with its arguments whole, and reports how it ended") {
  const Outcome echoed = run({{"printf", "%s|", "a b", "'$(id)'"}});
  CHECK(echoed.status == 0);
  CHECK(echoed.output == "a b|'$(id)'|");
  CHECK(run({{"sh", "-c", "exit 3"}}).status == 3);
  CHECK(run({{"sh", "-c", "kill -9 $$"}}).status == 137);  // a shell's 128 + SIGKILL
  CHECK(run({{"/nonexistent/program"}}).status == 127);
  const std::string out = scratch_file("out.txt");
  CHECK(run({{"sh", "-c", "echo here; echo there >&2"}, {{"WORKBOOK_X", "1"}}, "/", out}).status == 0);
  std::ifstream in(out);
  std::string first, second;
  std::getline(in, first);
  std::getline(in, second);
  CHECK(first == "here");
  CHECK(second == "there");
  std::filesystem::remove(out);
}
