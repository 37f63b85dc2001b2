// Which backend builds a process's collective groups: NCCL when the process
// sees a CUDA device, Gloo otherwise, unless SLUICE_COLLECTIVE_BACKEND
// names one ("nccl", "gloo"; "auto" or unset: by the device).
#ifndef SLUICE_COLLECTIVE_COLLECTIVE_BACKEND_H_
#define SLUICE_COLLECTIVE_COLLECTIVE_BACKEND_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace sluice::ccl {

enum class CollectiveBackend { kGloo, kNccl };

// "gloo", "nccl".
std::string_view CollectiveBackendName(CollectiveBackend backend);

// The backend for `requested` ("nccl", "gloo", "auto" or empty) on a
// process that has (or not) a CUDA device. INVALID_ARGUMENT for another
// name, and for "nccl" without a device (FAILED_PRECONDITION: forcing NCCL
// where it cannot work is a configuration error worth stopping on).
absl::StatusOr<CollectiveBackend> ChooseCollectiveBackend(
    std::string_view requested, bool has_cuda_device);

// ChooseCollectiveBackend for SLUICE_COLLECTIVE_BACKEND and this process's
// devices.
absl::StatusOr<CollectiveBackend> CollectiveBackendFromEnvironment();

// The NCCL_HOSTID that local rank `local_rank` of a node whose processes
// see `devices` CUDA devices needs, or nullopt when it keeps NCCL's own
// host identity. NCCL refuses two ranks of one communicator on one GPU of
// one host ("Duplicate GPU"), so each local rank that shares its GPU with a
// lower one (local_rank >= devices) claims a host of its own,
// "<hostname>/sluice-local-rank-<local_rank>", and NCCL reaches it through
// its network transport. nullopt when `existing` (the NCCL_HOSTID already
// in the environment, or null) is set: the user's choice wins.
std::optional<std::string> NcclHostIdForLocalRank(int local_rank, int devices,
                                                  const char* existing,
                                                  std::string_view hostname);

// The CUDA device of this process's rank: SLUICE_LOCAL_RANK (0 when unset)
// modulo the devices it sees, so that the ranks of a node share its GPUs.
// Sets NCCL_HOSTID as NcclHostIdForLocalRank says (and logs it once), so it
// must be called before the process's first NCCL communicator or
// ncclGetUniqueId (NCCL reads NCCL_HOSTID once per process), and before
// threads that read the environment start (setenv is not thread-safe).
int CudaDeviceForLocalRank();

}  // namespace sluice::ccl

#endif  // SLUICE_COLLECTIVE_COLLECTIVE_BACKEND_H_
