// tfrt_dht ops on host buffers (as TFRT defines them): allocate, slice, the
// buffer under a tensor, print. A buffer value holds a reference: slices,
// tensors made over a buffer and the buffer itself share one allocation,
// which lives until the last of them goes.
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/tensor/tensor_kernels_internal.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/support/print.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/host_buffer.h"

namespace sluice {
namespace tensor_kernels {
namespace {

constexpr std::string_view kAllocateBuffer = "tfrt_dht.allocate_buffer";
constexpr std::string_view kGetBufferSlice = "tfrt_dht.get_buffer_slice";
constexpr std::string_view kGetBuffer = "tfrt_dht.get_buffer";

using BufferRef = RCReference<HostBuffer>;

// The bytes are zeroed for the reason create_uninitialized_tensor zeroes
// its elements: no program reads bytes another one freed.
absl::Status AllocateBuffer(int64_t size, int64_t alignment,
                            Result<BufferRef> buffer, HostContext* host) {
  if (size < 0) return OpError(kAllocateBuffer, "size ", size, " is negative");
  if (alignment <= 0 || (alignment & (alignment - 1)) != 0) {
    return OpError(kAllocateBuffer, "alignment ", alignment,
                   " is not a power of two");
  }
  BufferRef allocated =
      HostBuffer::Allocate(static_cast<size_t>(size), host->allocator(),
                           static_cast<size_t>(alignment));
  if (!allocated) {
    return absl::ResourceExhaustedError(absl::StrCat(
        std::string(kAllocateBuffer), ": the host allocator refused ", size,
        " bytes aligned on ", alignment));
  }
  if (size != 0) std::memset(allocated->data(), 0, static_cast<size_t>(size));
  buffer.Emplace(std::move(allocated));
  return absl::OkStatus();
}

absl::Status GetBufferSlice(const BufferRef& buffer, int64_t offset,
                            int64_t size, Result<BufferRef> slice) {
  if (offset < 0 || size < 0) {
    return OpError(kGetBufferSlice, "offset ", offset, " and size ", size,
                   " must not be negative");
  }
  BufferRef bytes = HostBuffer::Slice(buffer, static_cast<size_t>(offset),
                                      static_cast<size_t>(size));
  if (!bytes) {
    return OpError(kGetBufferSlice, size, " bytes at offset ", offset,
                   " do not lie inside a buffer of ", buffer->size(), " bytes");
  }
  slice.Emplace(std::move(bytes));
  return absl::OkStatus();
}

absl::StatusOr<Chain> GetBuffer(const DenseHostTensor& tensor, const Chain&,
                                Result<BufferRef> buffer) {
  // Only a default-constructed tensor has no buffer; no op makes one, but a
  // kernel of another library might.
  if (!tensor.buffer()) {
    return OpError(kGetBuffer, "the tensor of shape ",
                   tensor.shape().ToString(), " has no buffer");
  }
  buffer.Emplace(tensor.buffer().CopyRef());
  return Chain();
}

Chain PrintBuffer(const BufferRef& buffer, const Chain&) {
  PrintLine(buffer->ToString());
  return Chain();
}

}  // namespace

absl::Status RegisterBufferKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {kAllocateBuffer, SLUICE_KERNEL(AllocateBuffer)},
      {kGetBufferSlice, SLUICE_KERNEL(GetBufferSlice)},
      {kGetBuffer, SLUICE_KERNEL(GetBuffer)},
      {"tfrt_dht.print_buffer", SLUICE_KERNEL(PrintBuffer)},
  });
}

}  // namespace tensor_kernels
}  // namespace sluice
