// sluice_lighthouse and three replica processes (lighthouse_replica) on
// 127.0.0.1: after one replica is killed with SIGKILL, the other two form a
// new quorum with a higher id and commit again long before the join
// timeout, because the lighthouse learns of the death from the dropped
// watch stream. Every wait is bounded; children are killed and reaped
// whatever happens.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace sluice::ft {
namespace {

std::string Runfile(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return absl::StrCat(srcdir ? srcdir : ".", "/",
                      workspace ? workspace : "sluice", "/", path);
}

// A child process whose stdout lines are kept with the time each arrived.
// SIGKILLed and reaped on destruction; it dies with the test's main thread.
class Child {
 public:
  struct Line {
    absl::Time at;
    std::string text;
  };

  explicit Child(std::vector<std::string> argv) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
      ADD_FAILURE() << "pipe2 failed";
      return;
    }
    std::vector<char*> args;
    for (std::string& arg : argv) args.push_back(arg.data());
    args.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      dup2(pipe_fds[1], STDOUT_FILENO);
      execv(args[0], args.data());
      _exit(127);
    }
    close(pipe_fds[1]);
    fd_ = pipe_fds[0];
    drainer_ = std::thread([this] { Drain(); });
  }

  ~Child() {
    Kill();
    if (drainer_.joinable()) drainer_.join();
    if (fd_ >= 0) close(fd_);
  }

  // SIGKILL, and waits until the process is gone.
  void Kill() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = 0;
  }

  // Waits up to `timeout` for a line after line `from` that `matches`.
  std::optional<Line> WaitFor(
      const std::function<bool(const std::string&)>& matches,
      absl::Duration timeout, size_t from = 0) {
    std::unique_lock<std::mutex> lock(mu_);
    const absl::Time deadline = absl::Now() + timeout;
    while (true) {
      for (size_t i = from; i < lines_.size(); ++i) {
        if (matches(lines_[i].text)) return lines_[i];
      }
      if (closed_ || absl::Now() >= deadline) return std::nullopt;
      grew_.wait_for(lock, absl::ToChronoNanoseconds(absl::Milliseconds(50)));
    }
  }

  size_t line_count() {
    std::lock_guard<std::mutex> lock(mu_);
    return lines_.size();
  }

  std::string Output() {
    std::lock_guard<std::mutex> lock(mu_);
    std::string text;
    for (const Line& line : lines_) absl::StrAppend(&text, line.text, "\n");
    return text;
  }

 private:
  void Drain() {
    std::string pending;
    char buffer[4096];
    while (true) {
      const ssize_t n = read(fd_, buffer, sizeof(buffer));
      if (n <= 0) break;
      pending.append(buffer, n);
      size_t newline;
      while ((newline = pending.find('\n')) != std::string::npos) {
        std::lock_guard<std::mutex> lock(mu_);
        lines_.push_back({absl::Now(), pending.substr(0, newline)});
        pending.erase(0, newline + 1);
        grew_.notify_all();
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    grew_.notify_all();
  }

  pid_t pid_ = 0;
  int fd_ = -1;
  std::thread drainer_;
  std::mutex mu_;
  std::condition_variable grew_;
  std::vector<Line> lines_;  // guarded by mu_
  bool closed_ = false;      // guarded by mu_
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
}  // namespace sluice::ft
