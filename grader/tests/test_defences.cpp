// The defences' names: what `--without=NAME` takes and what every failure they report starts with;
// and the words of the failures that are no defence's: a machine refused, a kernel that crashed.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "defences.h"
#include "grade_step.h"
#include "resources.h"

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
  const std::string resources = "CUDA error: while timed at 8192 x 8192: cudaErrorLaunchOutOfResources (too many resources "
                                "requested for launch) from cudaLaunchKernelExC at include/workbook/launch.cuh:80";
  CHECK(workbook::with_cuda_advice(resources, "04.7").find("__launch_bounds__") != std::string::npos);
  CHECK(workbook::with_cuda_advice("speedup 3.10x over the baseline, the bar is 4.07x", "02.2") ==
        "speedup 3.10x over the baseline, the bar is 4.07x");
}
