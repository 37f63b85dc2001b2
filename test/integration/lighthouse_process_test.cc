// sluice_lighthouse and three replica processes (lighthouse_replica) on
// 127.0.0.1: after one replica is killed with SIGKILL, the other two form a
// new quorum with a higher id and commit again long before the join
// timeout, because the lighthouse learns of the death from the dropped
// watch stream. Every wait is bounded; children are killed and reaped
// whatever happens.
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "test/util/child_process.h"

namespace sluice::lighthouse {
namespace {

using ::sluice::testing::ChildProcess;
using ::sluice::testing::ChildProcessOptions;
using ::sluice::testing::Runfile;

// A child process whose stdout lines the test matches, noting when it saw
// each; its stderr goes to the test log. Killed and reaped on destruction.
class Child {
 public:
  struct Line {
    // When the test first saw the line: a little after it was printed,
    // never before, so a latency measured to it is never too short.
    absl::Time at;
    std::string text;
  };

  explicit Child(std::vector<std::string> argv)
      : child_([&] {
          ChildProcessOptions options;
          options.name = argv[0].substr(argv[0].rfind('/') + 1);
          options.argv = std::move(argv);
          options.stderr_to = ChildProcessOptions::Stderr::kInherit;
          return options;
        }()) {
    EXPECT_TRUE(child_.started()) << child_.start_error();
  }

  // SIGKILL, and waits until the process is gone.
  void Kill() { child_.Kill(); }

  // Waits up to `timeout` for a line after line `from` that `matches`.
  std::optional<Line> WaitFor(
      const std::function<bool(const std::string&)>& matches,
      absl::Duration timeout, size_t from = 0) {
    std::optional<std::string> text =
        child_.WaitForLineMatching(matches, timeout, from);
    if (!text.has_value()) return std::nullopt;
    return Line{absl::Now(), *std::move(text)};
  }

  size_t line_count() { return child_.Lines().size(); }

  std::string Output() { return child_.Output(); }

 private:
  ChildProcess child_;
};

// "committed step S quorum Q size N" -> Q when N == size.
std::optional<int64_t> CommittedQuorum(const std::string& line, int size) {
  std::vector<std::string> words = absl::StrSplit(line, ' ');
  int64_t quorum = 0, n = 0;
  if (words.size() != 7 || words[0] != "committed" ||
      !absl::SimpleAtoi(words[4], &quorum) || !absl::SimpleAtoi(words[6], &n) ||
      n != size) {
    return std::nullopt;
  }
  return quorum;
}

TEST(LighthouseProcessTest, SurvivorsCommitAgainLongBeforeTheJoinTimeout) {
  constexpr absl::Duration kJoinTimeout = absl::Seconds(30);
  Child lighthouse({Runfile("tools/sluice_lighthouse/sluice_lighthouse"),
                    "--address=127.0.0.1:0",
                    absl::StrCat("--join_timeout_ms=",
                                 absl::ToInt64Milliseconds(kJoinTimeout))});
  const std::string prefix = "lighthouse listening on ";
  auto ready = lighthouse.WaitFor(
      [&](const std::string& line) { return line.rfind(prefix, 0) == 0; },
      absl::Seconds(30));
  ASSERT_TRUE(ready.has_value()) << lighthouse.Output();
  const std::string address = ready->text.substr(prefix.size());

  std::vector<std::unique_ptr<Child>> replicas;
  for (const char* id : {"a", "b", "c"}) {
    replicas.push_back(std::make_unique<Child>(
        std::vector<std::string>{Runfile("test/integration/lighthouse_replica"),
                                 absl::StrCat("--lighthouse=", address),
                                 absl::StrCat("--replica_id=", id)}));
  }
  // All three commit together.
  int64_t quorum_of_three = 0;
  for (auto& replica : replicas) {
    auto line = replica->WaitFor(
        [&](const std::string& text) {
          return CommittedQuorum(text, 3).has_value();
        },
        absl::Seconds(60));
    ASSERT_TRUE(line.has_value()) << replica->Output();
    quorum_of_three =
        std::max(quorum_of_three, *CommittedQuorum(line->text, 3));
  }

  std::vector<size_t> seen = {replicas[0]->line_count(),
                              replicas[1]->line_count()};
  const absl::Time killed = absl::Now();
  replicas[2]->Kill();
  for (int i = 0; i < 2; ++i) {
    auto again = replicas[i]->WaitFor(
        [&](const std::string& text) {
          auto quorum = CommittedQuorum(text, 2);
          return quorum.has_value() && *quorum > quorum_of_three;
        },
        kJoinTimeout, seen[i]);
    ASSERT_TRUE(again.has_value())
        << "replica " << i << " did not commit with 2 replicas:\n"
        << replicas[i]->Output();
    const absl::Duration took = again->at - killed;
    // Before the join timeout: the lighthouse did not wait for the dead
    // replica to ask (nor for its 5 s heartbeat timeout).
    EXPECT_LT(took, kJoinTimeout);
    std::printf("replica %d committed again %.0f ms after the kill (%s)\n", i,
                absl::ToDoubleMilliseconds(took), again->text.c_str());
    auto lost = replicas[i]->WaitFor(
        [](const std::string& text) {
          return text.rfind("event MEMBER_LOST", 0) == 0 &&
                 text.find(" replica c") != std::string::npos;
        },
        absl::Seconds(5), seen[i]);
    EXPECT_TRUE(lost.has_value()) << replicas[i]->Output();
  }

  // c comes back as a new process: it heals (takes the highest step) and
  // the three commit together again in a newer generation.
  replicas[2] = std::make_unique<Child>(std::vector<std::string>{
      Runfile("test/integration/lighthouse_replica"),
      absl::StrCat("--lighthouse=", address), "--replica_id=c"});
  auto rejoined = replicas[2]->WaitFor(
      [&](const std::string& text) {
        auto quorum = CommittedQuorum(text, 3);
        return quorum.has_value() && *quorum > quorum_of_three + 1;
      },
      kJoinTimeout);
  EXPECT_TRUE(rejoined.has_value()) << replicas[2]->Output();
}

TEST(LighthouseProcessTest, ReplicasCommitAgainAfterTheLighthouseRestarts) {
  std::vector<std::string> flags = {
      Runfile("tools/sluice_lighthouse/sluice_lighthouse"),
      "--address=127.0.0.1:0"};
  auto lighthouse = std::make_unique<Child>(flags);
  const std::string prefix = "lighthouse listening on ";
  const auto is_ready = [&](const std::string& line) {
    return line.rfind(prefix, 0) == 0;
  };
  auto ready = lighthouse->WaitFor(is_ready, absl::Seconds(30));
  ASSERT_TRUE(ready.has_value()) << lighthouse->Output();
  const std::string address = ready->text.substr(prefix.size());

  std::vector<std::unique_ptr<Child>> replicas;
  for (const char* id : {"a", "b"}) {
    replicas.push_back(std::make_unique<Child>(
        std::vector<std::string>{Runfile("test/integration/lighthouse_replica"),
                                 absl::StrCat("--lighthouse=", address),
                                 absl::StrCat("--replica_id=", id)}));
  }
  const auto committed_together = [](const std::string& text) {
    return CommittedQuorum(text, 2).has_value();
  };
  for (auto& replica : replicas) {
    ASSERT_TRUE(replica->WaitFor(committed_together, absl::Seconds(60)))
        << replica->Output();
  }

  lighthouse->Kill();
  std::vector<size_t> seen = {replicas[0]->line_count(),
                              replicas[1]->line_count()};
  // A new lighthouse on the same address: it knows nothing, and the
  // replicas (whose calls failed or are being retried) start over with it.
  flags[1] = absl::StrCat("--address=", address);
  lighthouse = std::make_unique<Child>(flags);
  ASSERT_TRUE(lighthouse->WaitFor(is_ready, absl::Seconds(30)))
      << lighthouse->Output();
  for (int i = 0; i < 2; ++i) {
    auto again =
        replicas[i]->WaitFor(committed_together, absl::Seconds(60), seen[i]);
    EXPECT_TRUE(again.has_value()) << replicas[i]->Output();
  }
}

}  // namespace
}  // namespace sluice::lighthouse
