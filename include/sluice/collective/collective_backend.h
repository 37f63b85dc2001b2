// Which backend builds a process's collective groups: NCCL when the process
// sees a CUDA device, Gloo otherwise, unless SLUICE_COLLECTIVE_BACKEND
// names one ("nccl", "gloo"; "auto" or unset: by the device).
#ifndef SLUICE_COLLECTIVE_COLLECTIVE_BACKEND_H_
#define SLUICE_COLLECTIVE_COLLECTIVE_BACKEND_H_

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

// The CUDA device of this process's rank: SLUICE_LOCAL_RANK (0 when unset)
// modulo the devices it sees, so that the ranks of a node share its GPUs.
int CudaDeviceForLocalRank();

}  // namespace sluice::ccl

#endif  // SLUICE_COLLECTIVE_COLLECTIVE_BACKEND_H_
