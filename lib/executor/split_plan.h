// SplitPlan: how one call of a wide function of direct kernels runs on two
// threads at once. Private to lib/executor.
#ifndef SLUICE_LIB_EXECUTOR_SPLIT_PLAN_H_
#define SLUICE_LIB_EXECUTOR_SPLIT_PLAN_H_

#include <cstdint>
#include <memory>
#include <vector>

namespace sluice {
namespace executor_internal {

class ExecutableFunction;

// A call that runs in order runs kernels of a few nanoseconds each: handing
// them one by one to another thread (the dataflow worklist's sharing)
// costs more than running them. A split hands out whole bands instead: the
// kernels cut by program order into kSplitBands ranges, each band's kernels
// in run order. A kernel reads only values made before it in program order,
// so a band waits only for bands before it, and only where it reads one of
// their values: a thread running a band waits, before such a kernel, until
// the band that makes the value has run far enough. Threads take bands in
// order, whichever comes next, so a helper that starts late takes fewer.
//
// Every kernel of the function must be direct: each completes as it runs,
// with no AsyncValue to hand over unless it fails.
struct SplitPlan {
  struct Wait {
    uint32_t position;  // in the band: the kernel that waits
    uint32_t band;      // until this band
    uint32_t count;     // has run at least this many kernels
  };
  struct Band {
    uint32_t first_record, end_record;  // in `records`
    uint32_t first_wait, end_wait;      // in `waits`, by position
  };
  // Offsets of the kernels' records in the function's code, band by band.
  std::vector<uint32_t> records;
  std::vector<Wait> waits;
  std::vector<Band> bands;
};

inline constexpr uint32_t kSplitBands = 8;
// Below this many kernels a call is over before a woken worker gets going.
inline constexpr uint32_t kMinSplitKernels = 16384;

// The plan for `function`, whose records and run order are complete; null
// when some kernel is not direct, the function is small, or its graph is
// too narrow for two threads to run it in at most 3/4 of one's time (a
// chain, say).
std::unique_ptr<const SplitPlan> PlanSplit(const ExecutableFunction& function);

}  // namespace executor_internal
}  // namespace sluice

#endif  // SLUICE_LIB_EXECUTOR_SPLIT_PLAN_H_
