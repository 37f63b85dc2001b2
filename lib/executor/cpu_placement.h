// Where a thread runs: for a split call (see SplitPlan), whose two threads
// gain nothing while they share one CPU. Private to lib/executor.
#ifndef SLUICE_LIB_EXECUTOR_CPU_PLACEMENT_H_
#define SLUICE_LIB_EXECUTOR_CPU_PLACEMENT_H_

namespace sluice {
namespace executor_internal {

// The CPU the calling thread runs on; -1 where the system does not say.
int CurrentCpu();

// Moves the calling thread off `cpu` if it runs there and may run on
// another, then lets it run anywhere it could before: a thread stays where
// it was moved until the scheduler balances it back. The scheduler tends
// to wake a worker on the CPU of the thread that woke it (in a virtual
// machine, an idle virtual CPU looks no better than a busy one), where the
// two take turns while the other CPU idles.
void MoveOffCpu(int cpu);

}  // namespace executor_internal
}  // namespace sluice

#endif  // SLUICE_LIB_EXECUTOR_CPU_PLACEMENT_H_
