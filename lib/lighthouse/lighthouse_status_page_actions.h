// The status page's drain and kill routes (lighthouse_status_page.h says
// what they answer).
#ifndef SLUICE_LIB_LIGHTHOUSE_LIGHTHOUSE_STATUS_PAGE_ACTIONS_H_
#define SLUICE_LIB_LIGHTHOUSE_LIGHTHOUSE_STATUS_PAGE_ACTIONS_H_

#include "lib/lighthouse/bounded_http_server.h"
#include "lib/lighthouse/lighthouse_status_page.h"

namespace sluice::lighthouse {

// Adds POST /replicas/<id>/drain and /kill to `routes`. Null `act`: every
// POST is refused, the lighthouse having no TLS.
void AddActionRoutes(HttpRoutes& routes, ReplicaActionFunction act);

}  // namespace sluice::lighthouse

#endif  // SLUICE_LIB_LIGHTHOUSE_LIGHTHOUSE_STATUS_PAGE_ACTIONS_H_
