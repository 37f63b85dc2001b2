// KernelDebugInfos: a function's kernels' debug info, built on first use
// from the loaded program's kernel names and Locations section. Private to
// lib/executor.
#ifndef SLUICE_LIB_EXECUTOR_KERNEL_DEBUG_INFOS_H_
#define SLUICE_LIB_EXECUTOR_KERNEL_DEBUG_INFOS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sluice/bef/sbf_reader.h"
#include "sluice/kernel/kernel_frame.h"

namespace sluice {
namespace executor_internal {

// How `location` reads in a kernel's debug info; its file name views the
// program's bytes.
std::optional<KernelLocation> ToKernelLocation(
    const bef::SbfLocation& location);

// Loading keeps 8 bytes per kernel here instead of a built entry (80 bytes):
// an entry is needed only when its kernel reports an error, or while a call
// is traced or watched for hangs. Get() is safe from any thread; the first
// caller for a kernel builds its entry and every caller gets that one, at an
// address that stays put until this is destroyed.
class KernelDebugInfos final : public KernelDebugInfoSource {
 public:
  KernelDebugInfos() = default;
  KernelDebugInfos(const KernelDebugInfos&) = delete;
  KernelDebugInfos& operator=(const KernelDebugInfos&) = delete;
  ~KernelDebugInfos();

  // Makes room for `num_kernels` kernels of `program`, whose names and file
  // bytes must outlive this.
  void Reset(const bef::SbfProgram* program, size_t num_kernels);
  // Kernel `kernel`'s indices into the program's KernelNames and Locations.
  void Set(uint32_t kernel, uint32_t name_index, uint32_t location_index) {
    kernels_[kernel] = {name_index, location_index};
  }

  size_t size() const { return kernels_.size(); }
  const KernelDebugInfo& Get(uint32_t kernel) const override;

 private:
  struct Indices {
    uint32_t name;
    uint32_t location;
  };
  // Entries are built in chunks of this many slots, each chunk allocated on
  // first use, so one failing kernel in a large program costs one chunk.
  static constexpr uint32_t kChunkBits = 10;
  static constexpr uint32_t kChunkSize = uint32_t{1} << kChunkBits;
  struct Chunk {
    std::atomic<const KernelDebugInfo*> entries[kChunkSize];
  };

  Chunk& GetChunk(uint32_t chunk) const;
  const KernelDebugInfo* Build(uint32_t kernel) const;

  const bef::SbfProgram* program_ = nullptr;
  std::vector<Indices> kernels_;
  // One slot per chunk, null until that chunk is first used.
  std::unique_ptr<std::atomic<Chunk*>[]> chunks_;
};

}  // namespace executor_internal
}  // namespace sluice

#endif  // SLUICE_LIB_EXECUTOR_KERNEL_DEBUG_INFOS_H_
