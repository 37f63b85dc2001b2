// Intrusive reference counting: `ReferenceCounted<T>` as a base class and
// `RCReference<T>`, the owning handle, for any type with AddRef()/DropRef().
#ifndef SLUICE_SUPPORT_REF_COUNT_H_
#define SLUICE_SUPPORT_REF_COUNT_H_

#include <atomic>
#include <cassert>
#include <cstdint>
#include <utility>

namespace sluice {

// A base class for objects whose lifetime is shared. Starts at one reference;
// the last DropRef() deletes the object through `SubClass`.
template <typename SubClass>
class ReferenceCounted {
 public:
  explicit ReferenceCounted(uint32_t initial_refs = 1)
      : ref_count_(initial_refs) {}
  ReferenceCounted(const ReferenceCounted&) = delete;
  ReferenceCounted& operator=(const ReferenceCounted&) = delete;

  void AddRef() { ref_count_.fetch_add(1, std::memory_order_relaxed); }

  void DropRef() {
    // A sole owner skips the atomic decrement: nobody else can add a
    // reference to an object only it can see.
    if (ref_count_.load(std::memory_order_acquire) == 1 ||
        ref_count_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      delete static_cast<SubClass*>(this);
    }
  }

  bool IsUnique() const {
    return ref_count_.load(std::memory_order_acquire) == 1;
  }
  uint32_t NumRef() const { return ref_count_.load(std::memory_order_acquire); }

 protected:
  ~ReferenceCounted() = default;

 private:
  std::atomic<uint32_t> ref_count_;
};

// An owning pointer to a reference-counted `T`. Moving transfers the
// reference; copying is explicit (CopyRef) so that hidden atomics do not creep
// into hot paths.
template <typename T>
class RCReference {
 public:
  RCReference() = default;
  RCReference(std::nullptr_t) {}  // NOLINT(runtime/explicit)
  RCReference(RCReference&& other) noexcept : pointer_(other.pointer_) {
    other.pointer_ = nullptr;
  }
  template <typename U>
  RCReference(RCReference<U>&& other) noexcept  // NOLINT(runtime/explicit)
      : pointer_(other.release()) {}
  RCReference(const RCReference&) = delete;

  RCReference& operator=(RCReference&& other) noexcept {
    reset(other.release());
    return *this;
  }
  RCReference& operator=(const RCReference&) = delete;
  ~RCReference() {
    if (pointer_ != nullptr) pointer_->DropRef();
  }

  // Drops the current reference and takes over `pointer` (already counted).
  void reset(T* pointer = nullptr) {
    T* old = pointer_;
    pointer_ = pointer;
    if (old != nullptr) old->DropRef();
  }

  // Gives up ownership without dropping the reference.
  [[nodiscard]] T* release() {
    T* p = pointer_;
    pointer_ = nullptr;
    return p;
  }

  RCReference CopyRef() const {
    if (pointer_ != nullptr) pointer_->AddRef();
    return RCReference(pointer_);
  }

  T* get() const { return pointer_; }
  T* operator->() const { return pointer_; }
  T& operator*() const { return *pointer_; }
  explicit operator bool() const { return pointer_ != nullptr; }

  bool operator==(const RCReference& other) const {
    return pointer_ == other.pointer_;
  }
  bool operator!=(const RCReference& other) const {
    return pointer_ != other.pointer_;
  }

 private:
  template <typename U>
  friend RCReference<U> TakeRef(U* pointer);

  explicit RCReference(T* pointer) : pointer_(pointer) {}

  T* pointer_ = nullptr;
};

// Wraps a pointer whose reference the caller already owns.
template <typename T>
RCReference<T> TakeRef(T* pointer) {
  return RCReference<T>(pointer);
}

// Adds a reference to `pointer` and returns it as an owning handle.
template <typename T>
RCReference<T> FormRef(T* pointer) {
  if (pointer != nullptr) pointer->AddRef();
  return TakeRef(pointer);
}

template <typename T, typename... Args>
RCReference<T> MakeRef(Args&&... args) {
  return TakeRef(new T(std::forward<Args>(args)...));
}

}  // namespace sluice

#endif  // SLUICE_SUPPORT_REF_COUNT_H_
