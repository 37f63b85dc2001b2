// Keeps the code blocks of the guides in docs/ identical to the example
// sources they quote, so that every snippet a reader copies is code that
// compiles and passes its test.
//
// In a guide, a quoted block is announced by a comment on the line before
// its opening fence:
//
//   <!-- snippet: docs/examples/kernels_example.cc#sync_kernels -->
//   ```c++
//   ...the lines between the region's markers...
//   ```
//
// In the source, the region is the lines strictly between
// `// [START sync_kernels]` and `// [END sync_kernels]` (leading spaces
// allowed before the markers), compared line by line, indentation included.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// The guides under test and the sources they may quote, relative to the
// workspace root.
constexpr std::string_view kGuides[] = {
    "docs/async_values.md", "docs/checkpoints.md", "docs/coordinator.md",
    "docs/distributed.md",  "docs/embedding.md",   "docs/faults.md",
    "docs/kernels.md",      "docs/tensor_math.md", "docs/tracing.md",
    "docs/variables.md"};
constexpr std::string_view kSources[] = {
    "docs/examples/async_values_example.cc",
    "docs/examples/checkpoints_example.cc",
    "docs/examples/coordinator_example.cc",
    "docs/examples/distributed_example.cc",
    "docs/examples/faults_example.cc",
    "docs/examples/kernels_example.cc",
    "docs/examples/tensor_math_example.cc",
    "docs/examples/tracing_example.cc",
    "docs/examples/variables_example.cc",
    "examples/embed/main.cc",
    "examples/kernel_plugin/my_kernels.cc",
    "examples/kernel_plugin/my_run.cc",
    "examples/kernel_plugin/plugin.cc"};

constexpr std::string_view kSnippetOpen = "<!-- snippet: ";
constexpr std::string_view kSnippetClose = " -->";
constexpr std::string_view kFence = "```";

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    const size_t newline = text.find('\n');
    lines.emplace_back(text.substr(0, newline));
    if (newline == std::string_view::npos) break;
    text.remove_prefix(newline + 1);
  }
  return lines;
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::string_view StripLeadingSpaces(std::string_view text) {
  const size_t first = text.find_first_not_of(' ');
  return first == std::string_view::npos ? std::string_view()
                                         : text.substr(first);
}

// One quoted block of a guide.
struct SnippetRef {
  std::string file;  // the quoted source, e.g. docs/examples/x.cc
  std::string name;  // the region in it
  int line = 0;      // of the snippet comment, 1-based
  std::vector<std::string> block;
  std::string error;  // why the reference is malformed, if it is
};

std::string Label(std::string_view guide, const SnippetRef& ref) {
  std::ostringstream out;
  out << guide << ":" << ref.line << ": snippet " << ref.file << "#"
      << ref.name;
  return out.str();
}

std::vector<SnippetRef> ParseSnippetRefs(std::string_view markdown) {
  const std::vector<std::string> lines = SplitLines(markdown);
  std::vector<SnippetRef> refs;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (!StartsWith(line, kSnippetOpen)) continue;
    SnippetRef ref;
    ref.line = static_cast<int>(i + 1);
    std::string_view target = line.substr(kSnippetOpen.size());
    const size_t close = target.rfind(kSnippetClose);
    const size_t hash = target.find('#');
    if (close == std::string_view::npos ||
        close + kSnippetClose.size() != target.size() ||
        hash == std::string_view::npos || hash > close) {
      ref.error =
          "malformed snippet comment, expected <!-- snippet: FILE#NAME -->";
      refs.push_back(ref);
      continue;
    }
    ref.file = std::string(target.substr(0, hash));
    ref.name = std::string(target.substr(hash + 1, close - hash - 1));
    if (i + 1 >= lines.size() || !StartsWith(lines[i + 1], kFence)) {
      ref.error = "not followed by a code block on the next line";
      refs.push_back(ref);
      continue;
    }
    size_t j = i + 2;
    while (j < lines.size() && lines[j] != kFence) {
      ref.block.push_back(lines[j]);
      ++j;
    }
    if (j == lines.size()) ref.error = "code block is never closed";
    refs.push_back(ref);
    i = j;
  }
  return refs;
}

// The marked regions of one source, by name, and what is wrong with the
// markers.
struct Regions {
  std::map<std::string, std::vector<std::string>> by_name;
  std::vector<std::string> errors;
};

Regions ExtractRegions(std::string_view source_name, std::string_view source) {
  constexpr std::string_view kStart = "// [START ";
  constexpr std::string_view kEnd = "// [END ";
  Regions regions;
  const std::vector<std::string> lines = SplitLines(source);
  std::string open;  // the region being read; empty outside one
  int open_line = 0;
  std::vector<std::string> body;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = StripLeadingSpaces(lines[i]);
    const std::string where =
        std::string(source_name) + ":" + std::to_string(i + 1) + ": ";
    const bool is_start = StartsWith(line, kStart);
    const bool is_end = StartsWith(line, kEnd);
    if (!is_start && !is_end) {
      if (!open.empty()) body.push_back(lines[i]);
      continue;
    }
    const std::string_view prefix = is_start ? kStart : kEnd;
    if (line.back() != ']') {
      regions.errors.push_back(where + "malformed marker '" +
                               std::string(line) + "'");
      continue;
    }
    const std::string name(
        line.substr(prefix.size(), line.size() - prefix.size() - 1));
    if (is_start) {
      if (!open.empty()) {
        regions.errors.push_back(where + "region '" + name +
                                 "' starts inside region '" + open + "'");
        continue;
      }
      if (regions.by_name.count(name) != 0) {
        regions.errors.push_back(where + "region '" + name +
                                 "' is marked twice");
      }
      open = name;
      open_line = static_cast<int>(i + 1);
      body.clear();
    } else if (open.empty()) {
      regions.errors.push_back(where + "[END " + name + "] without [START " +
                               name + "]");
    } else if (name != open) {
      // Closing the open region anyway keeps one typo from misplacing every
      // region after it.
      regions.errors.push_back(where + "[END " + name + "] closes region '" +
                               open + "'");
      open.clear();
    } else {
      regions.by_name[name] = body;
      open.clear();
    }
  }
  if (!open.empty()) {
    regions.errors.push_back(std::string(source_name) + ":" +
                             std::to_string(open_line) + ": region '" + open +
                             "' has no [END " + open + "]");
  }
  return regions;
}

// Empty when the quoted block equals the region, else where they part.
std::string CompareBlock(const std::vector<std::string>& region,
                         const std::vector<std::string>& block) {
  for (size_t i = 0; i < std::max(region.size(), block.size()); ++i) {
    const bool in_region = i < region.size();
    const bool in_block = i < block.size();
    if (in_region && in_block && region[i] == block[i]) continue;
    std::ostringstream out;
    out << "differs from its source at line " << i + 1 << " of the snippet\n"
        << "  source:   " << (in_region ? region[i] : "(end of region)") << "\n"
        << "  markdown: " << (in_block ? block[i] : "(end of block)");
    return out.str();
  }
  return "";
}

// The path of a file of this workspace among the test's runfiles.
std::string RunfilePath(std::string_view workspace_path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || workspace == nullptr) return "";
  return std::string(srcdir) + "/" + workspace + "/" +
         std::string(workspace_path);
}

bool ReadRunfile(std::string_view workspace_path, std::string* contents) {
  std::ifstream in(RunfilePath(workspace_path), std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  *contents = buffer.str();
  return true;
}

// --- The checker itself, on text made up for the purpose
// ----------------------

TEST(SnippetParsingTest, FindsReferencesAndTheirBlocks) {
  const std::vector<SnippetRef> refs = ParseSnippetRefs(
      "# Title\n"
      "<!-- snippet: docs/examples/a.cc#first -->\n"
      "```c++\n"
      "int x = 1;\n"
      "\n"
      "  int y = 2;\n"
      "```\n"
      "text\n"
      "<!-- snippet: docs/examples/a.cc#second -->\n"
      "```\n"
      "```\n");
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0].file, "docs/examples/a.cc");
  EXPECT_EQ(refs[0].name, "first");
  EXPECT_EQ(refs[0].line, 2);
  EXPECT_THAT(refs[0].block, ElementsAre("int x = 1;", "", "  int y = 2;"));
  EXPECT_EQ(refs[0].error, "");
  EXPECT_EQ(refs[1].name, "second");
  EXPECT_THAT(refs[1].block, IsEmpty());
  EXPECT_EQ(refs[1].error, "");
}

TEST(SnippetParsingTest, ReportsMalformedReferences) {
  std::vector<SnippetRef> refs =
      ParseSnippetRefs("<!-- snippet: a.cc -->\n```\n```\n");
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_THAT(refs[0].error, HasSubstr("malformed snippet comment"));

  refs = ParseSnippetRefs("<!-- snippet: a.cc#x -->\nsome prose\n");
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].error, "not followed by a code block on the next line");

  refs = ParseSnippetRefs("<!-- snippet: a.cc#x -->\n```\nint x;\n");
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].error, "code block is never closed");
}

TEST(SnippetParsingTest, ExtractsRegionsWithoutTheirMarkers) {
  const Regions regions = ExtractRegions("a.cc",
                                         "int before;\n"
                                         "// [START top]\n"
                                         "int top;\n"
                                         "// [END top]\n"
                                         "void F() {\n"
                                         "  // [START nested_in_code]\n"
                                         "  int inner;\n"
                                         "  // [END nested_in_code]\n"
                                         "}\n");
  EXPECT_THAT(regions.errors, IsEmpty());
  ASSERT_EQ(regions.by_name.size(), 2u);
  EXPECT_THAT(regions.by_name.at("top"), ElementsAre("int top;"));
  EXPECT_THAT(regions.by_name.at("nested_in_code"),
              ElementsAre("  int inner;"));
}

TEST(SnippetParsingTest, ReportsBrokenMarkers) {
  EXPECT_THAT(ExtractRegions("a.cc", "// [START a]\nint a;\n").errors,
              ElementsAre("a.cc:1: region 'a' has no [END a]"));
  EXPECT_THAT(ExtractRegions("a.cc", "int a;\n// [END a]\n").errors,
              ElementsAre("a.cc:2: [END a] without [START a]"));
  EXPECT_THAT(
      ExtractRegions("a.cc", "// [START a]\n// [START b]\n// [END a]\n").errors,
      ElementsAre("a.cc:2: region 'b' starts inside region 'a'"));
  const Regions typo = ExtractRegions(
      "a.cc", "// [START a]\n// [END b]\n// [START c]\nint c;\n// [END c]\n");
  EXPECT_THAT(typo.errors, ElementsAre("a.cc:2: [END b] closes region 'a'"));
  EXPECT_EQ(typo.by_name.count("c"), 1u);
  EXPECT_THAT(ExtractRegions("a.cc",
                             "// [START a]\n// [END a]\n"
                             "// [START a]\n// [END a]\n")
                  .errors,
              ElementsAre("a.cc:3: region 'a' is marked twice"));
}

TEST(SnippetParsingTest, ComparesLineByLine) {
  EXPECT_EQ(CompareBlock({"a", "b"}, {"a", "b"}), "");
  EXPECT_EQ(CompareBlock({"a", "b"}, {"a", " b"}),
            "differs from its source at line 2 of the snippet\n"
            "  source:   b\n"
            "  markdown:  b");
  EXPECT_THAT(CompareBlock({"a", "b"}, {"a"}), HasSubstr("(end of block)"));
  EXPECT_THAT(CompareBlock({"a"}, {"a", "b"}), HasSubstr("(end of region)"));
}

// --- The real guides -------------------------------------------------------

class DocSnippetsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(RunfilePath("x"), "")
        << "TEST_SRCDIR and TEST_WORKSPACE must be set: run this under "
           "`bazel test`";
  }

  // The regions of `source`, read once; marker errors are reported once.
  const Regions* RegionsOf(const std::string& source) {
    auto it = regions_.find(source);
    if (it != regions_.end()) return &it->second;
    std::string text;
    if (!ReadRunfile(source, &text)) return nullptr;
    Regions regions = ExtractRegions(source, text);
    for (const std::string& error : regions.errors) ADD_FAILURE() << error;
    return &regions_.emplace(source, std::move(regions)).first->second;
  }

  std::map<std::string, Regions> regions_;
};

TEST_F(DocSnippetsTest, EveryQuotedBlockMatchesItsSource) {
  for (std::string_view guide : kGuides) {
    std::string markdown;
    ASSERT_TRUE(ReadRunfile(guide, &markdown))
        << "cannot read " << guide << " (is it in the test's data?)";
    const std::vector<SnippetRef> refs = ParseSnippetRefs(markdown);
    EXPECT_FALSE(refs.empty()) << guide << " quotes no snippet";
    for (const SnippetRef& ref : refs) {
      if (!ref.error.empty()) {
        ADD_FAILURE() << guide << ":" << ref.line << ": " << ref.error;
        continue;
      }
      const Regions* regions = RegionsOf(ref.file);
      if (regions == nullptr) {
        ADD_FAILURE() << Label(guide, ref) << ": cannot read " << ref.file
                      << " (is it in the test's data?)";
        continue;
      }
      auto region = regions->by_name.find(ref.name);
      if (region == regions->by_name.end()) {
        ADD_FAILURE() << Label(guide, ref) << ": " << ref.file
                      << " has no complete region '" << ref.name
                      << "' (needs // [START " << ref.name << "] and // [END "
                      << ref.name << "])";
        continue;
      }
      const std::string difference = CompareBlock(region->second, ref.block);
      if (!difference.empty()) {
        ADD_FAILURE() << Label(guide, ref) << " " << difference;
      }
    }
  }
}

TEST_F(DocSnippetsTest, EveryMarkedRegionIsQuoted) {
  std::set<std::string> quoted;
  for (std::string_view guide : kGuides) {
    std::string markdown;
    ASSERT_TRUE(ReadRunfile(guide, &markdown)) << "cannot read " << guide;
    for (const SnippetRef& ref : ParseSnippetRefs(markdown)) {
      quoted.insert(ref.file + "#" + ref.name);
    }
  }
  for (std::string_view source : kSources) {
    const Regions* regions = RegionsOf(std::string(source));
    ASSERT_NE(regions, nullptr) << "cannot read " << source;
    EXPECT_FALSE(regions->by_name.empty()) << source << " marks no region";
    for (const auto& [name, lines] : regions->by_name) {
      const std::string key = std::string(source) + "#" + name;
      EXPECT_EQ(quoted.count(key), 1u)
          << "snippet " << key << " is marked but no guide quotes it";
    }
  }
}

}  // namespace
