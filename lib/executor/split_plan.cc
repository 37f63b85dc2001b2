#include "lib/executor/split_plan.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "lib/executor/executable_function.h"

namespace sluice {
namespace executor_internal {
namespace {

constexpr uint32_t kNoBand = ~0u;

// Where a register's value is made: which band, and how many kernels that
// band has run once it is.
struct Producer {
  uint32_t band = kNoBand;  // kNoBand for arguments
  uint32_t count = 0;
};

// How long two threads taking bands in turn would take, in kernels run one
// after another, if every kernel took the same time: a band's kernel starts
// once its thread is free and what it reads is made.
uint64_t TwoThreadSpan(const ExecutableFunction& function,
                       const SplitPlan& plan) {
  std::vector<uint64_t> made_at(function.num_registers, 0);
  std::array<uint64_t, 2> free_at{0, 0};
  for (const SplitPlan::Band& band : plan.bands) {
    uint64_t& clock = free_at[0] <= free_at[1] ? free_at[0] : free_at[1];
    for (uint32_t i = band.first_record; i < band.end_record; ++i) {
      const KernelRecord& kernel = function.record_at(plan.records[i]);
      for (uint32_t o = 0; o < kernel.num_operands; ++o) {
        clock = std::max(clock, made_at[kernel.operands()[o]]);
      }
      ++clock;
      for (uint32_t r = 0; r < kernel.num_results; ++r) {
        made_at[kernel.result_register(r)] = clock;
      }
    }
  }
  return std::max(free_at[0], free_at[1]);
}

}  // namespace

std::unique_ptr<const SplitPlan> PlanSplit(const ExecutableFunction& function) {
  const uint32_t num_kernels = static_cast<uint32_t>(function.num_kernels());
  if (num_kernels < kMinSplitKernels) return nullptr;
  for (uint32_t offset : function.run_order) {
    if (function.record_at(offset).direct == nullptr) return nullptr;
  }

  auto plan = std::make_unique<SplitPlan>();
  plan->records.reserve(num_kernels);
  const auto band_of = [&](const KernelRecord& kernel) {
    return static_cast<uint32_t>(uint64_t{kernel.kernel} * kSplitBands /
                                 num_kernels);
  };
  std::vector<Producer> producers(function.num_registers);
  for (uint32_t b = 0; b < kSplitBands; ++b) {
    SplitPlan::Band band{};
    band.first_record = static_cast<uint32_t>(plan->records.size());
    band.first_wait = static_cast<uint32_t>(plan->waits.size());
    // Only the furthest wait for each earlier band so far counts: the
    // band's kernels run in order.
    std::array<uint32_t, kSplitBands> waited{};
    for (uint32_t offset : function.run_order) {
      const KernelRecord& kernel = function.record_at(offset);
      if (band_of(kernel) != b) continue;
      const uint32_t position =
          static_cast<uint32_t>(plan->records.size()) - band.first_record;
      for (uint32_t o = 0; o < kernel.num_operands; ++o) {
        const Producer& made = producers[kernel.operands()[o]];
        if (made.band == kNoBand || made.band == b ||
            waited[made.band] >= made.count) {
          continue;
        }
        waited[made.band] = made.count;
        plan->waits.push_back({position, made.band, made.count});
      }
      plan->records.push_back(offset);
      for (uint32_t r = 0; r < kernel.num_results; ++r) {
        producers[kernel.result_register(r)] = {b, position + 1};
      }
    }
    band.end_record = static_cast<uint32_t>(plan->records.size());
    band.end_wait = static_cast<uint32_t>(plan->waits.size());
    plan->bands.push_back(band);
  }
  if (4 * TwoThreadSpan(function, *plan) > 3 * uint64_t{num_kernels}) {
    return nullptr;
  }
  return plan;
}

}  // namespace executor_internal
}  // namespace sluice
