// RunWhenReady: run a callback once every value in a set is available.
#ifndef SLUICE_HOST_CONTEXT_RUN_WHEN_READY_H_
#define SLUICE_HOST_CONTEXT_RUN_WHEN_READY_H_

#include <atomic>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "absl/types/span.h"
#include "sluice/host_context/async_value.h"

namespace sluice {
namespace internal {

// Counts down the values still unavailable; the last one runs the callback.
template <typename F>
struct ReadyCountdown {
  template <typename G>
  ReadyCountdown(size_t count, G&& f)
      : remaining(count), callback(std::forward<G>(f)) {}
  void Decrement(size_t n = 1) {
    if (remaining.fetch_sub(n, std::memory_order_acq_rel) == n) {
      callback();
      delete this;
    }
  }
  std::atomic<size_t> remaining;
  F callback;
};

template <typename F, typename GetValue>
void RunWhenReadyImpl(size_t size, GetValue get_value, F&& callback) {
  size_t unavailable = 0;
  AsyncValue* last_unavailable = nullptr;
  for (size_t i = 0; i < size; ++i) {
    AsyncValue* value = get_value(i);
    if (value->IsUnavailable()) {
      ++unavailable;
      last_unavailable = value;
    }
  }
  if (unavailable == 0) {
    callback();
    return;
  }
  if (unavailable == 1) {
    last_unavailable->AndThen(std::forward<F>(callback));
    return;
  }
  // Some values counted above may have become available since; they get no
  // waiter, and the final Decrement() settles their share along with the
  // guard count that keeps the callback from running before this loop ends.
  auto* countdown = new ReadyCountdown<std::decay_t<F>>(
      unavailable + 1, std::forward<F>(callback));
  size_t waiting = 0;
  for (size_t i = 0; i < size; ++i) {
    AsyncValue* value = get_value(i);
    if (value->IsAvailable()) continue;
    ++waiting;
    value->AndThen([countdown] { countdown->Decrement(); });
  }
  countdown->Decrement(unavailable - waiting + 1);
}

}  // namespace internal

// Runs `callback()` once every value in `values` is available (concrete or
// error): at once if they all are, otherwise on the thread that makes the
// last one available. Holds no references: the caller keeps the values
// alive until they resolve (a value destroyed unresolved drops the callback
// unrun).
template <typename F>
void RunWhenReady(absl::Span<AsyncValue* const> values, F&& callback) {
  internal::RunWhenReadyImpl(
      values.size(), [values](size_t i) { return values[i]; },
      std::forward<F>(callback));
}

template <typename F>
void RunWhenReady(absl::Span<const RCReference<AsyncValue>> values,
                  F&& callback) {
  internal::RunWhenReadyImpl(
      values.size(), [values](size_t i) { return values[i].get(); },
      std::forward<F>(callback));
}

}  // namespace sluice

#endif  // SLUICE_HOST_CONTEXT_RUN_WHEN_READY_H_
