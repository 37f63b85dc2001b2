// A reference to a value kept on a worker task (a "resource"): a result of
// an earlier call made with CallOptions::keep_results_as, such as a dataset
// iterator, which cannot travel. An argument whose payload is a ResourceRef
// is sent as the reference, and the worker passes the value it keeps under
// that id; see docs/distributed.md ("Values kept on a worker").
#ifndef SLUICE_DISTRIBUTED_RESOURCE_REF_H_
#define SLUICE_DISTRIBUTED_RESOURCE_REF_H_

#include <cstdint>

namespace sluice::dist {

struct ResourceRef {
  uint64_t id = 0;
};

}  // namespace sluice::dist

#endif  // SLUICE_DISTRIBUTED_RESOURCE_REF_H_
