#include "sluice/coordinator/variable_service.h"

#include <chrono>
#include <utility>

#include "grpcpp/grpcpp.h"
#include "lib/coordinator/variable_service.grpc.pb.h"
#include "lib/coordinator/variable_store.h"
#include "lib/distributed/grpc_status.h"
#include "lib/host_context/blocking_pool.h"

namespace sluice::dist {

// Idle request threads exit after this long.
constexpr std::chrono::milliseconds kIdleThreadTimeout(10000);

class VariableService::Impl final : public proto::Variables::CallbackService {
 public:
  Impl(std::string task_name, HostAllocator* allocator, int max_threads)
      : store_(std::move(task_name), allocator),
        pool_(std::max(max_threads, 1), kIdleThreadTimeout,
              /*on_idle=*/nullptr) {}

  grpc::ServerUnaryReactor* CreateVariable(
      grpc::CallbackServerContext* context,
      const proto::CreateVariableRequest* request,
      proto::CreateVariableResponse* response) override {
    return Run(context, [this, request, response] {
      return store_.Create(*request, response);
    });
  }

  grpc::ServerUnaryReactor* ReadVariable(
      grpc::CallbackServerContext* context,
      const proto::ReadVariableRequest* request,
      proto::ReadVariableResponse* response) override {
    return Run(context, [this, request, response] {
      return store_.Read(*request, response);
    });
  }

  grpc::ServerUnaryReactor* UpdateVariable(
      grpc::CallbackServerContext* context,
      const proto::UpdateVariableRequest* request,
      proto::UpdateVariableResponse* /*response*/) override {
    return Run(context, [this, request] { return store_.Update(*request); });
  }

  grpc::ServerUnaryReactor* ListVariables(
      grpc::CallbackServerContext* context,
      const proto::ListVariablesRequest* /*request*/,
      proto::ListVariablesResponse* response) override {
    return Run(context, [this, response] {
      store_.List(response);
      return absl::OkStatus();
    });
  }

 private:
  // Carries out `work` on the pool and answers with its status.
  template <typename Work>
  grpc::ServerUnaryReactor* Run(grpc::CallbackServerContext* context,
                                Work work) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    pool_.Add([reactor, work = std::move(work)]() mutable {
      reactor->Finish(ToGrpcStatus(work()));
    });
    return reactor;
  }

  VariableStore store_;
  // Last: its threads stop before the store goes.
  internal::BlockingPool pool_;
};

VariableService::VariableService(std::string task_name,
                                 HostAllocator* allocator, int max_threads)
    : impl_(std::make_unique<Impl>(std::move(task_name), allocator,
                                   max_threads)) {}

VariableService::~VariableService() = default;

grpc::Service* VariableService::service() { return impl_.get(); }

}  // namespace sluice::dist
