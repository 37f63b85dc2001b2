// The statuses of NCCL and CUDA results.
#include "absl/strings/str_cat.h"
#include "lib/collective/nccl_api.h"

namespace sluice::ccl {

absl::Status NcclStatus(NcclApi& api, ncclResult_t result,
                        const std::string& what, ncclComm_t comm) {
  if (result == ncclSuccess || result == ncclInProgress) {
    return absl::OkStatus();
  }
  std::string message =
      absl::StrCat(what, " failed: ", api.GetErrorString(result));
  if (std::string last = api.GetLastError(comm); !last.empty()) {
    absl::StrAppend(&message, ": ", last);
  }
  if (result == ncclInvalidArgument || result == ncclInvalidUsage) {
    return absl::InvalidArgumentError(message);
  }
  return absl::UnavailableError(message);
}

absl::Status CudaStatus(NcclApi& api, cudaError_t error,
                        const std::string& what) {
  if (error == cudaSuccess) return absl::OkStatus();
  return absl::UnavailableError(
      absl::StrCat(what, " failed: ", api.CudaErrorString(error)));
}

}  // namespace sluice::ccl
