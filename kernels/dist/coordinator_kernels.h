// The coordinator ops of the `tfrt_dist` dialect (docs/tfrt_dist.md, "The
// coordinator from .mlir"), part of RegisterDistKernels: schedule,
// create_per_worker_resource, create_per_worker_dataset, worker_index and
// join, on the host's coordinator (DistributedContext::GetCoordinator).
#ifndef SLUICE_KERNELS_DIST_COORDINATOR_KERNELS_H_
#define SLUICE_KERNELS_DIST_COORDINATOR_KERNELS_H_

#include <cstddef>
#include <optional>

#include "absl/status/status.h"
#include "sluice/coordinator/coordinator.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {

// The payload of !tfrt_dist.per_worker: one result of a per-worker
// resource, or the index of the worker that runs the closure.
struct PerWorkerValue {
  // Unset for the worker index.
  std::optional<dist::PerWorkerResource> resource;
  size_t result = 0;

  dist::ClosureArgument ToClosureArgument() const {
    if (!resource) return dist::ClosureArgument::WorkerIndex();
    return dist::ClosureArgument(*resource, result);
  }
};

absl::Status RegisterCoordinatorKernels(KernelRegistry* registry);

}  // namespace sluice

#endif  // SLUICE_KERNELS_DIST_COORDINATOR_KERNELS_H_
