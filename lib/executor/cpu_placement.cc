#include "lib/executor/cpu_placement.h"

#ifdef __linux__
#include <sched.h>
#endif

namespace sluice {
namespace executor_internal {

#ifdef __linux__

int CurrentCpu() { return sched_getcpu(); }

void MoveOffCpu(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getcpu() != cpu) return;
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return;
  cpu_set_t elsewhere = allowed;
  CPU_CLR(cpu, &elsewhere);
  if (CPU_COUNT(&elsewhere) == 0) return;
  // The first call migrates the thread at once; the second only widens
  // where it may run again.
  if (sched_setaffinity(0, sizeof(elsewhere), &elsewhere) != 0) return;
  (void)sched_setaffinity(0, sizeof(allowed), &allowed);
}

#else

int CurrentCpu() { return -1; }
void MoveOffCpu(int) {}

#endif

}  // namespace executor_internal
}  // namespace sluice
