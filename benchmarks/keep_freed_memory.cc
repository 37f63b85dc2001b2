// Linked into a benchmark, keeps the memory it frees in the process. glibc
// otherwise serves a large allocation from a fresh mmap and returns freed
// memory to the kernel, so the next allocation page-faults its pages in
// again (about 10 µs a page on the dev box): a cost of the allocator, not
// of what the benchmark measures. benchmarks/README.md reports it with the
// figures.
#include <malloc.h>

namespace {

const bool kKeepFreedMemory = [] {
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  return true;
}();

}  // namespace
