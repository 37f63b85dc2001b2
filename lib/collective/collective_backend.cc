#include "sluice/collective/collective_backend.h"

#include <cstdlib>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "sluice/collective/nccl_group.h"
#include "sluice/gpu/gpu_device.h"

namespace sluice::ccl {

std::string_view CollectiveBackendName(CollectiveBackend backend) {
  return backend == CollectiveBackend::kNccl ? "nccl" : "gloo";
}

absl::StatusOr<CollectiveBackend> ChooseCollectiveBackend(
    std::string_view requested, bool has_cuda_device) {
  if (requested == "gloo") return CollectiveBackend::kGloo;
  if (requested == "nccl") {
    if (!has_cuda_device) {
      return absl::FailedPreconditionError(
          "SLUICE_COLLECTIVE_BACKEND=nccl but this process sees no CUDA "
          "device");
    }
    return CollectiveBackend::kNccl;
  }
  if (requested.empty() || requested == "auto") {
    return has_cuda_device ? CollectiveBackend::kNccl
                           : CollectiveBackend::kGloo;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("SLUICE_COLLECTIVE_BACKEND is '", std::string(requested),
                   "'; it takes nccl, gloo or auto"));
}

absl::StatusOr<CollectiveBackend> CollectiveBackendFromEnvironment() {
  const char* requested = std::getenv("SLUICE_COLLECTIVE_BACKEND");
  return ChooseCollectiveBackend(requested == nullptr ? "" : requested,
                                 HasCudaDevice());
}

int CudaDeviceForLocalRank() {
  int local_rank = 0;
  const char* value = std::getenv("SLUICE_LOCAL_RANK");
  if (value == nullptr || !absl::SimpleAtoi(value, &local_rank) ||
      local_rank < 0) {
    local_rank = 0;
  }
  absl::StatusOr<int> devices = gpu::CountDevices();
  return devices.ok() && *devices > 0 ? local_rank % *devices : 0;
}

}  // namespace sluice::ccl
