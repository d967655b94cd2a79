// The defences' names: what `--without=NAME` takes and what every failure they report starts with.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "defences.h"

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
  CHECK_FALSE(defence_named("Outside-Timer").has_value());
}

TEST_CASE("a defence's failure starts with its name in brackets") {
  CHECK(tagged(Defence::kOutsideTimer, "work on another stream") == "[outside-timer] work on another stream");
  CHECK(tagged(Defence::kPrecision, "x").rfind("[precision] ", 0) == 0);
}
