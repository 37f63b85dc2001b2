// The lighthouse's status as plain C++ (sluice/ft/lighthouse.h, what
// Lighthouse::Status answers) and as its wire message (GetStatus, the status
// page's /status.json), field for field, so that either converts to the
// other without loss.
#ifndef SLUICE_LIB_FT_LIGHTHOUSE_STATUS_H_
#define SLUICE_LIB_FT_LIGHTHOUSE_STATUS_H_

#include "lib/ft/lighthouse_service.pb.h"
#include "sluice/ft/lighthouse.h"

namespace sluice::ft {

LighthouseStatus StatusFromProto(const proto::LighthouseStatus& status);
proto::LighthouseStatus StatusToProto(const LighthouseStatus& status);

}  // namespace sluice::ft

#endif  // SLUICE_LIB_FT_LIGHTHOUSE_STATUS_H_
