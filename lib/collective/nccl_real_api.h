// NcclApi over libnccl and libcudart, for the binaries that link them.
#ifndef SLUICE_LIB_COLLECTIVE_NCCL_REAL_API_H_
#define SLUICE_LIB_COLLECTIVE_NCCL_REAL_API_H_

#include "lib/collective/nccl_api.h"

namespace sluice::ccl {

// The process's real API (never destroyed).
NcclApi* RealNcclApi();

}  // namespace sluice::ccl

#endif  // SLUICE_LIB_COLLECTIVE_NCCL_REAL_API_H_
