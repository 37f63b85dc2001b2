#include "lib/launcher/leftover_processes.h"

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace sluice::launcher {
namespace {

std::optional<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad()) return std::nullopt;
  return contents.str();
}

bool Contains(const std::vector<pid_t>& pids, pid_t pid) {
  return std::find(pids.begin(), pids.end(), pid) != pids.end();
}

}  // namespace

absl::Status AdoptOrphans() {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot become a child subreaper: ", strerror(errno)));
  }
  return absl::OkStatus();
}

std::optional<std::string> StartEnvironmentValue(pid_t pid,
                                                 std::string_view name) {
  std::optional<std::string> environment =
      ReadWholeFile(absl::StrCat("/proc/", pid, "/environ"));
  if (!environment.has_value()) return std::nullopt;
  const std::string prefix = std::string(name) + "=";
  std::string_view rest(*environment);
  while (!rest.empty()) {
    const size_t end = std::min(rest.find('\0'), rest.size());
    std::string_view entry = rest.substr(0, end);
    if (entry.substr(0, prefix.size()) == prefix) {
      return std::string(entry.substr(prefix.size()));
    }
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
  return std::nullopt;
}

ProcessTree ProcessTree::Read() {
  ProcessTree tree;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return tree;
  while (dirent* entry = readdir(proc)) {
    pid_t pid = 0;
    if (!absl::SimpleAtoi(entry->d_name, &pid)) continue;
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses,
    // so the fields after it start at its last ')'.
    std::optional<std::string> stat =
        ReadWholeFile(absl::StrCat("/proc/", pid, "/stat"));
    if (!stat.has_value()) continue;  // exited since readdir
    const size_t comm_end = stat->rfind(')');
    if (comm_end == std::string::npos) continue;
    std::istringstream fields(stat->substr(comm_end + 1));
    char state = 0;
    pid_t parent = 0;
    if (!(fields >> state >> parent)) continue;
    tree.children_[parent].push_back(pid);
    if (state != 'Z' && state != 'X') tree.running_.insert(pid);
  }
  closedir(proc);
  return tree;
}

std::vector<pid_t> ProcessTree::Children(pid_t parent) const {
  auto found = children_.find(parent);
  return found == children_.end() ? std::vector<pid_t>() : found->second;
}

std::vector<pid_t> ProcessTree::Descendants(pid_t root) const {
  std::vector<pid_t> found;
  std::vector<pid_t> pending = {root};
  // A pid seen twice would mean a cycle, which only a torn read of /proc
  // (a pid reused between two stat files) could produce.
  absl::flat_hash_set<pid_t> seen = {root};
  while (!pending.empty()) {
    const pid_t parent = pending.back();
    pending.pop_back();
    auto children = children_.find(parent);
    if (children == children_.end()) continue;
    for (pid_t child : children->second) {
      if (!seen.insert(child).second) continue;
      pending.push_back(child);
      if (Running(child)) found.push_back(child);
    }
  }
  return found;
}

void LeftoverProcesses::Track(pid_t pid, int signal, absl::Time kill_at) {
  auto [it, added] = ending_.try_emplace(pid, Ending{signal, kill_at});
  if (!added) {
    it->second.kill_at = std::min(it->second.kill_at, kill_at);
    return;
  }
  kill(pid, signal);
  kill(pid, SIGCONT);
}

void LeftoverProcesses::End(int signal, const std::vector<pid_t>& roots,
                            const std::vector<pid_t>& owned,
                            const std::function<bool(pid_t)>& spare) {
  const ProcessTree tree = ProcessTree::Read();
  const absl::Time kill_at = absl::Now() + grace_period_;
  for (pid_t root : roots) {
    for (pid_t pid : tree.Descendants(root)) Track(pid, signal, kill_at);
  }
  for (pid_t orphan : tree.Children(getpid())) {
    if (!tree.Running(orphan) || Contains(owned, orphan) ||
        (spare != nullptr && spare(orphan))) {
      continue;
    }
    Track(orphan, signal, kill_at);
    for (pid_t pid : tree.Descendants(orphan)) Track(pid, signal, kill_at);
  }
  Reap(tree, owned);
}

int LeftoverProcesses::Step(const std::vector<pid_t>& owned) {
  const ProcessTree tree = ProcessTree::Read();
  // Only processes still below this one are signalled: a pid that left
  // the tree may already belong to an unrelated process.
  const std::vector<pid_t> below = tree.Descendants(getpid());
  const absl::flat_hash_set<pid_t> mine(below.begin(), below.end());
  std::vector<std::pair<pid_t, Ending>> tracked(ending_.begin(), ending_.end());
  for (const auto& [pid, ending] : tracked) {
    if (!mine.contains(pid)) {
      ending_.erase(pid);
      continue;
    }
    // What it started while being ended goes with it.
    for (pid_t child : tree.Descendants(pid)) {
      Track(child, ending.signal, ending.kill_at);
    }
  }
  const absl::Time now = absl::Now();
  for (auto& [pid, ending] : ending_) {
    if (now >= ending.kill_at && !ending.killed) {
      kill(pid, SIGKILL);
      ending.killed = true;
    }
  }
  Reap(tree, owned);
  return static_cast<int>(ending_.size());
}

void LeftoverProcesses::KillNow(const std::vector<pid_t>& owned) {
  const absl::Time now = absl::Now();
  for (auto& [pid, ending] : ending_) {
    ending.kill_at = std::min(ending.kill_at, now);
  }
  Step(owned);
}

void LeftoverProcesses::Reap(const ProcessTree& tree,
                             const std::vector<pid_t>& owned) {
  for (pid_t child : tree.Children(getpid())) {
    if (tree.Running(child) || Contains(owned, child)) continue;
    int status = 0;
    while (waitpid(child, &status, WNOHANG) < 0 && errno == EINTR) {
    }
  }
}

}  // namespace sluice::launcher
