// ./workbook profile's reading of Nsight Compute (profile.h), on outputs ncu 2025.3.1 printed on an
// H100 for the reference solutions (solutions/profiles/, written by ./workbook profile ID
// --solution): the kernels and their metrics, the derived numbers, the steps' kernels taken
// together, the table, and what is said when ncu gives no profile. The recordings name the
// reference kernels, so they are the instructor's: a student's copy has none, and skips these.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "harness/profile.h"

using namespace workbook::profile;

namespace {

std::string recorded(const std::string& name) {
  std::ifstream in(std::string(WORKBOOK_NCU_OUTPUTS) + "/" + name);
  REQUIRE_MESSAGE(in.good(), "no recorded output ", name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool recordings_here() { return std::filesystem::exists(std::string(WORKBOOK_NCU_OUTPUTS) + "/03.1-solution.ncu.txt"); }
const bool kNoRecordings = !recordings_here();

double value_of(const Counter& counter, const Values& values) {
  const std::optional<double> value = counter.value(values);
  REQUIRE_MESSAGE(value.has_value(), counter.name, " has no value");
  return *value;
}

}  // namespace

TEST_CASE("ncu's CSV among the judge's lines: one kernel per row, numbers with their thousands' commas" *
          doctest::skip(kNoRecordings)) {
  const std::vector<Kernel> kernels = kernels_in(recorded("03.1-solution.ncu.txt"));
  REQUIRE(kernels.size() == 1);
  CHECK(kernels[0].name.find("transpose_tile_kernel<0, 0>") != std::string::npos);
  CHECK(readable(kernels[0].name) == "void transpose_tile_kernel<0, 0>(const float *, float *, int, int)");
  CHECK(kernels[0].values.at(kTimeMetric) == doctest::Approx(373817).epsilon(0.01));  // ns
  CHECK(kernels[0].values.at("device__attribute_multiprocessor_count") == 132);
  CHECK_FALSE(kernels[0].values.contains("device__attribute_display_name"));  // not a number
  CHECK(kernels_in("[workbook] no CSV here\n==PROF== Disconnected\n").empty());
  const std::vector<Kernel> templated = kernels_in(recorded("04.7-solution.ncu.txt"));
  REQUIRE(templated.size() == 1);
  CHECK(readable(templated[0].name).starts_with("void sgemm_register_blocked_kernel<BlockedPolicy, 1>(const float *"));
}

TEST_CASE("03.1 against 03.2: a padded tile takes a warp's column reads from 32 wavefronts to 1" *
          doctest::skip(kNoRecordings)) {
  const Counter loads = shared_wavefronts_per_request(true, "");
  const double unpadded = value_of(loads, combined(kernels_in(recorded("03.1-solution.ncu.txt"))));
  const double padded = value_of(loads, combined(kernels_in(recorded("03.2-solution.ncu.txt"))));
  CHECK(unpadded == doctest::Approx(32).epsilon(0.05));
  CHECK(padded == doctest::Approx(1).epsilon(0.15));
  // Both coalesce in global memory: 4 sectors of 32 bytes per warp's 32 floats.
  for (const char* file : {"03.1-solution.ncu.txt", "03.2-solution.ncu.txt"}) {
    const Values v = combined(kernels_in(recorded(file)));
    CHECK(value_of(global_sectors_per_request(true, ""), v) == doctest::Approx(4));
    CHECK(value_of(global_sectors_per_request(false, ""), v) == doctest::Approx(4));
  }
}

TEST_CASE("Little's law: the bytes 02.4 keeps in flight per SM, from the bandwidth it reached" *
          doctest::skip(kNoRecordings)) {
  const Values v = combined(kernels_in(recorded("02.4-solution.ncu.txt")));
  const double bytes_per_s = v.at("dram__bytes.sum.per_second"), sms = v.at("device__attribute_multiprocessor_count");
  const double kib = value_of(bytes_in_flight_per_sm(0.7, ""), v);
  CHECK(kib == doctest::Approx(bytes_per_s * 0.7e-6 / sms / 1024));
  CHECK(kib > 8);  // the handout's ~16 KiB per SM at full bandwidth; 02.4 reaches 83% of the peak
  CHECK(kib < 20);
  CHECK(value_of(achieved_occupancy(""), v) == doctest::Approx(6.25).epsilon(0.05));  // 4 warps of 64
}

TEST_CASE("04.7's register blocking: a few shared loads per 100 FMAs, no spills" * doctest::skip(kNoRecordings)) {
  const Values v = combined(kernels_in(recorded("04.7-solution.ncu.txt")));
  const Counter per_fma = ratio("", "smsp__inst_executed_op_shared_ld.sum",
                                "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 32.0, 2, "");
  CHECK(value_of(per_fma, v) > 0.01);
  CHECK(value_of(per_fma, v) < 0.2);
  CHECK(value_of(local_memory_instructions(""), v) == 0);
  CHECK(v.at("launch__registers_per_thread") == 128);
  const std::string stalls = top_stall_reasons("").text(v);
  CHECK(stalls.find("not_selected") == 0);  // the most common: warps ready, another issued
}

TEST_CASE("a step's kernels as one: counts added, rates weighted by each kernel's time" *
          doctest::skip(kNoRecordings)) {
  const std::vector<Kernel> kernels = kernels_in(recorded("06.1-solution.ncu.txt"));
  REQUIRE(kernels.size() == 4);  // a tree of reductions: one launch per level
  const Values v = combined(kernels);
  double time = 0, sectors = 0, weighted = 0;
  for (const Kernel& k : kernels) {
    time += k.values.at(kTimeMetric);
    sectors += k.values.at("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    weighted += k.values.at(kTimeMetric) * k.values.at("dram__throughput.avg.pct_of_peak_sustained_elapsed");
  }
  CHECK(v.at(kTimeMetric) == doctest::Approx(time));
  CHECK(v.at("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") == doctest::Approx(sectors));
  CHECK(v.at("dram__throughput.avg.pct_of_peak_sustained_elapsed") == doctest::Approx(weighted / time));
  CHECK(combined({}).empty());
}

TEST_CASE("what ncu's output says when it gives no profile" * doctest::skip(kNoRecordings)) {
  // As ncu prints it where the driver keeps the counters to administrators (NVreg_RestrictProfilingToAdminUsers=1).
  const std::string closed =
      "==PROF== Connected to process 4242 (/work/build/gpu/labs/03_transpose/judge_03_transpose)\n"
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on "
      "the target device 0. For instructions on enabling permissions and to get more information see "
      "https://developer.nvidia.com/ERR_NVGPUCTRPERM\n";
  CHECK(ncu_failure(closed, 0).find("NVreg_RestrictProfilingToAdminUsers=0") != std::string::npos);
  CHECK(ncu_failure(closed, 0).find("Grading does not need them") != std::string::npos);
  const std::string unknown = "==ERROR== Failed to find metric regex:^smsp__no_such_metric.sum$\n";
  CHECK(ncu_failure(unknown, 0).find("does not know a metric") != std::string::npos);
  CHECK(ncu_failure("==PROF== Disconnected from process 1\n==WARNING== No kernels were profiled.\n", 0)
            .find("workbook::launch") != std::string::npos);
  CHECK(ncu_failure("==ERROR== The application returned an error code (11).\n", 0).find("Nsight Compute failed") == 0);
  CHECK(ncu_failure(recorded("03.1-solution.ncu.txt"), 1).empty());
}

TEST_CASE("the table: a row per counter, its meaning under it, '-' where a column has no value" *
          doctest::skip(kNoRecordings)) {
  const Values v = combined(kernels_in(recorded("03.1-solution.ncu.txt")));
  const std::vector<Counter> counters = {shared_wavefronts_per_request(true, "one bank, 32 times"),
                                         metric("absent", "no__such_metric.sum", 1, "")};
  const std::string text = table(counters, {{"yours", v}, {"solution", std::nullopt}});
  CHECK(text.find("counter") == 0);
  CHECK(text.find("yours") != std::string::npos);
  CHECK(text.find("time in the step's kernels (us)") != std::string::npos);
  CHECK(text.find("373.8") != std::string::npos);
  CHECK(text.find("32.5") != std::string::npos);
  CHECK(text.find("    one bank, 32 times\n") != std::string::npos);
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line))
    if (line.starts_with("absent")) CHECK(line.find_first_not_of(" -", 6) == std::string::npos);  // "-" in both columns
  CHECK(metrics_of(counters).starts_with(std::string(kTimeMetric) + ","));
  CHECK(metrics_of({counters[0], counters[0]}) == metrics_of({counters[0]}));  // each metric once
}

TEST_CASE("values recorded for a step, and the lines that record them" * doctest::skip(kNoRecordings)) {
  const Values v = combined(kernels_in(recorded("03.2-solution.ncu.txt")));
  const std::vector<Counter> counters = {shared_wavefronts_per_request(true, "")};
  const std::string lines = recorded_lines("03.2", v, counters);
  CHECK(lines.find("03.2\tl1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum\t") != std::string::npos);
  CHECK(lines.find("03.2\tgpu__time_duration.sum\t") != std::string::npos);
  CHECK(lines.find("device__attribute_architecture") == std::string::npos);  // what no counter reads is left out
  const std::string path = (std::filesystem::temp_directory_path() / "workbook_test_profile.tsv").string();
  std::ofstream(path) << "# recorded\n" << lines << "03.1\tgpu__time_duration.sum\t5\n";
  const Values read = recorded_values(path, "03.2");
  CHECK(value_of(counters[0], read) == doctest::Approx(value_of(counters[0], v)));
  CHECK(recorded_values(path, "03.1").at(kTimeMetric) == 5);
  CHECK(recorded_values(path, "09.9").empty());
  CHECK(recorded_values(path + ".absent", "03.2").empty());
  std::ofstream(path) << "03.2\tgpu__time_duration.sum\tfast\n";
  CHECK_THROWS_WITH_AS(recorded_values(path, "03.2"), doctest::Contains(":1: 'fast' is not a number"),
                       std::invalid_argument);
  std::filesystem::remove(path);
}
