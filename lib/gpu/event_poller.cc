#include "sluice/gpu/event_poller.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace sluice {
namespace gpu {
namespace {

absl::Status StoppedError() {
  return absl::CancelledError(
      "event poller stopped before the event completed");
}

}  // namespace

PolledEvent::~PolledEvent() = default;

EventPoller::EventPoller(EventPollerOptions options)
    : options_(options), thread_([this] { Run(); }) {}

EventPoller::~EventPoller() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

EventPoller& EventPoller::Process() {
  // Stopped at exit by its destructor. Only a program that exits without
  // waiting for its GPU work has events pending then; they are cancelled.
  static EventPoller poller;
  return poller;
}

void EventPoller::Watch(std::unique_ptr<PolledEvent> event, Callback done) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!stopping_) {
      incoming_.push_back(Watched{std::move(event), std::move(done)});
      ++num_pending_;
      // The poller thread sleeps on the condition only while it watches
      // nothing, so a notify per event costs no extra wake-ups otherwise.
      wake_.notify_one();
      return;
    }
  }
  std::move(done)(StoppedError());
}

AsyncValueRef<Chain> EventPoller::WatchOnHost(
    std::unique_ptr<PolledEvent> event, HostContext* host, std::string what) {
  AsyncValueRef<Chain> chain = MakeUnconstructedAsyncValueRef<Chain>();
  Watch(
      std::move(event), [chain = chain.CopyRef(), host,
                         what = std::move(what)](absl::Status status) mutable {
        host->EnqueueWork([chain = std::move(chain), status = std::move(status),
                           what = std::move(what)]() mutable {
          if (status.ok()) {
            chain.emplace();
          } else {
            chain.SetError(absl::Status(
                status.code(),
                absl::StrCat(what, ": ", std::string(status.message()))));
          }
        });
      });
  return chain;
}

int64_t EventPoller::num_pending() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return num_pending_;
}

int64_t EventPoller::num_rounds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return num_rounds_;
}

void EventPoller::Run() {
  std::vector<Watched> watched;
  absl::Duration backoff = options_.min_backoff;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (watched.empty() && incoming_.empty()) {
        wake_.wait(lock, [this] { return stopping_ || !incoming_.empty(); });
      } else if (!stopping_ && incoming_.empty()) {
        wake_.wait_for(lock, absl::ToChronoNanoseconds(backoff),
                       [this] { return stopping_ || !incoming_.empty(); });
      }
      for (Watched& w : incoming_) watched.push_back(std::move(w));
      incoming_.clear();
      if (stopping_) break;
      ++num_rounds_;
    }
    // Callbacks run outside the lock (they may watch new events), after
    // num_pending() has stopped counting their events.
    std::vector<std::pair<Watched, absl::Status>> finished;
    size_t kept = 0;
    for (size_t i = 0; i < watched.size(); ++i) {
      absl::StatusOr<PolledEvent::State> state = watched[i].event->Query();
      if (state.ok() && *state == PolledEvent::State::kPending) {
        if (kept != i) watched[kept] = std::move(watched[i]);
        ++kept;
        continue;
      }
      watched[i].event.reset();
      finished.emplace_back(std::move(watched[i]),
                            state.ok() ? absl::OkStatus() : state.status());
    }
    watched.erase(watched.begin() + kept, watched.end());
    if (!finished.empty()) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        num_pending_ -= static_cast<int64_t>(finished.size());
      }
      for (auto& [w, status] : finished) std::move(w.done)(std::move(status));
    }
    backoff = !finished.empty() ? options_.min_backoff
                                : std::min(backoff * 2, options_.max_backoff);
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    num_pending_ = 0;
  }
  for (Watched& w : watched) {
    w.event.reset();
    std::move(w.done)(StoppedError());
  }
}

}  // namespace gpu
}  // namespace sluice
