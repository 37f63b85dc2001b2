#include "sluice/host_context/async_value.h"

#include <vector>

namespace sluice {
namespace {

// Waiters that became runnable on this thread while it was already running
// waiters. The outermost RunWaiters() call runs them after its own, instead
// of recursing, so the stack stays flat however long a chain of
// continuations is. Each batch holds a reference to its value: a deferred
// waiter may run after everyone else let go of the value.
struct WaiterBatch {
  AsyncValue* value;
  internal::WaiterNode* head;
};

thread_local bool running_waiters = false;
thread_local std::vector<WaiterBatch> deferred_batches;

void RunList(internal::WaiterNode* head) {
  while (head != nullptr) {
    internal::WaiterNode* next = head->next;
    head->invoke(head, /*run=*/true);
    head = next;
  }
}

// Reverses the LIFO list that AddWaiter() builds, so waiters run in the order
// they were added.
internal::WaiterNode* Reverse(internal::WaiterNode* head) {
  internal::WaiterNode* reversed = nullptr;
  while (head != nullptr) {
    internal::WaiterNode* next = head->next;
    head->next = reversed;
    reversed = head;
    head = next;
  }
  return reversed;
}

}  // namespace

void AsyncValue::AddWaiter(internal::WaiterNode* node) {
  uintptr_t old = waiters_and_state_.load(std::memory_order_acquire);
  while ((old & kStateMask) < static_cast<uintptr_t>(State::kConcrete)) {
    node->next = reinterpret_cast<internal::WaiterNode*>(old & ~kStateMask);
    const uintptr_t desired =
        reinterpret_cast<uintptr_t>(node) | (old & kStateMask);
    if (waiters_and_state_.compare_exchange_weak(old, desired,
                                                 std::memory_order_acq_rel,
                                                 std::memory_order_acquire)) {
      return;
    }
  }
  // The value became available while we tried to enqueue: run now.
  node->next = nullptr;
  RunWaiters(node);
}

void AsyncValue::RunWaiters(internal::WaiterNode* lifo_list) {
  internal::WaiterNode* head = Reverse(lifo_list);
  if (running_waiters) {
    AddRef();
    deferred_batches.push_back(WaiterBatch{this, head});
    return;
  }
  running_waiters = true;
  RunList(head);
  // Running a batch may defer more: index, don't iterate, the vector.
  for (size_t i = 0; i < deferred_batches.size(); ++i) {
    WaiterBatch batch = deferred_batches[i];
    RunList(batch.head);
    batch.value->DropRef();
  }
  deferred_batches.clear();
  running_waiters = false;
}

void AsyncValue::DestroyWaiters(internal::WaiterNode* list) {
  while (list != nullptr) {
    internal::WaiterNode* next = list->next;
    list->invoke(list, /*run=*/false);
    list = next;
  }
}

void AsyncValue::DestroyInGeneral() {
  const uintptr_t word = waiters_and_state_.load(std::memory_order_relaxed);
  if (word & ~kStateMask) {
    DestroyWaiters(reinterpret_cast<internal::WaiterNode*>(word & ~kStateMask));
  }
  if (kind_ == Kind::kConcrete) {
    type_info_->destroy(this);
  } else if (kind_ == Kind::kError) {
    delete static_cast<ErrorAsyncValue*>(this);
  } else {
    delete static_cast<IndirectAsyncValue*>(this);
  }
}

const AsyncValue* AsyncValue::ForwardedValue() const {
  const AsyncValue* value = this;
  while (value != nullptr && value->kind_ == Kind::kIndirect) {
    value = static_cast<const IndirectAsyncValue*>(value)->target_;
  }
  return value;
}

bool AsyncValue::IsUnique() const {
  if (NumRef() != 1) return false;
  if (kind_ != Kind::kIndirect) return true;
  const AsyncValue* target =
      static_cast<const IndirectAsyncValue*>(this)->target();
  return target == nullptr || target->IsUnique();
}

const absl::Status& AsyncValue::GetError() const {
  assert(IsError() && "GetError() on a value that is not an error");
  switch (kind_) {
    case Kind::kConcrete:
      return type_info_->get_error(this);
    case Kind::kError:
      return static_cast<const ErrorAsyncValue*>(this)->error_;
    case Kind::kIndirect:
      return static_cast<const IndirectAsyncValue*>(this)->target_->GetError();
  }
  __builtin_unreachable();
}

void AsyncValue::SetError(absl::Status status) {
  assert(!status.ok() && "SetError() needs a non-OK status");
  switch (kind_) {
    case Kind::kConcrete:
      type_info_->construct_error(this, std::move(status));
      break;
    case Kind::kError:
      static_cast<ErrorAsyncValue*>(this)->error_ = std::move(status);
      break;
    case Kind::kIndirect:
      static_cast<IndirectAsyncValue*>(this)->ForwardTo(
          TakeRef<AsyncValue>(new ErrorAsyncValue(std::move(status))));
      return;
  }
  NotifyAvailable(State::kError);
}

const char* AsyncValue::TypeName() const {
  switch (kind_) {
    case Kind::kConcrete:
      return type_info_->name;
    case Kind::kError:
      return "error";
    case Kind::kIndirect:
      return "indirect";
  }
  return "";
}

void IndirectAsyncValue::ForwardTo(RCReference<AsyncValue> target) {
  assert(target_ == nullptr && "ForwardTo() called twice");
  // Forwarding to an available indirect value forwards to what that one
  // forwards to, so reads follow one hop.
  if (target->IsIndirect() && target->IsAvailable()) {
    target = FormRef(static_cast<IndirectAsyncValue*>(target.get())->target_);
  }
  target_ = target.release();
  if (target_->IsAvailable()) {
    NotifyAvailable(target_->state());
    return;
  }
  target_->AndThen([self = FormRef(this)] {
    self->NotifyAvailable(self->target_->state());
  });
}

}  // namespace sluice
