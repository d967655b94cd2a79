#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>

#include "harness/csv_table.h"
#include "protocol/lab_facts.h"
#include "protocol/plan_findings.h"
#include "protocol/rows.h"
#include "runner/reports.h"

using namespace workbook;

namespace {
// A step by its shown name, "02.1 several floats", as the tests write it.
LabStep step_of(const std::string& lab, const std::string& name) {
  const std::size_t space = name.find(' ');
  return {lab, name.substr(0, space), space == std::string::npos ? "" : name.substr(space + 1)};
}
StepRow judged(const std::string& step, const std::string& result, const std::string& reason = "") {
  StepRow row;
  row.step = step_of("02_memory", step);
  row.measured_at = "occupancy 6.25%";
  row.verdict = result == "PASS" ? Verdict::kPass : result == "FAIL" ? Verdict::kFail : Verdict::kInfo;
  row.defence = defence_named_in(result == "FAIL" ? reason : "");  // as the grader's record() sets it
  row.time_ms = 0.25;
  row.rate = 2100;
  row.percent_of_peak = 70.5;
  row.reference = "cudaMemcpy";
  row.speedup = 3.25;
  row.bar = ">= 3x";
  row.reason = reason;
  return row;
}
}  // namespace

TEST_CASE("a row survives the trip through a line of text, unmeasured fields included") {
  StepRow row = judged("02.1 several floats", "FAIL", "a reason\twith a tab\nand a newline");
  row.occupancy_percent = kNotMeasured;
  row.registers = 16;
  const StepRow back = from_line(to_line(row));
  CHECK(back.step == row.step);
  CHECK(back.verdict == Verdict::kFail);
  CHECK(back.time_ms == 0.25);
  CHECK(back.speedup == 3.25);
  CHECK(std::isnan(back.occupancy_percent));
  CHECK(back.registers == 16);
  CHECK(back.local_bytes == -1);
  CHECK(back.reason == "a reason with a tab and a newline");
  CHECK(back.reference == "cudaMemcpy");
}

TEST_CASE("a lab's facts survive the trip through --describe's text, and a text of none is refused") {
  const workbook::LabFacts facts{"02_memory",
                                 "memory",
                                 "labs/02_memory/memory.cu",
                                 {{"02.1", "several floats per thread", ">= 1.76x"}, {"02.6", "copy engine", ""}},
                                 "dram__bytes.sum,sm__warps_active.avg",
                                 "curve,gb_per_s",
                                 "n = 733648 and 2694445"};
  const workbook::LabFacts read = workbook::facts_from_text(workbook::facts_text(facts));
  CHECK(read.lab == facts.lab);
  CHECK(read.topic == facts.topic);
  CHECK(read.file == facts.file);
  REQUIRE(read.steps.size() == 2);
  CHECK(read.steps[0].id == "02.1");
  CHECK(read.steps[0].title == "several floats per thread");
  CHECK(read.steps[0].bar == ">= 1.76x");
  CHECK(read.steps[1].bar.empty());
  CHECK(read.metrics == facts.metrics);
  CHECK(read.columns == facts.columns);
  CHECK(read.sizes == facts.sizes);
  CHECK_THROWS_AS(workbook::facts_from_text("lab\t02_memory\n"), std::invalid_argument);
}

TEST_CASE("a plan check's finding survives the trip through its line, on one line, and other lines are none") {
  const workbook::PlanFinding finding{{"02.3", "02.10"}, "float4 loads, n = 33: my launcher\nthrew: n is odd"};
  const std::string line = workbook::plan_finding_line(finding);
  CHECK(line.find('\n') == std::string::npos);
  const std::optional<workbook::PlanFinding> read = workbook::plan_finding_from_line(line);
  REQUIRE(read.has_value());
  CHECK(read->steps == finding.steps);
  CHECK(read->what == "float4 loads, n = 33: my launcher threw: n is odd");
  CHECK_FALSE(workbook::plan_finding_from_line("[workbook] plans checked without a GPU: 6 steps, 6 calls; refused: 0"));
  CHECK_FALSE(workbook::plan_finding_from_line("| [workbook] plan-check: 02.1: forged by a kernel's printf"));
}

TEST_CASE("a passing step's summary names what its percentage is of") {
  const std::vector<StepVerdict> result = verdicts({judged("02.1", "PASS")});
  REQUIRE(result.size() == 1);
  CHECK(result[0].summary == ">= 3x: measured 3.25x, 70.5% of cudaMemcpy at occupancy 6.25%");
}

TEST_CASE("a step checked for correctness only says so, not what it did not measure") {
  StepRow row = judged("02.1", "PASS", "correct on every shape checked; nothing timed");
  row.speedup = kNotMeasured;
  row.percent_of_peak = kNotMeasured;
  const std::vector<StepVerdict> result = verdicts({row});
  REQUIRE(result.size() == 1);
  CHECK(result[0].passed);
  CHECK(result[0].summary == "correct on every shape checked; nothing timed");
}

TEST_CASE("malformed rows are refused, not half-read") {
  CHECK_THROWS_AS(from_line("too\tfew"), std::invalid_argument);
  std::string line = to_line(judged("s", "PASS"));
  line.replace(line.find("0.25"), 4, "fast");
  CHECK_THROWS(from_line(line));
}

TEST_CASE("a step passes only when every judged row passes") {
  StepRow info = judged("02.1", "info");
  const std::vector<StepVerdict> result =
      verdicts({judged("02.1", "PASS"), info, judged("02.2", "PASS"), judged("02.2", "FAIL", "too slow"), info});
  REQUIRE(result.size() == 2);
  CHECK(result[0].passed);
  CHECK_FALSE(result[1].passed);
  CHECK(result[1].summary == "too slow");
}

TEST_CASE("a step with no judged row did not finish, and fails") {
  const std::vector<StepVerdict> result = verdicts({judged("02.3", "info")});
  REQUIRE(result.size() == 1);
  CHECK_FALSE(result[0].passed);
}

TEST_CASE("the table lists every row and counts passing steps") {
  std::ostringstream out;
  print_table(out,
              {judged("02.1 several floats", "PASS"), judged("02.2 float2", "FAIL", "TODO(02.2) not implemented")});
  const std::string text = out.str();
  CHECK(text.find("02.1 several floats") != std::string::npos);
  CHECK(text.find("3.25x") != std::string::npos);
  CHECK(text.find("FAIL  02.2 float2: TODO(02.2) not implemented") != std::string::npos);
  CHECK(text.find("1 of 2 steps pass") != std::string::npos);
}

TEST_CASE("the compact scorecard fits a 100-column terminal with the labs' longest texts") {
  std::vector<StepRow> rows;
  for (const auto& [step, at, unit, rate] : std::vector<std::tuple<std::string, std::string, std::string, double>>{
           {"04.10 packed cp.async pipeline", "4096^3, 2.25 B shared/flop", "GFLOP/s", 50465},
           {"02.4 many float4 at low occupancy", "100% occ. (128 thr x 16 blk)", "GB/s", 2979},
           {"03.4 at copy speed", "16383 x 16385", "GB/s", 2862}}) {
    StepRow row = judged(step, "FAIL", "a reason that goes below the table, however long it is");
    row.measured_at = at;
    row.rate_unit = unit;
    row.rate = rate;
    row.time_ms = 123.456;
    row.speedup = 101.36;
    row.percent_of_peak = 105.5;
    row.occupancy_percent = 100.0;
    row.registers = 255;
    rows.push_back(row);
  }
  std::ostringstream out;
  print_table(out, rows, Table::kCompact);
  std::istringstream lines(out.str());
  std::string line;
  bool in_table = true;
  while (std::getline(lines, line)) {
    if (line.empty()) in_table = false;  // the verdicts below may wrap: a terminal wraps prose well
    if (in_table) CHECK_MESSAGE(line.size() <= kScorecardColumns, line.size(), " columns: ", line);
  }
}

TEST_CASE("Gradescope results.json: one test per step, escaped output, a total and a leaderboard") {
  std::ostringstream out;
  write_gradescope_json(out, {judged("02.1", "PASS"), judged("02.2", "FAIL", "said \"no\"\\")});
  const std::string json = out.str();
  CHECK(json.find("\"score\": 1.00,") != std::string::npos);  // the total: one point a step by default
  CHECK(json.find("\"name\": \"02_memory 02.1\", \"score\": 1.00, \"max_score\": 1.00, \"status\": \"passed\", "
                  "\"visibility\": \"visible\"") != std::string::npos);
  CHECK(json.find("\"score\": 0.00") != std::string::npos);
  CHECK(json.find("said \\\"no\\\"\\\\") != std::string::npos);
  CHECK(json.find("\"leaderboard\": [{\"name\": \"02_memory 02.2, % of cudaMemcpy\", \"value\": 70.5}]") !=
        std::string::npos);
  CHECK(json_escape("a\nb\x01") == "a\\nb\\u0001");
  CHECK(json.find("seed") == std::string::npos);  // said only when the grading knows it
  std::ostringstream seeded;
  write_gradescope_json(seeded, {judged("02.1", "PASS")}, {}, "7");
  CHECK(seeded.str().find("\"output\": \"graded with seed 7: ./workbook grade --seed 7 replays the same inputs\",") !=
        std::string::npos);
  // Where no step ran (each a "not graded: ..."), no seed is said to have graded anything.
  std::ostringstream none;
  write_gradescope_json(
      none, {judged("02.1", "FAIL", "not graded: no CUDA GPU is visible"), judged("02.2", "FAIL", "not graded: x")}, {},
      "7");
  CHECK(none.str().find("graded with seed") == std::string::npos);
  CHECK(none.str().find("\"output\": \"nothing was graded: each step below says why\",") != std::string::npos);
}

namespace {
// A file of its own for each text: CTest runs the test cases of this file in parallel.
std::string write_points(const std::string& text) {
  const std::string name = "workbook-points-test-" + std::to_string(std::hash<std::string>{}(text)) + ".conf";
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << text;
  return path;
}
}  // namespace

TEST_CASE("points: per step, a default, and partial credit only for a correct step below its bar") {
  const Points points =
      read_points(write_points("# the course's weights\n* 2 1\n02.2 5 3  # the hard one\n\n02.3 4\n"));
  CHECK(points.of(step_of("02_memory", "02.1 several floats per thread")).points == 2);
  CHECK(points.of(step_of("02_memory", "02.2 float2")).points == 5);
  CHECK(points.of(step_of("02_memory", "02.3 float4")).if_correct == 0);
  StepRow slow = judged("02.2", "FAIL", "speedup 2.10x over the baseline at occupancy 6.25%, the bar is 3x");
  StepRow cheat = judged("02.2", "FAIL", "[ceiling] measured at 140% of cudaMemcpy on the same inputs");
  StepRow wrong = judged("02.2", "FAIL", "n = 33: 1 of 33 elements differ");
  wrong.measured_at = "correctness";
  wrong.speedup = std::nan("");
  CHECK(points.score(verdicts({judged("02.2", "PASS")}).front()) == 5);
  CHECK(points.score(verdicts({slow}).front()) == 3);
  CHECK(points.score(verdicts({cheat}).front()) == 0);
  CHECK(points.score(verdicts({wrong}).front()) == 0);
  // A step with a passing row and a slow one is correct; with a wrong one it is not.
  CHECK(verdicts({judged("02.2", "PASS"), slow}).front().correct);
  CHECK_FALSE(verdicts({judged("02.2", "PASS"), cheat}).front().correct);
}

TEST_CASE("points: a malformed file is refused with its line") {
  CHECK_THROWS_WITH_AS(read_points(write_points("02.1 x\n")), doctest::Contains(":1: no points"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(read_points(write_points("\n02.1 1 2\n")), doctest::Contains(":2: partial credit"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(read_points(write_points("02.1 1 0 9\n")), doctest::Contains("unexpected '9'"),
                       std::invalid_argument);
  CHECK_THROWS_AS(read_points("/nonexistent/points.conf"), std::invalid_argument);
}

TEST_CASE("the class CSV: a header once, then one line per step and student") {
  const std::string path = (std::filesystem::temp_directory_path() / "workbook-class-test.csv").string();
  std::filesystem::remove(path);
  append_class_csv(path, "ada", {judged("02.1", "PASS")}, Points{});
  append_class_csv(path, "bob, jr", {judged("02.1", "FAIL", "speedup 1.5x")}, Points{}, "2026");
  std::ifstream in(path);
  std::string header, first, second, extra;
  std::getline(in, header);
  std::getline(in, first);
  std::getline(in, second);
  CHECK(header.rfind("student,lab,step,verdict,score,max_score,", 0) == 0);
  CHECK(first.rfind(
            "ada,02_memory,02.1,PASS,1.00,1.00,occupancy 6.25%,0.2500,2100.0000,GB/s,70.5000,cudaMemcpy,3.2500,", 0) ==
        0);
  CHECK(second.rfind("\"bob, jr\",02_memory,02.1,\"FAIL (correct, below the bar)\",0.00,1.00,", 0) == 0);
  CHECK(header.ends_with(",reason,seed"));
  CHECK(second.ends_with(",2026"));  // the seed the class was graded with, last
  CHECK_FALSE(std::getline(in, extra));
  // A row that measured nothing names no unit and no reference.
  StepRow unmeasured = judged("04.1", "FAIL", "not graded: 04_sgemm does not compile");
  unmeasured.rate = std::nan("");
  unmeasured.percent_of_peak = std::nan("");
  append_class_csv(path, "cy", {unmeasured}, Points{});
  std::ifstream again(path);
  std::string line, last;
  while (std::getline(again, line)) last = line;
  CHECK(last.find("GB/s") == std::string::npos);
  CHECK(last.find("cudaMemcpy") == std::string::npos);
  // A student's words a spreadsheet would run as a formula are kept as text.
  append_class_csv(path, "=HYPERLINK(\"x\")", {judged("02.1", "FAIL", "@SUM(A1:A9)")}, Points{});
  std::ifstream third(path);
  while (std::getline(third, line)) last = line;
  CHECK(last.rfind("\"'=HYPERLINK(\"\"x\"\")\",", 0) == 0);
  CHECK(last.find(",'@SUM(A1:A9),") != std::string::npos);
}

TEST_CASE("JUnit: failures carry their reason") {
  std::ostringstream out;
  write_junit(out, {judged("02.1", "PASS"), judged("02.2", "FAIL", "x < y")});
  const std::string xml = out.str();
  CHECK(xml.find("tests=\"2\" failures=\"1\"") != std::string::npos);
  CHECK(xml.find("<failure message=\"x &lt; y\"/>") != std::string::npos);
}

TEST_CASE("a benchmark CSV's header is its columns, and a row of another length is refused") {
  const std::string path = (std::filesystem::temp_directory_path() / "workbook_csv_table_test.csv").string();
  {
    workbook::CsvTable csv(path, {"curve", "n", "gb_per_s"});
    csv.row({"06.6 one pass", std::size_t{268435456}, 2987.5});
    csv.row({"06.8 Blelloch, \"conflict-free\"", 1, 2});  // a comma and quotes: quoted, quotes doubled
    CHECK_THROWS_AS(csv.row({"too", "short"}), std::logic_error);
    CHECK_THROWS_AS(csv.row({"too", 1, 2.0, "long"}), std::logic_error);
  }
  std::ifstream written(path);
  std::string header, row, extra;
  std::getline(written, header);
  std::getline(written, row);
  CHECK(header == "curve,n,gb_per_s");
  CHECK(row == "06.6 one pass,268435456,2987.5");
  std::getline(written, row);
  CHECK(row == "\"06.8 Blelloch, \"\"conflict-free\"\"\",1,2");
  CHECK_FALSE(std::getline(written, extra));  // the refused rows wrote nothing
  std::filesystem::remove(path);
  CHECK_THROWS_AS(workbook::CsvTable("/nonexistent-folder/x.csv", {"a"}), std::runtime_error);
}

namespace {
// The row grade_step() records for a step that needs a newer GPU (Step::min_compute_capability).
StepRow not_applicable(const std::string& step) {
  StepRow row;
  row.step = step_of("02_memory", step);
  row.measured_at = "architecture";
  row.verdict = Verdict::kNotApplicable;
  row.reason = "needs compute capability 9.0 or newer; this GPU is graded as 8.0: not applicable here";
  return row;
}
}  // namespace

TEST_CASE("a step not applicable on this GPU is neither passed nor failed, anywhere it is reported") {
  const std::vector<StepRow> rows = {judged("02.5", "PASS"), not_applicable("02.6")};
  const std::vector<StepVerdict> all = verdicts(rows);
  REQUIRE(all.size() == 2);
  CHECK_FALSE(all[1].applicable);
  CHECK_FALSE(all[1].passed);
  CHECK(all[1].summary.find("needs compute capability 9.0") != std::string::npos);

  std::ostringstream table;
  print_table(table, rows);
  CHECK(table.str().find("n/a   02.6: needs compute capability 9.0") != std::string::npos);
  CHECK(table.str().find("1 of 1 steps pass (1 more not applicable on this GPU)") != std::string::npos);

  // Gradescope: worth nothing, no status; the leaderboard shows the last step that was graded.
  const Points points = read_points(write_points("* 3 1\n"));
  CHECK(points.score(all[1]) == 0);
  CHECK(points.max_score(all[1]) == 0);
  std::ostringstream json;
  write_gradescope_json(json, rows, points);
  CHECK(json.str().find("\"score\": 3.00,") != std::string::npos);
  CHECK(json.str().find("\"name\": \"02_memory 02.6\", \"score\": 0.00, \"max_score\": 0.00, \"visibility\"") !=
        std::string::npos);
  CHECK(json.str().find("02_memory 02.5, % of cudaMemcpy") != std::string::npos);

  std::ostringstream xml;
  write_junit(xml, rows);
  CHECK(xml.str().find("tests=\"2\" failures=\"0\" skipped=\"1\"") != std::string::npos);
  CHECK(xml.str().find("<skipped message=\"needs compute capability 9.0") != std::string::npos);

  const std::string path = (std::filesystem::temp_directory_path() / "workbook-class-n-a-test.csv").string();
  std::filesystem::remove(path);
  append_class_csv(path, "ada", rows, points);
  std::ifstream in(path);
  std::string header, passed, skipped;
  std::getline(in, header);
  std::getline(in, passed);
  std::getline(in, skipped);
  CHECK(skipped.rfind("ada,02_memory,02.6,n/a,0.00,0.00,", 0) == 0);
  CHECK(skipped.find("needs compute capability 9.0") != std::string::npos);
}

TEST_CASE("the gradebook: a row per student, their points per lab and in all, every student listed") {
  // One lab graded: 02.1 passed (1 point), 02.2 failed (0); the shipped points give 1 a step.
  const std::vector<StepRow> rows = {judged("02.1 several floats", "PASS"),
                                     judged("02.2 float2 loads", "FAIL", "too slow")};
  std::map<std::string, LabScores> scores;
  scores["alice"] = lab_scores(rows, Points{});
  CHECK(scores["alice"]["02_memory"] == doctest::Approx(1.0));
  std::ostringstream out;
  write_gradebook(out, {"alice", "bob, the second"}, {"02_memory", "03_transpose"}, scores);
  CHECK(out.str() ==
        "student,02_memory,03_transpose,total\n"
        "alice,1.00,0.00,1.00\n"
        "\"bob, the second\",0.00,0.00,0.00\n");  // graded nothing: still a row, with zeros
}

namespace {
// What a hostile launcher throws: it erases the line it is on and writes PASS where FAIL was.
constexpr const char* kRedrawsTheLine = "\x1b[2K\rPASS";

bool holds_no_raw_control(const std::string& text) {
  return text.find('\x1b') == std::string::npos && text.find('\r') == std::string::npos;
}

std::string text_of_file(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
}  // namespace

TEST_CASE("every report writes a student's text as data: no escape sequence reaches a console or a file raw") {
  StepRow hostile = judged(std::string("02.2 float2 ") + kRedrawsTheLine, "FAIL",
                           std::string("the launcher threw: ") + kRedrawsTheLine);
  hostile.measured_at = kRedrawsTheLine;
  hostile.reference = kRedrawsTheLine;
  hostile.rate_unit = kRedrawsTheLine;
  const std::vector<StepRow> rows = {judged("02.1", "PASS"), hostile};

  // The rows' own file, from the judge to the runner and kept with the student's results.
  CHECK(to_line(hostile).find('\x1b') == std::string::npos);
  CHECK(from_line(to_line(hostile)).reason ==
        "the launcher threw: \\x1b[2K PASS");  // its CR a space, as a tab or newline is

  for (const Table table : {Table::kCompact, Table::kFull}) {  // the console's scorecard, and the judge's in grade.log
    std::ostringstream scorecard;
    print_table(scorecard, rows, table);
    CHECK(holds_no_raw_control(scorecard.str()));
    CHECK(scorecard.str().find("the launcher threw: \\x1b[2K\\rPASS") != std::string::npos);
  }

  const std::string json_path = (std::filesystem::temp_directory_path() / "workbook-as-data-results.json").string();
  {
    std::ofstream json(json_path);
    write_gradescope_json(json, rows, Points{}, kRedrawsTheLine);
  }
  CHECK(holds_no_raw_control(text_of_file(json_path)));
  CHECK(text_of_file(json_path).find("the launcher threw: \\\\x1b[2K\\\\rPASS") !=
        std::string::npos);  // \x1b, JSON-escaped
  // Still JSON, as Gradescope reads it.
  CHECK(std::system(
            ("python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding=\"utf-8\"))' " + json_path).c_str()) ==
        0);
  std::filesystem::remove(json_path);

  std::ostringstream junit;
  write_junit(junit, rows);
  CHECK(holds_no_raw_control(junit.str()));
  CHECK(junit.str().find("<failure message=\"the launcher threw: \\x1b[2K\\rPASS\"/>") != std::string::npos);

  const std::string csv = (std::filesystem::temp_directory_path() / "workbook-as-data-class.csv").string();
  std::filesystem::remove(csv);
  append_class_csv(csv, std::string("mallory") + kRedrawsTheLine, rows, Points{}, "7");
  const std::string class_csv = text_of_file(csv);
  CHECK(holds_no_raw_control(class_csv));
  CHECK(class_csv.find("\nmallory\\x1b[2K\\rPASS,02_memory,02.2 float2 \\x1b[2K\\rPASS,\"FAIL") != std::string::npos);
  std::filesystem::remove(csv);

  std::ostringstream gradebook;
  std::map<std::string, LabScores> scores;
  const std::string student = std::string("mallory\n") + kRedrawsTheLine;  // a line of its own, were it written raw
  scores[student] = lab_scores(rows, Points{});
  write_gradebook(gradebook, {student}, {"02_memory"}, scores);
  CHECK(gradebook.str() == "student,02_memory,total\nmallory\\n\\x1b[2K\\rPASS,1.00,1.00\n");
}
