// How a tfrt_dist kernel hands on values that another process computes (a
// remote call's results, a closure's results): shared by tfrt_dist.call
// and tfrt_dist.schedule.
#ifndef SLUICE_KERNELS_DIST_REMOTE_RESULTS_H_
#define SLUICE_KERNELS_DIST_REMOTE_RESULTS_H_

#include <vector>

#include "sluice/host_context/async_value.h"
#include "sluice/kernel/async_kernel_frame.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/support/ref_count.h"

namespace sluice {

// Sets `frame`'s results to `results` (one per result slot) once every one
// of them is available. An error made on this side of the wire (a task
// down, a deadline passed, a closure cancelled: no kernel recorded on it)
// is reported at the kernel, so it names the op and its location; errors a
// task's kernels made already say where they come from and pass on as they
// are. The host's DistributedContext tracks the wait, so that a runner's
// AwaitIdle waits for it. The results of one call resolve together, from
// one answer, so waiting for all of them delays none.
void SetResultsWhenAnswered(KernelFrame* frame,
                            std::vector<RCReference<AsyncValue>> results);

// The step SetResultsWhenAnswered ends with, for a caller that waited
// itself: sets `frame`'s results to `results`, every one available,
// reporting an error made on this side of the wire at the kernel.
void SetAnsweredResults(AsyncKernelFrame& frame,
                        std::vector<RCReference<AsyncValue>> results);

}  // namespace sluice

#endif  // SLUICE_KERNELS_DIST_REMOTE_RESULTS_H_
