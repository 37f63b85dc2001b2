// AttributeBuffer: owns attribute values in the layout attributes.h reads,
// for building kernel frames by hand (tests, embedders calling kernels
// directly). Pointers it returns stay valid for the buffer's lifetime.
#ifndef SLUICE_KERNEL_ATTRIBUTE_BUFFER_H_
#define SLUICE_KERNEL_ATTRIBUTE_BUFFER_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/types/span.h"

namespace sluice {

class AttributeBuffer {
 public:
  template <typename T>
  const void* AddScalar(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    return Add(&value, sizeof(T), alignof(T), /*with_count=*/false, 0);
  }

  const void* AddString(std::string_view value) {
    return Add(value.data(), value.size(), 1, /*with_count=*/true,
               static_cast<uint32_t>(value.size()));
  }

  template <typename T>
  const void* AddArray(absl::Span<const T> values) {
    static_assert(std::is_trivially_copyable_v<T>);
    return Add(values.data(), values.size() * sizeof(T), alignof(T),
               /*with_count=*/true, static_cast<uint32_t>(values.size()));
  }

 private:
  const void* Add(const void* bytes, size_t size, size_t alignment,
                  bool with_count, uint32_t count) {
    // One block per attribute: a count slot, then the data aligned for
    // its type with the count right before it.
    const size_t header = with_count ? sizeof(uint32_t) : 0;
    const size_t data_offset = (header + alignment - 1) / alignment * alignment;
    const size_t total = data_offset + size;
    auto block = std::make_unique<std::max_align_t[]>(
        total / sizeof(std::max_align_t) + 1);
    char* base = reinterpret_cast<char*>(block.get());
    if (with_count) {
      std::memcpy(base + data_offset - sizeof(count), &count, sizeof(count));
    }
    if (size > 0) std::memcpy(base + data_offset, bytes, size);
    blocks_.push_back(std::move(block));
    return base + data_offset;
  }

  std::vector<std::unique_ptr<std::max_align_t[]>> blocks_;
};

}  // namespace sluice

#endif  // SLUICE_KERNEL_ATTRIBUTE_BUFFER_H_
