#include "sluice/host_context/host_context.h"

namespace sluice {

SharedContextRegistry::~SharedContextRegistry() { Clear(); }

void SharedContextRegistry::Clear() {
  while (true) {
    Entry newest;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (entries_.empty()) return;
      newest = entries_.back();
      entries_.pop_back();
    }
    // Unlocked: a destructor may still look up an older shared object.
    newest.destroy(newest.object);
  }
}

HostContext::HostContext(DiagnosticHandler diagnostic_handler,
                         std::unique_ptr<HostAllocator> allocator,
                         std::unique_ptr<ConcurrentWorkQueue> work_queue)
    : diagnostic_handler_(std::move(diagnostic_handler)),
      allocator_(std::move(allocator)),
      shared_contexts_(this),
      work_queue_(std::move(work_queue)) {}

HostContext::~HostContext() {
  work_queue_->Quiesce();
  // Shared objects go while the queue still runs: one that waits for
  // outside work (a client's RPCs in flight) may have it queue tasks as it
  // finishes. Those tasks run in the second Quiesce().
  shared_contexts_.Clear();
  work_queue_->Quiesce();
}

}  // namespace sluice
