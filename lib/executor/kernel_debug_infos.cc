#include "lib/executor/kernel_debug_infos.h"

#include <cassert>

namespace sluice {
namespace executor_internal {

std::optional<KernelLocation> ToKernelLocation(
    const bef::SbfLocation& location) {
  if (location.file.empty()) return std::nullopt;
  return KernelLocation{location.file, static_cast<int>(location.line),
                        static_cast<int>(location.column)};
}

KernelDebugInfos::~KernelDebugInfos() {
  const size_t num_chunks = (kernels_.size() + kChunkSize - 1) / kChunkSize;
  for (size_t c = 0; c < num_chunks; ++c) {
    Chunk* chunk = chunks_[c].load(std::memory_order_acquire);
    if (chunk == nullptr) continue;
    for (auto& entry : chunk->entries) {
      delete entry.load(std::memory_order_relaxed);
    }
    delete chunk;
  }
}

void KernelDebugInfos::Reset(const bef::SbfProgram* program,
                             size_t num_kernels) {
  assert(chunks_ == nullptr && "debug infos are set up once");
  program_ = program;
  kernels_.resize(num_kernels);
  const size_t num_chunks = (num_kernels + kChunkSize - 1) / kChunkSize;
  chunks_.reset(new std::atomic<Chunk*>[num_chunks]);
  for (size_t c = 0; c < num_chunks; ++c) {
    chunks_[c].store(nullptr, std::memory_order_relaxed);
  }
}

const KernelDebugInfo& KernelDebugInfos::Get(uint32_t kernel) const {
  assert(kernel < kernels_.size() && "kernel index out of range");
  std::atomic<const KernelDebugInfo*>& slot =
      GetChunk(kernel >> kChunkBits).entries[kernel & (kChunkSize - 1)];
  const KernelDebugInfo* entry = slot.load(std::memory_order_acquire);
  if (entry != nullptr) return *entry;
  // Racing callers may each build one; the first to publish wins and the
  // others throw theirs away, so every caller sees the same entry.
  const KernelDebugInfo* built = Build(kernel);
  if (slot.compare_exchange_strong(entry, built, std::memory_order_acq_rel,
                                   std::memory_order_acquire)) {
    return *built;
  }
  delete built;
  return *entry;
}

KernelDebugInfos::Chunk& KernelDebugInfos::GetChunk(uint32_t chunk) const {
  std::atomic<Chunk*>& slot = chunks_[chunk];
  Chunk* existing = slot.load(std::memory_order_acquire);
  if (existing != nullptr) return *existing;
  auto* fresh = new Chunk;
  for (auto& entry : fresh->entries) {
    entry.store(nullptr, std::memory_order_relaxed);
  }
  if (slot.compare_exchange_strong(existing, fresh, std::memory_order_acq_rel,
                                   std::memory_order_acquire)) {
    return *fresh;
  }
  delete fresh;
  return *existing;
}

const KernelDebugInfo* KernelDebugInfos::Build(uint32_t kernel) const {
  const Indices indices = kernels_[kernel];
  const bef::SbfLocation location = program_->LocationAt(indices.location);
  auto* info = new KernelDebugInfo;
  info->name = program_->kernel_names[indices.name];
  info->location = ToKernelLocation(location);
  if (location.has_debug_name) info->debug_name = location.debug_name;
  info->location_record = location.record;
  return info;
}

}  // namespace executor_internal
}  // namespace sluice
