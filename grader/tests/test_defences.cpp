// The defences' names: what `--without=NAME` takes and what every failure they report starts with;
// and the words of the failures that are no defence's: a machine refused, a kernel that crashed.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "harness/defences.h"
#include "harness/grade_step.h"
#include "harness/resources.h"

using namespace workbook;

TEST_CASE("every defence has its own name, and the name leads back to it") {
  std::set<std::string_view> names;
  for (Defence defence : kAllDefences) {
    const std::string_view name = name_of(defence);
    CHECK(name != "?");
    CHECK(names.insert(name).second);
    REQUIRE(defence_named(name).has_value());
    CHECK(*defence_named(name) == defence);
  }
  CHECK(names.size() == kAllDefences.size());
}

TEST_CASE("an unknown defence name is refused") {
  CHECK_FALSE(defence_named("").has_value());
  CHECK_FALSE(defence_named("timer").has_value());
  CHECK_FALSE(defence_named("Remembered-Work").has_value());
  // The defences the trust boundary made redundant are gone, and their names with them.
  CHECK_FALSE(defence_named("outside-timer").has_value());
  CHECK_FALSE(defence_named("unrecorded-launch").has_value());
  CHECK_FALSE(defence_named("foreign-work").has_value());
}

TEST_CASE("a defence's failure starts with its name in brackets") {
  CHECK(tagged(Defence::kGuard, "a write past the output") == "[guard] a write past the output");
  CHECK(tagged(Defence::kPrecision, "x").rfind("[precision] ", 0) == 0);
}

TEST_CASE("a GPU that reaches pageable host memory grades nothing, and the refusal says how to switch it off") {
  workbook::DeviceFacts facts;
  facts.name = "a GPU";
  CHECK(workbook::machine_refusal(facts).empty());
  facts.pageable_memory_access = true;
  const std::string why = workbook::machine_refusal(facts);
  CHECK(why.find("pageableMemoryAccess is 1") != std::string::npos);
  CHECK(why.find("uvm_disable_hmm=1") != std::string::npos);
  CHECK(why.find("Nothing is graded here") != std::string::npos);
}

TEST_CASE("a kernel's crash says which call, what it usually means, and how to find the line") {
  const std::string crash =
      "CUDA error: in the correctness case n = 33 at 6.25% occ. (128 thr x 1 blk): cudaErrorIllegalAddress (an illegal "
      "memory access was encountered) from cudaDeviceSynchronize() at grader/harness/timing.cu:198";
  const std::string advised = workbook::with_cuda_advice(crash, "02.3");
  CHECK(advised.starts_with(crash));
  CHECK(advised.find("read or wrote outside its arrays") != std::string::npos);
  CHECK(advised.find("not where the fault is") != std::string::npos);
  CHECK(advised.find("./workbook grade 02.3 --sanitize") != std::string::npos);
  const std::string resources =
      "CUDA error: while timed at 8192 x 8192: cudaErrorLaunchOutOfResources (too many resources "
      "requested for launch) from cudaLaunchKernelExC at include/workbook/launch.cuh:80";
  CHECK(workbook::with_cuda_advice(resources, "04.7").find("__launch_bounds__") != std::string::npos);
  CHECK(workbook::with_cuda_advice("speedup 3.10x over the baseline, the bar is 4.07x", "02.2") ==
        "speedup 3.10x over the baseline, the bar is 4.07x");
}

namespace {
LaunchShare launch_of(const char* name, int registers, double occupancy, double ms) {
  LaunchShare share;
  share.resources.name = name;
  share.resources.registers_per_thread = registers;
  share.resources.occupancy = occupancy;
  share.ms = ms;
  return share;
}
}  // namespace

TEST_CASE("[work-launches]: a bar's occupancy is that of the launches that take the call's time") {
  Measurement m;
  SUBCASE("a decoy holding the most registers beside a full-occupancy copy sets nothing (02 decoy_launch, H100)") {
    weigh_launches({launch_of("_Z5decoyv", 254, 0.0625, 0.0030), launch_of("_Z4copyv", 32, 1.0, 0.1300)}, m);
    CHECK(m.resources->name == "_Z4copyv");
    CHECK(m.occupancy == doctest::Approx(1.0));
    const std::string why = occupancy_above(m, 0.0625);
    CHECK(why.starts_with("[work-launches] the kernels ran at 100.00% theoretical occupancy"));
    CHECK(why.find("decoy() at 6.25% for 2.26% of the time") != std::string::npos);
  }
  SUBCASE("a light helper beside the product does not set it (04.11's packing, H100)") {
    weigh_launches({launch_of("_Z4packv", 40, 0.9375, 0.0217), launch_of("_Z4gemmv", 168, 0.1875, 0.9783)}, m);
    CHECK(m.resources->name == "_Z4gemmv");
    CHECK(m.occupancy == doctest::Approx(0.1875));
    CHECK(occupancy_above(m, 0.20).empty());
  }
  SUBCASE("work split between two occupancies is held to the higher") {
    weigh_launches({launch_of("_Z3lowv", 200, 0.0625, 0.55), launch_of("_Z4highv", 32, 1.0, 0.45)}, m);
    CHECK(m.occupancy == doctest::Approx(1.0));
    CHECK(occupancy_above(m, 0.0625).starts_with("[work-launches]"));
  }
  SUBCASE("one kernel at the wrong occupancy fails, untagged: no decoy, only the step's lesson") {
    weigh_launches({launch_of("_Z4copyv", 32, 1.0, 0.13)}, m);
    const std::string why = occupancy_above(m, 0.0625);
    CHECK(why == "the kernels ran at 100.00% theoretical occupancy, above the step's 6.25%");
  }
  SUBCASE("with the defence off, the launch holding the most registers sets it") {
    session().disabled.insert(Defence::kWorkLaunches);
    weigh_launches({launch_of("_Z5decoyv", 254, 0.0625, 0.0030), launch_of("_Z4copyv", 32, 1.0, 0.1300)}, m);
    session().disabled.clear();
    CHECK(m.resources->name == "_Z5decoyv");
    CHECK(occupancy_above(m, 0.0625).empty());
  }
}
