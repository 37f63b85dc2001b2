#include "lib/executor/region_inlining.h"

#include <algorithm>
#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "lib/executor/executable_function.h"

namespace sluice {
namespace executor_internal {
namespace {

// Regions lead to regions at most this deep before the planner stops
// looking (each level is a native stack frame here): a kernel further down
// keeps its regions in frames of their own.
constexpr int kMaxPlanDepth = 64;

class RegionPlanner {
 public:
  explicit RegionPlanner(absl::Span<ExecutableFunction* const> functions) {
    for (ExecutableFunction* function : functions) {
      states_[function] = {function, State::kUnplanned};
    }
  }

  // Plans `function` and the regions it runs, first.
  void Plan(ExecutableFunction& function, int depth) {
    // No entry is added after the constructor: references stay valid.
    State& state = states_.find(&function)->second.state;
    if (state != State::kUnplanned) return;
    state = State::kPlanning;
    uint32_t area_registers = 0;
    uint32_t area_counts = 0;
    uint32_t* const code = reinterpret_cast<uint32_t*>(function.code.data());
    for (uint32_t offset : function.record_offsets) {
      auto& kernel = *reinterpret_cast<KernelRecord*>(code + offset);
      if (static_cast<ControlKind>(kernel.control) != ControlKind::kIf) {
        continue;
      }
      const absl::Span<const Function* const> callees =
          function.extras[kernel.extras].functions;
      const ExecutableFunction* then_region = Inlinable(callees[0], depth);
      const ExecutableFunction* else_region = Inlinable(callees[1], depth);
      if (then_region == nullptr || else_region == nullptr) continue;
      kernel.control = static_cast<uint32_t>(ControlKind::kInlineIf);
      for (const ExecutableFunction* region : {then_region, else_region}) {
        area_registers = std::max(area_registers, region->frame_registers);
        area_counts = std::max(
            area_counts, region->frame_counts -
                             static_cast<uint32_t>(region->num_kernels()));
      }
    }
    function.frame_registers = function.num_registers + area_registers;
    function.frame_counts =
        static_cast<uint32_t>(function.initial_counts.size()) + area_counts;
    state = State::kPlanned;
  }

 private:
  enum class State { kUnplanned, kPlanning, kPlanned };
  struct Entry {
    ExecutableFunction* function;
    State state;
  };

  // `callee`, planned, if it may run inline.
  const ExecutableFunction* Inlinable(const Function* callee, int depth) {
    const auto it = states_.find(callee);
    if (it == states_.end() || depth >= kMaxPlanDepth) return nullptr;
    ExecutableFunction& region = *it->second.function;
    Plan(region, depth + 1);
    // Still being planned: the region leads back to a function that runs
    // it, and would hold its own area.
    if (it->second.state != State::kPlanned) return nullptr;
    if (region.num_kernels() > kMaxInlineRegionKernels ||
        region.frame_registers > kMaxInlineRegionRegisters ||
        region.split != nullptr) {
      return nullptr;
    }
    return &region;
  }

  absl::flat_hash_map<const Function*, Entry> states_;
};

}  // namespace

void PlanInlineRegions(absl::Span<ExecutableFunction* const> functions) {
  RegionPlanner planner(functions);
  for (ExecutableFunction* function : functions) planner.Plan(*function, 0);
}

}  // namespace executor_internal
}  // namespace sluice
