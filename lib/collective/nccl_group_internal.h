// CreateNcclGroup with the NCCL API, the watchdog and the escalation hook
// chosen by the caller: tests pass the fake API and a hook that records.
#ifndef SLUICE_LIB_COLLECTIVE_NCCL_GROUP_INTERNAL_H_
#define SLUICE_LIB_COLLECTIVE_NCCL_GROUP_INTERNAL_H_

#include "absl/status/statusor.h"
#include "lib/collective/nccl_api.h"
#include "lib/collective/nccl_comm_watch.h"
#include "lib/collective/nccl_watchdog.h"
#include "sluice/collective/nccl_group.h"

namespace sluice::ccl {

struct NcclGroupEnvironment {
  NcclApi* api = nullptr;
  NcclWatchdog* watchdog = nullptr;
  EscalateFn escalate = EscalateByExit;
  // Whether device tensors are supported: they need the CUDA runtime's
  // device (sluice/gpu), which the fake API does not provide.
  bool device_tensors = true;
};

absl::StatusOr<RCReference<NcclGroup>> CreateNcclGroupIn(
    const NcclGroupOptions& options, const NcclGroupEnvironment& environment);

}  // namespace sluice::ccl

#endif  // SLUICE_LIB_COLLECTIVE_NCCL_GROUP_INTERNAL_H_
