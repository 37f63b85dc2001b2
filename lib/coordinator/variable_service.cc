#include "sluice/coordinator/variable_service.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "grpcpp/grpcpp.h"
#include "lib/coordinator/variable_service.grpc.pb.h"
#include "lib/coordinator/variable_store.h"
#include "lib/distributed/grpc_status.h"
#include "lib/host_context/blocking_pool.h"
#include "sluice/support/error_util.h"
#include "sluice/support/fault_point.h"

namespace sluice::dist {

// Idle request threads exit after this long.
constexpr std::chrono::milliseconds kIdleThreadTimeout(10000);

class VariableService::Impl final : public proto::Variables::CallbackService {
 public:
  Impl(std::string task_name, HostAllocator* allocator,
       const VariableServiceOptions& options)
      : task_name_(task_name),
        store_(std::move(task_name), allocator, options.max_variable_bytes),
        pool_(std::max(options.max_threads, 1), kIdleThreadTimeout,
              /*on_idle=*/nullptr) {
    constructed_.store(true, std::memory_order_release);
  }

  grpc::ServerUnaryReactor* CreateVariable(
      grpc::CallbackServerContext* context,
      const proto::CreateVariableRequest* request,
      proto::CreateVariableResponse* response) override {
    return Run(context, "ps.create.begin", "", [this, request, response] {
      return store_.Create(*request, response);
    });
  }

  grpc::ServerUnaryReactor* ReadVariable(
      grpc::CallbackServerContext* context,
      const proto::ReadVariableRequest* request,
      proto::ReadVariableResponse* response) override {
    return Run(context, "ps.read.begin", "", [this, request, response] {
      return store_.Read(*request, response);
    });
  }

  grpc::ServerUnaryReactor* UpdateVariable(
      grpc::CallbackServerContext* context,
      const proto::UpdateVariableRequest* request,
      proto::UpdateVariableResponse* /*response*/) override {
    return Run(context, "ps.apply.begin", "ps.apply.end",
               [this, request] { return store_.Update(*request); });
  }

  grpc::ServerUnaryReactor* ListVariables(
      grpc::CallbackServerContext* context,
      const proto::ListVariablesRequest* /*request*/,
      proto::ListVariablesResponse* response) override {
    return Run(context, "", "", [this, response] {
      store_.List(response);
      return absl::OkStatus();
    });
  }

 private:
  // Carries out `work` on the pool, between the fault points `begin` and
  // `end` (none when empty), and answers with its status, which names this
  // task as its origin.
  template <typename Work>
  grpc::ServerUnaryReactor* Run(grpc::CallbackServerContext* context,
                                std::string_view begin, std::string_view end,
                                Work work) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    constructed_.load(std::memory_order_acquire);
    pool_.Add([this, reactor, begin, end, work = std::move(work)]() mutable {
      absl::Status status =
          begin.empty() ? absl::OkStatus() : SLUICE_FAULT_POINT(begin);
      if (status.ok()) status = work();
      if (status.ok() && !end.empty()) status = SLUICE_FAULT_POINT(end);
      ErrorContext origin;
      origin.task = task_name_;
      reactor->Finish(ToGrpcStatus(AddErrorContext(std::move(status), origin)));
    });
    return reactor;
  }

  // gRPC hands the service to the threads that run its handlers through
  // code ThreadSanitizer does not see (Debian's gRPC is not instrumented);
  // every handler's acquire load of this flag, stored last by the
  // constructor, shows it that the service was made before it is used. On
  // x86 the load is a plain read.
  std::atomic<bool> constructed_{false};
  const std::string task_name_;
  VariableStore store_;
  // Last: its threads stop before the store goes.
  internal::BlockingPool pool_;
};

int64_t DefaultMaxVariableBytes() {
  constexpr int64_t kWithoutPhysicalMemory = int64_t{8} << 30;
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return kWithoutPhysicalMemory;
  return static_cast<int64_t>(pages) * page_size / 2;
}

VariableService::VariableService(std::string task_name,
                                 HostAllocator* allocator,
                                 const VariableServiceOptions& options)
    : impl_(std::make_unique<Impl>(std::move(task_name), allocator, options)) {}

VariableService::VariableService(std::string task_name,
                                 HostAllocator* allocator, int max_threads)
    : VariableService(std::move(task_name), allocator,
                      VariableServiceOptions{max_threads,
                                             /*max_variable_bytes=*/0}) {}

VariableService::~VariableService() = default;

grpc::Service* VariableService::service() { return impl_.get(); }

}  // namespace sluice::dist
