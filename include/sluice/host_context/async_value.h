// AsyncValue: a reference-counted value that becomes available later, as a
// payload of a type known at the use site or as an error.
//
// A value moves through these states, once each, in this order:
//
//   unconstructed ──▶ constructed ──▶ concrete
//         │                 │
//         └────────────────┴──────▶ error
//
// "Available" means concrete or error. Waiters registered with AndThen() run
// exactly once, when the value becomes available (at once if it already is).
// An IndirectAsyncValue starts unavailable and later forwards to another
// value, taking that value's state and payload.
//
// Hot paths (state check, add/drop reference, payload access) are inline.
// Small payloads live in the same allocation as the value.
#ifndef SLUICE_HOST_CONTEXT_ASYNC_VALUE_H_
#define SLUICE_HOST_CONTEXT_ASYNC_VALUE_H_

#include <atomic>
#include <cassert>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

#include "absl/base/attributes.h"
#include "absl/status/status.h"
#include "sluice/host_context/async_value_pool.h"
#include "sluice/support/ref_count.h"

namespace sluice {

class AsyncValue;
class IndirectAsyncValue;
template <typename T>
class ConcreteAsyncValue;

namespace internal {

// A waiter: one heap node holding the callback itself, linked into the
// value's waiter list. `invoke(node, run)` runs the callback if `run`, then
// destroys the node.
struct WaiterNode {
  WaiterNode* next = nullptr;
  void (*invoke)(WaiterNode* node, bool run);
};

template <typename F>
struct alignas(8) CallbackWaiter final : WaiterNode {
  template <typename G>
  explicit CallbackWaiter(G&& f) : callback(std::forward<G>(f)) {
    invoke = [](WaiterNode* node, bool run) {
      auto* self = static_cast<CallbackWaiter*>(node);
      if (run) self->callback();
      delete self;
    };
  }
  F callback;
};

// Live AsyncValues, counted when AsyncValue::kCountsInstances.
inline std::atomic<int64_t> live_async_values{0};

// What a value needs to know about its payload type at run time.
struct PayloadTypeInfo {
  void (*destroy)(AsyncValue* value);
  // sizeof the ConcreteAsyncValue when its payload needs no destructor and
  // its memory comes from AllocateSmall, else 0: such a value is freed
  // without the indirect call to `destroy`.
  uint32_t plain_size;
  const absl::Status& (*get_error)(const AsyncValue* value);
  // Puts `status` where the payload would be.
  void (*construct_error)(AsyncValue* value, absl::Status status);
  const char* name;
};

}  // namespace internal

class AsyncValue {
 public:
  enum class State : uint8_t {
    kUnconstructed = 0,
    kConstructed = 1,
    kConcrete = 2,
    kError = 3,
  };

  AsyncValue(const AsyncValue&) = delete;
  AsyncValue& operator=(const AsyncValue&) = delete;

  // Values are made and dropped once per kernel result: their memory comes
  // from per-thread free lists (async_value_pool.h). Every value is deleted
  // through its exact type, so the size passed back is the one allocated.
  static void* operator new(size_t size) {
    return internal::AllocateSmall(size);
  }
  static void operator delete(void* block, size_t size) {
    internal::FreeSmall(block, size);
  }
  static void* operator new(size_t size, std::align_val_t alignment) {
    return ::operator new(size, alignment);
  }
  static void operator delete(void* block, size_t size,
                              std::align_val_t alignment) {
    ::operator delete(block, size, alignment);
  }

  // --- State ---------------------------------------------------------------
  State state() const {
    return static_cast<State>(
        waiters_and_state_.load(std::memory_order_acquire) & kStateMask);
  }
  bool IsAvailable() const { return state() >= State::kConcrete; }
  bool IsUnavailable() const { return !IsAvailable(); }
  bool IsConcrete() const { return state() == State::kConcrete; }
  bool IsError() const { return state() == State::kError; }
  bool IsConstructed() const { return state() == State::kConstructed; }
  bool IsUnconstructed() const { return state() == State::kUnconstructed; }
  bool IsIndirect() const { return kind_ == Kind::kIndirect; }

  // --- Reference counting --------------------------------------------------
  void AddRef(uint32_t count = 1) {
    refcount_.fetch_add(count, std::memory_order_relaxed);
  }
  void DropRef(uint32_t count = 1) {
    // A sole owner skips the atomic decrement.
    if (refcount_.load(std::memory_order_acquire) == count ||
        refcount_.fetch_sub(count, std::memory_order_acq_rel) == count) {
      Destroy();
    }
  }
  uint32_t NumRef() const { return refcount_.load(std::memory_order_acquire); }
  // True when the caller holds the only reference (through indirection too).
  bool IsUnique() const;

  // --- Payload -------------------------------------------------------------
  // The payload of a concrete value. The caller names the payload's exact
  // type; debug builds check it.
  template <typename T>
  T& get();
  template <typename T>
  const T& get() const {
    return const_cast<AsyncValue*>(this)->get<T>();
  }

  // True when the value is concrete, directly or through indirection, and
  // its payload is a `T`: how code that did not make a value (a codec, a
  // printer) finds out what it holds.
  template <typename T>
  bool IsType() const;

  // The error of a value in the error state.
  const absl::Status& GetError() const;
  // The error, or nullptr if the value is not (yet) an error.
  const absl::Status* GetErrorIfPresent() const {
    return IsError() ? &GetError() : nullptr;
  }

  // --- Resolving -----------------------------------------------------------
  // Constructs the payload in place and makes the value concrete.
  template <typename T, typename... Args>
  void emplace(Args&&... args);
  // Builds the payload of an unconstructed value without making it
  // available; SetStateConcrete() publishes it later.
  template <typename T, typename... Args>
  void ConstructPayload(Args&&... args);
  // Makes a constructed value concrete.
  void SetStateConcrete();
  // Makes an unavailable value an error. Setting an error on an available
  // value is a programming error.
  void SetError(absl::Status status);

  // --- Waiting -------------------------------------------------------------
  // Runs `waiter()` exactly once when the value becomes available: now, if it
  // already is. Waiters run in the order they were added. A waiter that makes
  // another value available does not run that value's waiters recursively:
  // they are queued and run on this thread once the current waiter returns,
  // so chains of any length run in constant stack depth.
  template <typename F>
  void AndThen(F&& waiter);

  // The name of the payload type, for diagnostics ("error", "indirect").
  const char* TypeName() const;

  // Whether this is a concrete value of the payload type `type`
  // (&ConcreteAsyncValue<T>::kTypeInfo), not forwarded: the test a caller
  // that knows the type only by that identity makes before
  // payload_address().
  bool HoldsConcrete(const internal::PayloadTypeInfo* type) const {
    return type_info_ == type && IsConcrete();
  }
  // Where the payload of a concrete value starts, for payload types aligned
  // to at most 8 bytes: right after this header (see ConcreteAsyncValue).
  void* payload_address() {
    return reinterpret_cast<char*>(this) + sizeof(AsyncValue);
  }

  // How many AsyncValues exist now. Counted only in builds with assertions
  // (no NDEBUG), where tools check for leaked values at exit; elsewhere the
  // count costs nothing and is always 0.
  static int64_t NumLiveInstances() {
    return internal::live_async_values.load(std::memory_order_acquire);
  }
  static constexpr bool kCountsInstances =
#ifdef NDEBUG
      false;
#else
      true;
#endif

 protected:
  enum class Kind : uint8_t { kConcrete, kError, kIndirect };

  AsyncValue(Kind kind, State state, const internal::PayloadTypeInfo* type_info)
      : refcount_(1),
        kind_(kind),
        waiters_and_state_(static_cast<uintptr_t>(state)),
        type_info_(type_info) {
    if constexpr (kCountsInstances) {
      internal::live_async_values.fetch_add(1, std::memory_order_relaxed);
    }
  }
  ~AsyncValue() {
    if constexpr (kCountsInstances) {
      internal::live_async_values.fetch_sub(1, std::memory_order_release);
    }
  }

  // Publishes `new_state` and runs the waiters.
  void NotifyAvailable(State new_state);

 private:
  friend class IndirectAsyncValue;
  template <typename T>
  friend class ConcreteAsyncValue;

  static constexpr uintptr_t kStateMask = 3;

  void Destroy();
  void DestroyInGeneral();
  // The first value behind a chain of indirect values that is not itself
  // indirect, or nullptr if one of them is not forwarded yet.
  const AsyncValue* ForwardedValue() const;
  void AddWaiter(internal::WaiterNode* node);
  void RunWaiters(internal::WaiterNode* lifo_list);
  // Lets a value with waiters that will never run free them.
  static void DestroyWaiters(internal::WaiterNode* list);

  std::atomic<uint32_t> refcount_;
  const Kind kind_;
  // Low two bits: the State. The rest: the head of the waiter list (LIFO),
  // non-null only while the value is unavailable.
  std::atomic<uintptr_t> waiters_and_state_;
  const internal::PayloadTypeInfo* const type_info_;
};

// A value whose payload is a `T`, stored inline, or an error.
template <typename T>
class ConcreteAsyncValue final : public AsyncValue {
 public:
  // Unconstructed: the payload is built later.
  ConcreteAsyncValue()
      : AsyncValue(Kind::kConcrete, State::kUnconstructed, &kTypeInfo) {}

  struct ConstructedTag {};
  struct ConcreteTag {};
  template <typename... Args>
  explicit ConcreteAsyncValue(ConstructedTag, Args&&... args)
      : AsyncValue(Kind::kConcrete, State::kConstructed, &kTypeInfo) {
    new (&data_) T(std::forward<Args>(args)...);
  }
  template <typename... Args>
  explicit ConcreteAsyncValue(ConcreteTag, Args&&... args)
      : AsyncValue(Kind::kConcrete, State::kConcrete, &kTypeInfo) {
    new (&data_) T(std::forward<Args>(args)...);
  }

  ~ConcreteAsyncValue() {
    switch (state()) {
      case State::kConstructed:
      case State::kConcrete:
        data_.~T();
        break;
      case State::kError:
        error_.~Status();
        break;
      case State::kUnconstructed:
        break;
    }
  }

  T& data() { return data_; }

  // Builds the payload; the state stays as it is (see AsyncValue::emplace).
  template <typename... Args>
  void Construct(Args&&... args) {
    new (&data_) T(std::forward<Args>(args)...);
  }

  // A constructed payload that never became available is dropped.
  void ConstructError(absl::Status status) {
    if (state() == State::kConstructed) data_.~T();
    new (&error_) absl::Status(std::move(status));
  }

  static const internal::PayloadTypeInfo kTypeInfo;

 private:
  friend class AsyncValue;
  union {
    T data_;
    absl::Status error_;
  };
};

template <typename T>
const internal::PayloadTypeInfo ConcreteAsyncValue<T>::kTypeInfo = {
    [](AsyncValue* value) {
      delete static_cast<ConcreteAsyncValue<T>*>(value);
    },
    std::is_trivially_destructible_v<T> &&
            alignof(ConcreteAsyncValue<T>) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__
        ? static_cast<uint32_t>(sizeof(ConcreteAsyncValue<T>))
        : 0,
    [](const AsyncValue* value) -> const absl::Status& {
      return static_cast<const ConcreteAsyncValue<T>*>(value)->error_;
    },
    [](AsyncValue* value, absl::Status status) {
      static_cast<ConcreteAsyncValue<T>*>(value)->ConstructError(
          std::move(status));
    },
#if defined(__GNUC__)
    __PRETTY_FUNCTION__,
#else
    "payload",
#endif
};

// A value that is only ever an error: what a kernel returns when it has no
// payload type at hand.
class ErrorAsyncValue final : public AsyncValue {
 public:
  explicit ErrorAsyncValue(absl::Status status)
      : AsyncValue(Kind::kError, State::kError, nullptr),
        error_(std::move(status)) {
    assert(!error_.ok() && "an error value needs a non-OK status");
  }
  // Unavailable until SetError().
  ErrorAsyncValue()
      : AsyncValue(Kind::kError, State::kUnconstructed, nullptr) {}

  const absl::Status& error() const { return error_; }

 private:
  friend class AsyncValue;
  absl::Status error_;
};

// A value that stands for another one not known yet. ForwardTo() names the
// value; once that value is available, this one takes its state, and get<T>()
// and GetError() read through to it.
class IndirectAsyncValue final : public AsyncValue {
 public:
  IndirectAsyncValue()
      : AsyncValue(Kind::kIndirect, State::kUnconstructed, nullptr) {}
  ~IndirectAsyncValue() {
    if (target_ != nullptr) target_->DropRef();
  }

  // May be called once. If `target` is unavailable, this value becomes
  // available when it does.
  void ForwardTo(RCReference<AsyncValue> target);

  // The value named by ForwardTo() (possibly still unavailable), or nullptr
  // before. Set once, by the thread that calls ForwardTo().
  AsyncValue* target() const { return target_; }

 private:
  friend class AsyncValue;
  AsyncValue* target_ = nullptr;
};

// ---------------------------------------------------------------------------
// Implementation of the inline parts.

template <typename T>
T& AsyncValue::get() {
  AsyncValue* value = this;
  while (value->kind_ == Kind::kIndirect) {
    value = static_cast<IndirectAsyncValue*>(value)->target_;
    assert(value != nullptr && "get() on an indirect value not yet forwarded");
  }
  assert(value->type_info_ == &ConcreteAsyncValue<T>::kTypeInfo &&
         "get<T>() names a type other than the payload's");
  assert(value->state() >= State::kConstructed &&
         value->state() != State::kError &&
         "get() on a value without a payload");
  return static_cast<ConcreteAsyncValue<T>*>(value)->data_;
}

template <typename T>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool AsyncValue::IsType() const {
  // Direct values (what kernels read nearly always) need no walk: only a
  // concrete value of T has T's type info.
  if (type_info_ == &ConcreteAsyncValue<T>::kTypeInfo) return IsConcrete();
  if (kind_ != Kind::kIndirect) return false;
  const AsyncValue* value = ForwardedValue();
  return value != nullptr && value->kind_ == Kind::kConcrete &&
         value->IsConcrete() &&
         value->type_info_ == &ConcreteAsyncValue<T>::kTypeInfo;
}

template <typename T, typename... Args>
void AsyncValue::emplace(Args&&... args) {
  assert(kind_ == Kind::kConcrete &&
         type_info_ == &ConcreteAsyncValue<T>::kTypeInfo);
  assert(state() == State::kUnconstructed);
  static_cast<ConcreteAsyncValue<T>*>(this)->Construct(
      std::forward<Args>(args)...);
  NotifyAvailable(State::kConcrete);
}

template <typename T, typename... Args>
void AsyncValue::ConstructPayload(Args&&... args) {
  assert(kind_ == Kind::kConcrete &&
         type_info_ == &ConcreteAsyncValue<T>::kTypeInfo);
  assert(state() == State::kUnconstructed);
  static_cast<ConcreteAsyncValue<T>*>(this)->Construct(
      std::forward<Args>(args)...);
  // Waiters stay queued: the value is not available yet.
  waiters_and_state_.fetch_or(static_cast<uintptr_t>(State::kConstructed),
                              std::memory_order_release);
}

inline void AsyncValue::SetStateConcrete() {
  assert(state() == State::kConstructed &&
         "SetStateConcrete() needs a constructed payload");
  NotifyAvailable(State::kConcrete);
}

template <typename F>
void AsyncValue::AndThen(F&& waiter) {
  if (IsAvailable()) {
    waiter();
    return;
  }
  AddWaiter(
      new internal::CallbackWaiter<std::decay_t<F>>(std::forward<F>(waiter)));
}

inline void AsyncValue::NotifyAvailable(State new_state) {
  const uintptr_t old = waiters_and_state_.exchange(
      static_cast<uintptr_t>(new_state), std::memory_order_acq_rel);
  assert((old & kStateMask) < static_cast<uintptr_t>(State::kConcrete) &&
         "a value can become available only once");
  auto* waiters = reinterpret_cast<internal::WaiterNode*>(old & ~kStateMask);
  if (waiters != nullptr) RunWaiters(waiters);
}

inline void AsyncValue::Destroy() {
  // The common case inline: a concrete payload that needs no destructor and
  // no waiters left (the word is the bare state): only the memory goes.
  // Builds that count instances run the destructor, which counts.
  if (!kCountsInstances && kind_ == Kind::kConcrete &&
      waiters_and_state_.load(std::memory_order_relaxed) ==
          static_cast<uintptr_t>(State::kConcrete)) {
    const uint32_t plain_size = type_info_->plain_size;
    if (plain_size != 0) {
      internal::FreeSmall(this, plain_size);
      return;
    }
  }
  DestroyInGeneral();
}

}  // namespace sluice

#endif  // SLUICE_HOST_CONTEXT_ASYNC_VALUE_H_
