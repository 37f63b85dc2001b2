// Owning, typed handles to AsyncValues and the functions that make them.
#ifndef SLUICE_HOST_CONTEXT_ASYNC_VALUE_REF_H_
#define SLUICE_HOST_CONTEXT_ASYNC_VALUE_REF_H_

#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sluice/host_context/async_value.h"
#include "sluice/support/ref_count.h"

namespace sluice {

// An owning handle to an AsyncValue whose payload is a `T`.
template <typename T>
class AsyncValueRef {
 public:
  AsyncValueRef() = default;
  AsyncValueRef(std::nullptr_t) {}  // NOLINT(runtime/explicit)
  // Adopts an untyped reference; the caller vouches for the payload type.
  explicit AsyncValueRef(RCReference<AsyncValue> value)
      : value_(std::move(value)) {}

  AsyncValueRef(AsyncValueRef&&) noexcept = default;
  AsyncValueRef& operator=(AsyncValueRef&&) noexcept = default;
  AsyncValueRef(const AsyncValueRef&) = delete;
  AsyncValueRef& operator=(const AsyncValueRef&) = delete;

  AsyncValueRef CopyRef() const { return AsyncValueRef(value_.CopyRef()); }
  RCReference<AsyncValue> CopyRCRef() const { return value_.CopyRef(); }
  // Gives up the typed view, keeping the reference.
  RCReference<AsyncValue> ReleaseRCRef() { return std::move(value_); }

  AsyncValue* GetAsyncValue() const { return value_.get(); }
  explicit operator bool() const { return static_cast<bool>(value_); }

  bool IsAvailable() const { return value_->IsAvailable(); }
  bool IsUnavailable() const { return value_->IsUnavailable(); }
  bool IsConcrete() const { return value_->IsConcrete(); }
  bool IsError() const { return value_->IsError(); }
  bool IsUnique() const { return value_->IsUnique(); }

  T& get() const { return value_->template get<T>(); }
  T& operator*() const { return get(); }
  T* operator->() const { return &get(); }

  const absl::Status& GetError() const { return value_->GetError(); }

  template <typename... Args>
  void emplace(Args&&... args) const {
    value_->template emplace<T>(std::forward<Args>(args)...);
  }
  void SetStateConcrete() const { value_->SetStateConcrete(); }
  void SetError(absl::Status status) const {
    value_->SetError(std::move(status));
  }

  template <typename F>
  void AndThen(F&& waiter) const {
    value_->AndThen(std::forward<F>(waiter));
  }

 private:
  RCReference<AsyncValue> value_;
};

// An empty payload that orders side effects.
struct Chain {};

// A concrete value holding `T(args...)`.
template <typename T, typename... Args>
AsyncValueRef<T> MakeAvailableAsyncValueRef(Args&&... args) {
  using Tag = typename ConcreteAsyncValue<T>::ConcreteTag;
  return AsyncValueRef<T>(TakeRef<AsyncValue>(
      new ConcreteAsyncValue<T>(Tag{}, std::forward<Args>(args)...)));
}

// A value whose payload is built now but published later with
// SetStateConcrete().
template <typename T, typename... Args>
AsyncValueRef<T> MakeConstructedAsyncValueRef(Args&&... args) {
  using Tag = typename ConcreteAsyncValue<T>::ConstructedTag;
  return AsyncValueRef<T>(TakeRef<AsyncValue>(
      new ConcreteAsyncValue<T>(Tag{}, std::forward<Args>(args)...)));
}

// A value with room for a `T`, filled later with emplace() or SetError().
template <typename T>
AsyncValueRef<T> MakeUnconstructedAsyncValueRef() {
  return AsyncValueRef<T>(TakeRef<AsyncValue>(new ConcreteAsyncValue<T>()));
}

// An available error value.
inline RCReference<ErrorAsyncValue> MakeErrorAsyncValueRef(
    absl::Status status) {
  return TakeRef(new ErrorAsyncValue(std::move(status)));
}

// An unavailable value that ForwardTo() resolves later.
inline RCReference<IndirectAsyncValue> MakeIndirectAsyncValue() {
  return TakeRef(new IndirectAsyncValue());
}

// A chain that is already available.
inline AsyncValueRef<Chain> MakeReadyChain() {
  return MakeAvailableAsyncValueRef<Chain>();
}

namespace internal {

// Lets helpers accept work that returns a T or an absl::StatusOr<T>.
template <typename R>
struct UnwrapStatusOr {
  using type = R;
  static void Fill(const AsyncValueRef<R>& value, R&& result) {
    value.emplace(std::move(result));
  }
};

template <typename T>
struct UnwrapStatusOr<absl::StatusOr<T>> {
  using type = T;
  static void Fill(const AsyncValueRef<T>& value, absl::StatusOr<T>&& result) {
    if (result.ok()) {
      value.emplace(*std::move(result));
    } else {
      value.SetError(std::move(result).status());
    }
  }
};

}  // namespace internal
}  // namespace sluice

#endif  // SLUICE_HOST_CONTEXT_ASYNC_VALUE_REF_H_
