#include "sluice/host_context/host_context.h"

namespace sluice {

SharedContextRegistry::~SharedContextRegistry() {
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    it->destroy(it->object);
  }
}

HostContext::HostContext(DiagnosticHandler diagnostic_handler,
                         std::unique_ptr<HostAllocator> allocator,
                         std::unique_ptr<ConcurrentWorkQueue> work_queue)
    : diagnostic_handler_(std::move(diagnostic_handler)),
      allocator_(std::move(allocator)),
      shared_contexts_(this),
      work_queue_(std::move(work_queue)) {}

HostContext::~HostContext() { work_queue_->Quiesce(); }

}  // namespace sluice
