// The lighthouse's status as plain C++ (sluice/lighthouse/lighthouse.h, what
// Lighthouse::Status answers) and as its wire message (GetStatus, the status
// page's /status.json), field for field, so that either converts to the
// other without loss.
#ifndef SLUICE_LIB_LIGHTHOUSE_LIGHTHOUSE_STATUS_H_
#define SLUICE_LIB_LIGHTHOUSE_LIGHTHOUSE_STATUS_H_

#include "lib/lighthouse/lighthouse_service.pb.h"
#include "sluice/lighthouse/lighthouse.h"

namespace sluice::lighthouse {

LighthouseStatus StatusFromProto(const proto::LighthouseStatus& status);
proto::LighthouseStatus StatusToProto(const LighthouseStatus& status);

}  // namespace sluice::lighthouse

#endif  // SLUICE_LIB_LIGHTHOUSE_LIGHTHOUSE_STATUS_H_
