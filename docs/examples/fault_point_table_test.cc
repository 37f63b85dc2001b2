// Keeps the table of fault points in docs/faults.md equal to the catalogue
// the injector checks specs against (KnownFaultPoints()).
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "sluice/support/fault_point.h"

namespace sluice {
namespace {

constexpr char kHeading[] = "## The fault points";

// The names in the first column of the table under kHeading: rows that
// start with "| `name` |".
std::set<std::string> DocumentedPoints(const std::string& markdown) {
  std::set<std::string> names;
  std::istringstream lines(markdown.substr(markdown.find(kHeading)));
  std::string line;
  std::getline(lines, line);  // the heading
  while (std::getline(lines, line) && line.rfind("## ", 0) != 0) {
    if (line.rfind("| `", 0) != 0) continue;
    const size_t end = line.find('`', 3);
    if (end != std::string::npos) names.insert(line.substr(3, end - 3));
  }
  return names;
}

TEST(FaultPointTableTest, TheGuideListsEveryFaultPointAndNoOther) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  ASSERT_TRUE(srcdir != nullptr && workspace != nullptr)
      << "run this under `bazel test`";
  std::ifstream file(std::string(srcdir) + "/" + workspace + "/docs/faults.md");
  ASSERT_TRUE(file.good()) << "cannot read docs/faults.md";
  std::stringstream markdown;
  markdown << file.rdbuf();
  ASSERT_NE(markdown.str().find(kHeading), std::string::npos)
      << "docs/faults.md has no '" << kHeading << "' section";

  std::set<std::string> known;
  for (const FaultPointInfo& point : KnownFaultPoints()) {
    known.insert(std::string(point.name));
  }
  EXPECT_EQ(DocumentedPoints(markdown.str()), known);
}

}  // namespace
}  // namespace sluice
