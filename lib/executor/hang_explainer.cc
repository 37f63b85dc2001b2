// How a hang is explained. Everything is read from the frames' watches
// (lib/executor/frame_watch.h) with the registry locked: which kernels have
// started and finished, and every value each call produced, kept alive by
// the watch. A value is explained when what produces it is itself waiting:
// a kernel not yet run, a call whose callee is still live, a remote call
// still waiting to be sent. What is left are the root causes, each with
// the kernels not run yet that wait on it; the unanswered calls to one task
// are one root cause (the task), listed as a group.
#include "sluice/executor/hang_explainer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "lib/executor/frame_watch.h"

namespace sluice {
namespace {

using executor_internal::ExecutableFunction;
using executor_internal::FrameWatch;
using executor_internal::KernelRecord;

// How many waiting kernels are listed per call; the rest are counted.
constexpr size_t kMaxListedKernels = 50;

std::string Seconds(int64_t since_ns, int64_t now_ns) {
  return absl::StrFormat("%.1f s",
                         static_cast<double>(now_ns - since_ns) / 1e9);
}

// "'f'", or "a region" for the body of control flow, which has no name.
std::string FunctionName(const Function& function) {
  return function.name().empty() ? "a region"
                                 : absl::StrCat("'", function.name(), "'");
}

std::string RemoteCallText(const ActivityRegistry::RemoteCall& call,
                           int64_t now_ns) {
  std::string text =
      absl::StrCat("remote call of '", call.function, "' on task ", call.task);
  const int64_t sent = call.sent_ns.load(std::memory_order_acquire);
  if (sent == 0) {
    absl::StrAppend(&text, ", made ", Seconds(call.made_ns, now_ns),
                    " ago, waiting for its arguments");
  } else {
    absl::StrAppend(&text, ", sent ", Seconds(sent, now_ns),
                    " ago, no answer yet");
  }
  if (!call.caller.empty()) absl::StrAppend(&text, " (by ", call.caller, ")");
  return text;
}

class Explainer {
  // A root cause: one kernel, or the unanswered remote calls to one task;
  // and the kernels not run yet that wait on it.
  struct Root {
    std::string text;  // a kernel's; empty for remote calls
    std::vector<const ActivityRegistry::RemoteCall*> calls;
    std::set<std::pair<const FrameWatch*, uint32_t>> explains;
  };

 public:
  Explainer(const std::vector<const ActivityRegistry::Frame*>& frames,
            const std::vector<const ActivityRegistry::RemoteCall*>& calls)
      : now_ns_(absl::GetCurrentTimeNanos()), calls_(calls) {
    for (const ActivityRegistry::Frame* frame : frames) {
      const auto* watch = static_cast<const FrameWatch*>(frame);
      frames_.push_back(watch);
      live_callees_.insert({watch->request(), &watch->function()});
    }
    for (const ActivityRegistry::RemoteCall* call : calls) {
      if (call->caller_frame != nullptr) {
        remote_by_kernel_[{call->caller_frame, call->caller_kernel}] = call;
      }
    }
  }

  std::string Explain() {
    std::string pending;
    for (const FrameWatch* frame : frames_) {
      CollectRoots(*frame);
      DescribePending(*frame, &pending);
    }
    // Calls whose kernel's call has returned (or that no kernel made).
    for (const ActivityRegistry::RemoteCall* call : calls_) {
      if (reported_.count(call) == 0 &&
          call->sent_ns.load(std::memory_order_acquire) != 0) {
        AddRemoteRoot(*call);
      }
    }
    for (const FrameWatch* frame : frames_) CountExplained(*frame);
    // The root that explains the most first.
    std::stable_sort(roots_.begin(), roots_.end(),
                     [](const Root& a, const Root& b) {
                       return a.explains.size() > b.explains.size();
                     });

    std::set<const RequestContext*> requests;
    for (const FrameWatch* frame : frames_) requests.insert(frame->request());
    std::string out =
        absl::StrCat("hang explanation: ", frames_.size(), " live call(s) in ",
                     requests.size(), " request(s), ", calls_.size(),
                     " remote call(s) not answered\n");
    if (frames_.empty() && calls_.empty()) {
      out.append("nothing is waiting\n");
      return out;
    }
    out.append("root causes (what nothing else explains):\n");
    if (roots_.empty()) out.append("  none found\n");
    for (size_t i = 0; i < roots_.size(); ++i) {
      absl::StrAppend(&out, "  ", i + 1, ". ", RootText(roots_[i]), "\n");
    }
    out.append("waiting kernels:\n");
    out.append(pending.empty() ? "  none\n" : pending);
    out.append("remote calls in flight:\n");
    if (calls_.empty()) out.append("  none\n");
    for (const auto& [task, calls] : CallsByTask()) {
      if (calls.size() == 1) {
        absl::StrAppend(&out, "  ", RemoteCallText(*calls[0], now_ns_), "\n");
      } else {
        absl::StrAppend(&out, "  ", CallGroupText(task, calls), "\n");
      }
    }
    return out;
  }

 private:
  static std::string KernelName(const FrameWatch& frame, uint32_t kernel) {
    const KernelDebugInfo& info = frame.function().debug_infos.Get(kernel);
    return DescribeKernelAt(info.name,
                            info.location ? &*info.location : nullptr);
  }

  static const uint32_t* Operands(const FrameWatch& frame, uint32_t kernel) {
    return frame.function().record(kernel).operands();
  }

  static bool Unresolved(const FrameWatch& frame, uint32_t reg) {
    const AsyncValue* value = frame.value(reg);
    return value == nullptr || !value->IsAvailable();
  }

  // The kernel producing `reg`, or -1 - N for argument N.
  int64_t Producer(const FrameWatch& frame, uint32_t reg) const {
    std::vector<int64_t>& producers = producers_[&frame.function()];
    if (producers.empty()) {
      const ExecutableFunction& fn = frame.function();
      producers.assign(fn.num_registers, -1);
      for (size_t i = 0; i < fn.argument_registers.size(); ++i) {
        producers[fn.argument_registers[i]] = -1 - static_cast<int64_t>(i);
      }
      for (uint32_t k = 0; k < fn.num_kernels(); ++k) {
        const KernelRecord& kernel = fn.record(k);
        for (uint32_t i = 0; i < kernel.num_results; ++i) {
          producers[kernel.result_register(i)] = k;
        }
      }
    }
    return producers[reg];
  }

  // The callee of a call-like kernel that is still running in the same
  // request, if any.
  const Function* LiveCallee(const FrameWatch& frame, uint32_t kernel) const {
    const ExecutableFunction& fn = frame.function();
    for (const Function* callee :
         fn.extras[fn.record(kernel).extras].functions) {
      if (live_callees_.count({frame.request(), callee}) != 0) return callee;
    }
    return nullptr;
  }

  const ActivityRegistry::RemoteCall* RemoteCallOf(const FrameWatch& frame,
                                                   uint32_t kernel) const {
    auto it = remote_by_kernel_.find({&frame, kernel});
    return it == remote_by_kernel_.end() ? nullptr : it->second;
  }

  bool HasUnresolvedResult(const FrameWatch& frame, uint32_t kernel) const {
    const KernelRecord& record = frame.function().record(kernel);
    for (uint32_t i = 0; i < record.num_results; ++i) {
      if (Unresolved(frame, record.result_register(i))) return true;
    }
    return false;
  }

  bool HasUnresolvedOperand(const FrameWatch& frame, uint32_t kernel) const {
    const uint32_t* operands = Operands(frame, kernel);
    for (uint32_t i = 0; i < frame.function().record(kernel).num_operands;
         ++i) {
      if (Unresolved(frame, operands[i])) return true;
    }
    return false;
  }

  void CollectRoots(const FrameWatch& frame) {
    const ExecutableFunction& fn = frame.function();
    for (uint32_t k = 0; k < fn.num_kernels(); ++k) {
      const int64_t state = frame.kernel_state(k);
      if (state == 0 || LiveCallee(frame, k) != nullptr) continue;
      const std::string in = absl::StrCat(" in ", FunctionName(fn));
      if (state > 0) {
        AddRoot(frame, k,
                absl::StrCat("kernel ", KernelName(frame, k), in,
                             " has been running for ", Seconds(state, now_ns_),
                             " on its thread"));
        continue;
      }
      if (!HasUnresolvedResult(frame, k)) continue;
      if (const auto* call = RemoteCallOf(frame, k)) {
        if (call->sent_ns.load(std::memory_order_acquire) != 0) {
          root_of_kernel_[{&frame, k}] = AddRemoteRoot(*call);
        }
        reported_.insert(call);
        continue;
      }
      // A non-strict kernel (a call, control flow) still waiting for an
      // input is explained by that input.
      if (HasUnresolvedOperand(frame, k)) continue;
      AddRoot(frame, k,
              absl::StrCat("async kernel ", KernelName(frame, k), in,
                           ", started ", Seconds(-state, now_ns_),
                           " ago, has not resolved its results"));
    }
  }

  void AddRoot(const FrameWatch& frame, uint32_t kernel, std::string text) {
    root_of_kernel_[{&frame, kernel}] = roots_.size();
    roots_.push_back(Root{std::move(text), {}, {}});
  }

  // The remote calls sent to one task and not answered are one root cause:
  // the task (down, stopped or slow) explains them all. Returns its index.
  size_t AddRemoteRoot(const ActivityRegistry::RemoteCall& call) {
    for (size_t i = 0; i < roots_.size(); ++i) {
      if (!roots_[i].calls.empty() && roots_[i].calls[0]->task == call.task) {
        roots_[i].calls.push_back(&call);
        return i;
      }
    }
    roots_.push_back(Root{"", {&call}, {}});
    return roots_.size() - 1;
  }

  std::string RootText(const Root& root) const {
    std::string text = root.calls.empty() ? root.text
                       : root.calls.size() == 1
                           ? RemoteCallText(*root.calls[0], now_ns_)
                           : CallGroupText(root.calls[0]->task, root.calls);
    if (!root.explains.empty()) {
      absl::StrAppend(&text, "; ", root.explains.size(),
                      " waiting kernel(s) wait on it");
    }
    return text;
  }

  // "3 remote calls on task T, sent 1.2 to 0.8 s ago, no answer yet: 'f'
  // (2), 'g' (1)".
  std::string CallGroupText(
      const std::string& task,
      const std::vector<const ActivityRegistry::RemoteCall*>& calls) const {
    std::map<std::string, size_t> by_function;
    int64_t oldest = now_ns_, newest = 0;
    size_t unsent = 0;
    for (const ActivityRegistry::RemoteCall* call : calls) {
      ++by_function[call->function];
      const int64_t sent = call->sent_ns.load(std::memory_order_acquire);
      if (sent == 0) {
        ++unsent;
        continue;
      }
      oldest = std::min(oldest, sent);
      newest = std::max(newest, sent);
    }
    std::vector<std::string> functions;
    for (const auto& [function, count] : by_function) {
      functions.push_back(absl::StrCat("'", function, "' (", count, ")"));
    }
    std::string text =
        absl::StrCat(calls.size(), " remote calls on task ", task);
    if (newest != 0) {
      absl::StrAppend(&text, ", sent ", Seconds(oldest, now_ns_), " to ",
                      Seconds(newest, now_ns_), " ago, no answer yet");
    }
    if (unsent > 0) {
      absl::StrAppend(&text, ", ", unsent, " waiting for their arguments");
    }
    absl::StrAppend(&text, ": ", absl::StrJoin(functions, ", "));
    return text;
  }

  // The calls in flight, by task, in the order the tasks first come.
  std::vector<
      std::pair<std::string, std::vector<const ActivityRegistry::RemoteCall*>>>
  CallsByTask() const {
    std::vector<std::pair<std::string,
                          std::vector<const ActivityRegistry::RemoteCall*>>>
        groups;
    for (const ActivityRegistry::RemoteCall* call : calls_) {
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) {
        return g.first == call->task;
      });
      if (it == groups.end()) {
        groups.push_back({call->task, {}});
        it = groups.end() - 1;
      }
      it->second.push_back(call);
    }
    return groups;
  }

  // Credits each root with the kernels of `frame` not run yet that wait
  // on it, directly or through other kernels not run yet.
  void CountExplained(const FrameWatch& frame) {
    const ExecutableFunction& fn = frame.function();
    std::map<uint32_t, std::set<size_t>> memo;
    for (uint32_t k = 0; k < fn.num_kernels(); ++k) {
      if (frame.kernel_state(k) != 0) continue;
      for (size_t root : RootsBehind(frame, k, memo)) {
        roots_[root].explains.insert({&frame, k});
      }
    }
  }

  // The roots kernel `k` of `frame` waits on, through its unresolved
  // operands.
  const std::set<size_t>& RootsBehind(
      const FrameWatch& frame, uint32_t k,
      std::map<uint32_t, std::set<size_t>>& memo) const {
    auto [it, inserted] = memo.try_emplace(k);
    if (!inserted) return it->second;
    std::set<size_t> roots;
    const uint32_t* operands = Operands(frame, k);
    for (uint32_t i = 0; i < frame.function().record(k).num_operands; ++i) {
      if (!Unresolved(frame, operands[i])) continue;
      const int64_t producer = Producer(frame, operands[i]);
      if (producer < 0) continue;  // an argument: the caller's to explain
      const uint32_t p = static_cast<uint32_t>(producer);
      auto root = root_of_kernel_.find({&frame, p});
      if (root != root_of_kernel_.end()) {
        roots.insert(root->second);
        continue;
      }
      const std::set<size_t>& behind = RootsBehind(frame, p, memo);
      roots.insert(behind.begin(), behind.end());
    }
    // `it` stays valid: std::map insertions do not move elements.
    it->second = std::move(roots);
    return it->second;
  }

  // Why the value in `reg` is not available, naming what produces it;
  // sets `*frontier` when that producer is not itself waiting to run.
  std::string Source(const FrameWatch& frame, uint32_t reg,
                     bool* frontier) const {
    const int64_t producer = Producer(frame, reg);
    if (producer < 0) {
      *frontier = true;
      return absl::StrCat("argument ", -1 - producer, " of ",
                          FunctionName(frame.function()),
                          ", not available yet");
    }
    const uint32_t k = static_cast<uint32_t>(producer);
    const std::string name = KernelName(frame, k);
    const int64_t state = frame.kernel_state(k);
    if (state == 0) return absl::StrCat(name, ", which has not run yet");
    *frontier = true;
    if (state > 0) {
      return absl::StrCat(name, ", still running (for ",
                          Seconds(state, now_ns_), ")");
    }
    if (const auto* call = RemoteCallOf(frame, k)) {
      return absl::StrCat(name, ": ", RemoteCallText(*call, now_ns_));
    }
    if (const Function* callee = LiveCallee(frame, k)) {
      return absl::StrCat(name, ": its call of ", FunctionName(*callee),
                          " has not returned");
    }
    if (HasUnresolvedOperand(frame, k)) {
      return absl::StrCat(name, ", which waits for an input of its own");
    }
    return absl::StrCat("async kernel ", name, ", still running (started ",
                        Seconds(-state, now_ns_), " ago)");
  }

  void DescribePending(const FrameWatch& frame, std::string* out) const {
    const ExecutableFunction& fn = frame.function();
    std::string listed;
    size_t num_listed = 0;
    size_t downstream = 0;
    for (uint32_t k = 0; k < fn.num_kernels(); ++k) {
      if (frame.kernel_state(k) != 0) continue;
      const KernelRecord& kernel = fn.record(k);
      const uint32_t* operands = Operands(frame, k);
      std::string waits;
      bool frontier = false;
      for (uint32_t i = 0; i < kernel.num_operands; ++i) {
        if (!Unresolved(frame, operands[i])) continue;
        absl::StrAppend(&waits, "      operand ", i, ": from ",
                        Source(frame, operands[i], &frontier), "\n");
      }
      if (waits.empty()) {
        // Every input is there: it is queued behind other work.
        frontier = true;
        waits = "      nothing: ready, waiting for a thread\n";
      }
      if (!frontier) {
        ++downstream;
        continue;
      }
      if (num_listed++ == kMaxListedKernels) continue;
      absl::StrAppend(&listed, "    ", KernelName(frame, k), " waits for:\n",
                      waits);
    }
    if (num_listed == 0 && downstream == 0) return;
    absl::StrAppend(out, "  in ", FunctionName(fn), " (called ",
                    Seconds(frame.created_ns(), now_ns_), " ago):\n", listed);
    if (num_listed > kMaxListedKernels) {
      absl::StrAppend(out, "    ... and ", num_listed - kMaxListedKernels,
                      " more like these\n");
    }
    if (downstream > 0) {
      absl::StrAppend(out, "    and ", downstream,
                      " kernel(s) that wait only for kernels not run yet\n");
    }
  }

  const int64_t now_ns_;
  const std::vector<const ActivityRegistry::RemoteCall*>& calls_;
  std::vector<const FrameWatch*> frames_;
  std::set<std::pair<const RequestContext*, const Function*>> live_callees_;
  std::map<std::pair<const ActivityRegistry::Frame*, uint32_t>,
           const ActivityRegistry::RemoteCall*>
      remote_by_kernel_;
  mutable std::map<const ExecutableFunction*, std::vector<int64_t>> producers_;
  std::set<const ActivityRegistry::RemoteCall*> reported_;

  std::vector<Root> roots_;
  std::map<std::pair<const FrameWatch*, uint32_t>, size_t> root_of_kernel_;
};

// The write end of the pipe the SIGUSR1 handler writes to; -1 when no
// watcher is running.
std::atomic<int> signal_pipe{-1};

void OnSignal(int) {
  const int fd = signal_pipe.load(std::memory_order_relaxed);
  if (fd < 0) return;
  const int saved_errno = errno;
  const char byte = 1;
  // A full pipe already holds a request: dropping this one loses nothing.
  (void)!write(fd, &byte, 1);
  errno = saved_errno;
}

}  // namespace

std::string ExplainHang(const ActivityRegistry& activity) {
  std::string explanation;
  activity.Inspect(
      [&](const std::vector<const ActivityRegistry::Frame*>& frames,
          const std::vector<const ActivityRegistry::RemoteCall*>& calls) {
        explanation = Explainer(frames, calls).Explain();
      });
  return explanation;
}

absl::StatusOr<std::unique_ptr<HangSignalWatcher>> HangSignalWatcher::Start(
    const ActivityRegistry* activity, std::string header) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat(
        "couldn't make the SIGUSR1 watcher's pipe: ", std::strerror(errno)));
  }
  fcntl(fds[1], F_SETFL, O_NONBLOCK);
  int expected = -1;
  if (!signal_pipe.compare_exchange_strong(expected, fds[1])) {
    close(fds[0]);
    close(fds[1]);
    return absl::FailedPreconditionError(
        "a SIGUSR1 hang watcher is already running in this process");
  }
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &action, nullptr);
  return std::unique_ptr<HangSignalWatcher>(
      new HangSignalWatcher(activity, std::move(header), fds[0], fds[1]));
}

HangSignalWatcher::HangSignalWatcher(const ActivityRegistry* activity,
                                     std::string header, int read_fd,
                                     int write_fd)
    : activity_(activity),
      header_(std::move(header)),
      read_fd_(read_fd),
      write_fd_(write_fd),
      thread_([this] { Watch(); }) {}

HangSignalWatcher::~HangSignalWatcher() {
  signal(SIGUSR1, SIG_DFL);
  signal_pipe.store(-1);
  // Closing the write end ends the watcher thread's read.
  close(write_fd_);
  thread_.join();
  close(read_fd_);
}

void HangSignalWatcher::Watch() {
  char byte;
  while (true) {
    const ssize_t n = read(read_fd_, &byte, 1);
    if (n == 0) return;
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    const std::string text =
        absl::StrCat(header_, "\n", ExplainHang(*activity_));
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
  }
}

}  // namespace sluice
