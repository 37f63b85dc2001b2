// Waiting by spinning, for waits expected to end sooner than a thread
// switch would.
#ifndef SLUICE_LIB_SUPPORT_SPIN_WAIT_H_
#define SLUICE_LIB_SUPPORT_SPIN_WAIT_H_

#include <thread>

namespace sluice {
namespace internal {

// Tells the core that the caller is in a spin-wait loop, so a sibling
// hyperthread gets the pipeline and the loop exit does not pay for a memory
// order mis-speculation.
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// Returns once `done()` is true. Pauses the core between the first 64 looks
// and yields between later ones: the thread that makes `done()` true may
// have been preempted (two cores, more threads than cores under
// sanitizers), and yielding lets it finish instead of burning this
// thread's whole time slice.
template <typename Done>
void SpinUntil(Done done) {
  for (int looks = 1; !done(); ++looks) {
    if (looks < 64) {
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }
}

}  // namespace internal
}  // namespace sluice

#endif  // SLUICE_LIB_SUPPORT_SPIN_WAIT_H_
