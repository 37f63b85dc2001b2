#include "sluice/collective/collective_backend.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "absl/base/const_init.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "sluice/collective/nccl_group.h"
#include "sluice/gpu/gpu_device.h"
#include "sluice/support/logging.h"

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

std::optional<std::string> NcclHostIdForLocalRank(int local_rank, int devices,
                                                  const char* existing,
                                                  std::string_view hostname) {
  if (existing != nullptr || devices <= 0 || local_rank < devices) {
    return std::nullopt;
  }
  return absl::StrCat(std::string(hostname), "/sluice-local-rank-", local_rank);
}

int CudaDeviceForLocalRank() {
  int local_rank = 0;
  const char* value = std::getenv("SLUICE_LOCAL_RANK");
  if (value == nullptr || !absl::SimpleAtoi(value, &local_rank) ||
      local_rank < 0) {
    local_rank = 0;
  }
  absl::StatusOr<int> devices = gpu::CountDevices();
  if (!devices.ok() || *devices <= 0) return 0;
  // Callers on two threads would otherwise both set it, and log twice.
  static absl::Mutex mu(absl::kConstInit);
  absl::MutexLock lock(&mu);
  char hostname[256] = {};
  if (gethostname(hostname, sizeof(hostname) - 1) != 0) {
    std::strcpy(hostname, "unknown-host");
  }
  std::optional<std::string> host_id = NcclHostIdForLocalRank(
      local_rank, *devices, std::getenv("NCCL_HOSTID"), hostname);
  if (host_id.has_value()) {
    setenv("NCCL_HOSTID", host_id->c_str(), /*overwrite=*/0);
    SLUICE_LOG(INFO) << "local rank " << local_rank << " shares CUDA device "
                     << local_rank % *devices << " (of " << *devices
                     << ") with a lower local rank: NCCL_HOSTID=" << *host_id
                     << ", so that NCCL takes it for a host of its own";
  }
  return local_rank % *devices;
}

}  // namespace sluice::ccl
