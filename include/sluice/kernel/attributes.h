// Typed views of kernel attributes, read in place from the program's bytes.
//
// An attribute reaches a kernel as a pointer into the executable's
// attribute section:
//   - a scalar (integers, floats, bool as uint8_t) is the value itself,
//     aligned for its type;
//   - a string or an array is its elements, aligned for the element type,
//     preceded immediately by a 4-byte little-endian element count.
// AttributeBuffer (attribute_buffer.h) writes this layout for tests and
// embedders that build frames by hand.
#ifndef SLUICE_KERNEL_ATTRIBUTES_H_
#define SLUICE_KERNEL_ATTRIBUTES_H_

#include <cstdint>
#include <cstring>
#include <string_view>

#include "absl/types/span.h"

namespace sluice {
namespace internal {

inline uint32_t ReadElementCount(const void* data) {
  uint32_t count;
  std::memcpy(&count, static_cast<const char*>(data) - sizeof(count),
              sizeof(count));
  return count;
}

}  // namespace internal

// A scalar attribute of type `T`.
template <typename T>
class Attribute {
 public:
  explicit Attribute(const void* data) : data_(static_cast<const T*>(data)) {}
  const T& get() const { return *data_; }
  const T& operator*() const { return *data_; }
  const T* operator->() const { return data_; }

 private:
  const T* data_;
};

// A scalar attribute of type `T` that the op may leave out (null `data`).
template <typename T>
class OptionalAttribute {
 public:
  explicit OptionalAttribute(const void* data)
      : data_(static_cast<const T*>(data)) {}
  bool has_value() const { return data_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  const T& operator*() const { return *data_; }
  T value_or(T fallback) const { return data_ ? *data_ : fallback; }

 private:
  const T* data_;
};

// A string attribute (not NUL-terminated).
class StringAttribute {
 public:
  explicit StringAttribute(const void* data)
      : value_(static_cast<const char*>(data),
               internal::ReadElementCount(data)) {}
  std::string_view get() const { return value_; }
  operator std::string_view() const { return value_; }  // NOLINT
  std::string str() const { return std::string(value_); }

 private:
  std::string_view value_;
};

// A string attribute that the op may leave out (null `data`).
class OptionalStringAttribute {
 public:
  explicit OptionalStringAttribute(const void* data) : data_(data) {}
  bool has_value() const { return data_ != nullptr; }
  std::string_view value_or(std::string_view fallback) const {
    return data_ ? StringAttribute(data_).get() : fallback;
  }

 private:
  const void* data_;
};

// An array attribute of `T` elements.
template <typename T>
class ArrayAttribute {
 public:
  explicit ArrayAttribute(const void* data)
      : data_(static_cast<const T*>(data), internal::ReadElementCount(data)) {}
  absl::Span<const T> data() const { return data_; }
  size_t size() const { return data_.size(); }
  const T& operator[](size_t i) const { return data_[i]; }
  auto begin() const { return data_.begin(); }
  auto end() const { return data_.end(); }

 private:
  absl::Span<const T> data_;
};

// An array attribute whose elements are attributes of any type, nested
// arrays included. Its elements are references (byte offsets) into the
// program's attribute section (KernelFrame::attribute_section()); each
// element's data is preceded by its type code and count, as docs/format.md
// lays out.
class AggregateAttribute {
 public:
  AggregateAttribute(const void* data, absl::Span<const uint8_t> section)
      : references_(static_cast<const uint32_t*>(data),
                    internal::ReadElementCount(data)),
        section_(section) {}

  size_t size() const { return references_.size(); }
  // The element's type code (docs/format.md, "Attributes").
  uint32_t type(size_t i) const {
    uint32_t code;
    std::memcpy(&code, element(i) - 2 * sizeof(uint32_t), sizeof(code));
    return code;
  }
  // The element's data, as a kernel would receive it.
  const void* data(size_t i) const { return element(i); }
  AggregateAttribute aggregate(size_t i) const {
    return AggregateAttribute(element(i), section_);
  }

 private:
  const uint8_t* element(size_t i) const {
    return section_.data() + references_[i];
  }

  absl::Span<const uint32_t> references_;
  absl::Span<const uint8_t> section_;
};

// An aggregate attribute that the op may leave out (null `data`).
class OptionalAggregateAttribute {
 public:
  OptionalAggregateAttribute(const void* data,
                             absl::Span<const uint8_t> section)
      : data_(data), section_(section) {}
  bool has_value() const { return data_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  AggregateAttribute operator*() const {
    return AggregateAttribute(data_, section_);
  }

 private:
  const void* data_;
  absl::Span<const uint8_t> section_;
};

}  // namespace sluice

#endif  // SLUICE_KERNEL_ATTRIBUTES_H_
