// ExecutionContext: what a running kernel knows about the call it is part
// of: the host and the request.
#ifndef SLUICE_HOST_CONTEXT_EXECUTION_CONTEXT_H_
#define SLUICE_HOST_CONTEXT_EXECUTION_CONTEXT_H_

#include <utility>

#include "sluice/host_context/request_context.h"
#include "sluice/support/ref_count.h"

namespace sluice {

class ExecutionContext {
 public:
  explicit ExecutionContext(RCReference<RequestContext> request)
      : request_(std::move(request)) {}
  ExecutionContext(const ExecutionContext& other)
      : request_(other.request_.CopyRef()) {}
  ExecutionContext& operator=(const ExecutionContext& other) {
    request_ = other.request_.CopyRef();
    return *this;
  }
  ExecutionContext(ExecutionContext&&) = default;
  ExecutionContext& operator=(ExecutionContext&&) = default;

  HostContext* host() const { return request_->host(); }
  RequestContext* request_context() const { return request_.get(); }

  // Long-running kernels check this at safe points (once per loop
  // iteration) and stop early.
  bool IsCancelled() const { return request_->IsCancelled(); }

 private:
  RCReference<RequestContext> request_;
};

}  // namespace sluice

#endif  // SLUICE_HOST_CONTEXT_EXECUTION_CONTEXT_H_
