// The kernels of the `tfrt_dist` dialect (docs/tfrt_dist.md): finding a task
// of the cluster, registering a function of the running program on it, and
// calling that function remotely.
#ifndef SLUICE_KERNELS_DIST_KERNELS_H_
#define SLUICE_KERNELS_DIST_KERNELS_H_

#include "sluice/distributed/remote_client.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {
namespace dist {

// The payload of !tfrt_dist.task_handle: a task that answered the status RPC
// as serving. The client belongs to the host's DistributedContext
// (kernels/dist/distributed_context.h), which lives as long as the host.
// In namespace dist with the other payloads of the dialect: that of
// !tfrt_dist.remote_function is dist::RemoteFunction, that of
// !tfrt_dist.variable dist::VariableHandle.
struct TaskHandle {
  TaskClient* client = nullptr;
};

}  // namespace dist

// Registers every tfrt_dist kernel: tfrt_dist.get_task_handle,
// tfrt_dist.register_function and tfrt_dist.call, and the variable ops
// (create_variable, read_variable, assign_variable, assign_add_variable,
// apply_sgd, apply_adam) and the coordinator ops (coordinator_kernels.h).
// They find their cluster through the host's DistributedContext.
absl::Status RegisterDistKernels(KernelRegistry* registry);

}  // namespace sluice

#endif  // SLUICE_KERNELS_DIST_KERNELS_H_
