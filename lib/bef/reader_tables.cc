// The string and attribute tables of the SBF reader.
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "lib/bef/byte_reader.h"
#include "lib/bef/format_internal.h"
#include "lib/bef/reader_internal.h"
#include "sluice/bef/format.h"

namespace sluice {
namespace bef {
namespace internal {

void StringTable::Init(absl::Span<const uint8_t> file,
                       const SectionRange& range) {
  data_ = reinterpret_cast<const char*>(file.data()) + range.offset;
  size_ = range.size;
  nul_positions_.clear();
  for (uint32_t i = 0; i < size_; ++i) {
    if (data_[i] == '\0') nul_positions_.push_back(i);
  }
}

absl::Status StringTable::Resolve(const ByteReader& reader,
                                  uint32_t field_offset, uint32_t reference,
                                  std::string_view* value) const {
  if (reference >= size_) {
    return reader.Error(field_offset,
                        "string reference %d out of range (Strings has %d "
                        "bytes)",
                        reference, size_);
  }
  auto nul =
      std::lower_bound(nul_positions_.begin(), nul_positions_.end(), reference);
  if (nul == nul_positions_.end()) {
    return reader.Error(field_offset,
                        "string reference %d has no NUL before the end of "
                        "Strings (%d bytes)",
                        reference, size_);
  }
  *value = std::string_view(data_ + reference, *nul - reference);
  return absl::OkStatus();
}

absl::Status StringTable::ResolveOptional(const ByteReader& reader,
                                          uint32_t field_offset,
                                          uint32_t reference, bool* present,
                                          std::string_view* value) const {
  *present = reference != kNone;
  if (!*present) {
    *value = std::string_view();
    return absl::OkStatus();
  }
  return Resolve(reader, field_offset, reference, value);
}

absl::Status AttributeTable::Read(absl::Span<const uint8_t> file,
                                  const SectionRange& range, uint32_t num_types,
                                  uint32_t num_functions) {
  size_ = range.size;
  references_.clear();
  depths_.clear();
  ByteReader reader(file, "Attributes", range.offset,
                    range.offset + range.size);
  while (reader.remaining() != 0) {
    SLUICE_BEF_RETURN_IF_ERROR(ReadEntry(reader, reader.offset() - range.offset,
                                         num_types, num_functions));
  }
  return absl::OkStatus();
}

absl::Status AttributeTable::ReadEntry(ByteReader& reader,
                                       uint32_t section_offset,
                                       uint32_t num_types,
                                       uint32_t num_functions) {
  const uint32_t entry_offset = reader.offset();
  uint32_t code = 0;
  uint32_t count = 0;
  SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("attribute type", &code));
  SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("attribute count", &count));
  if (!IsKnownAttributeType(code)) {
    return reader.Error(entry_offset, "unknown attribute type code 0x%x", code);
  }
  const AttributeType type = static_cast<AttributeType>(code);
  const char* name = AttributeTypeName(type);
  uint32_t expected_count = 0;
  if (FixedAttributeCount(code, &expected_count) && count != expected_count) {
    return reader.Error(entry_offset + 4,
                        "%s attribute has count %d, expected %d", name, count,
                        expected_count);
  }
  const uint64_t data_size = type == AttributeType::kUnit
                                 ? 0
                                 : uint64_t{count} * AttributeElementSize(type);
  const uint64_t padded_size = AlignTo(data_size, 8);
  if (padded_size > reader.remaining()) {
    return reader.Error(entry_offset,
                        "%s attribute with %d elements needs %d bytes of data "
                        "and padding but the section has %d left",
                        name, count, padded_size, reader.remaining());
  }
  const uint32_t data_offset = reader.offset();
  const uint32_t reference = section_offset + 8;

  if (type == AttributeType::kBool ||
      code == static_cast<uint32_t>(AttributeType::kDenseArrayBase) +
                  static_cast<uint32_t>(AttributeType::kBool)) {
    const absl::Span<const uint8_t> values = reader.PeekBytes(count);
    for (uint32_t i = 0; i < count; ++i) {
      if (values[i] > 1) {
        return reader.Error(data_offset + i, "bool value %d is not 0 or 1",
                            values[i]);
      }
    }
  }
  if (type == AttributeType::kDenseElements) {
    SLUICE_BEF_RETURN_IF_ERROR(
        CheckDenseElements(reader, data_offset, reader.PeekBytes(count)));
  }
  // Arrays refer backwards, so every element's depth is already known and
  // one pass computes them all without recursing.
  uint32_t depth = 0;
  if (type == AttributeType::kType || type == AttributeType::kSymbol ||
      type == AttributeType::kArray) {
    // The size check above covers the elements.
    const absl::Span<const uint8_t> words = reader.PeekBytes(4 * count);
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t value = LoadLe32(words.data() + 4 * i);
      const uint32_t at = data_offset + 4 * i;
      if (type == AttributeType::kType && value >= num_types) {
        return reader.Error(at,
                            "type attribute names type %d but Types has %d "
                            "entries",
                            value, num_types);
      }
      if (type == AttributeType::kSymbol && value >= num_functions) {
        return reader.Error(at,
                            "symbol attribute names function %d but there "
                            "are %d functions",
                            value, num_functions);
      }
      if (type == AttributeType::kArray) {
        if (value >= reference) {
          return reader.Error(at,
                              "array element %d refers to attribute %d, which "
                              "does not come before the array (at %d)",
                              i, value, reference);
        }
        SLUICE_BEF_RETURN_IF_ERROR(CheckReference(reader, at, value));
        depth = std::max(depth, DepthOf(value));
      }
    }
  }
  if (type == AttributeType::kArray) {
    ++depth;
    if (depth > kMaxArrayNesting) {
      return reader.Error(entry_offset,
                          "array attribute nests %d levels deep; sbf files "
                          "allow at most %d levels of arrays",
                          depth, kMaxArrayNesting);
    }
  }
  reader.Skip(static_cast<uint32_t>(padded_size));
  references_.push_back(reference);
  depths_.push_back(depth);
  return absl::OkStatus();
}

absl::Status AttributeTable::CheckDenseElements(
    const ByteReader& reader, uint32_t data_offset,
    absl::Span<const uint8_t> data) {
  if (data.size() < kDenseElementsHeaderSize) {
    return reader.Error(data_offset,
                        "dense elements attribute has %d bytes, less than "
                        "its %d-byte header",
                        data.size(), kDenseElementsHeaderSize);
  }
  const uint32_t code = LoadLe32(data.data());
  const uint32_t rank = LoadLe32(data.data() + 4);
  const uint32_t element_size =
      DenseElementSize(static_cast<AttributeType>(code));
  if (element_size == 0) {
    return reader.Error(data_offset,
                        "dense elements attribute has element type code "
                        "0x%x; it holds scalars or complex numbers",
                        code);
  }
  const uint64_t header = kDenseElementsHeaderSize + 8 * uint64_t{rank};
  if (header > data.size()) {
    return reader.Error(data_offset + 4,
                        "dense elements attribute of rank %d needs %d bytes "
                        "of dimensions but has %d",
                        rank, 8 * uint64_t{rank},
                        data.size() - kDenseElementsHeaderSize);
  }
  const uint64_t data_bytes = data.size() - header;
  auto mismatch = [&]() {
    return reader.Error(data_offset,
                        "dense elements attribute has %d bytes of %s "
                        "elements, not what its shape needs",
                        data_bytes,
                        AttributeTypeName(static_cast<AttributeType>(code)));
  };
  std::vector<uint64_t> dimensions(rank);
  bool empty = false;
  for (uint32_t i = 0; i < rank; ++i) {
    const uint8_t* at = data.data() + kDenseElementsHeaderSize + 8 * i;
    dimensions[i] = uint64_t{LoadLe32(at)} | uint64_t{LoadLe32(at + 4)} << 32;
    if (dimensions[i] > static_cast<uint64_t>(INT64_MAX)) {
      return reader.Error(data_offset + kDenseElementsHeaderSize + 8 * i,
                          "dense elements dimension %d is negative", i);
    }
    if (dimensions[i] == 0) empty = true;
  }
  // Without a zero dimension, a product past the elements the data can hold
  // is a mismatch already, so it is never computed far enough to overflow.
  const uint64_t max_elements = data_bytes / element_size;
  uint64_t num_elements = empty ? 0 : 1;
  if (!empty) {
    for (uint64_t dimension : dimensions) {
      if (dimension > max_elements / num_elements) return mismatch();
      num_elements *= dimension;
    }
  }
  if (num_elements * element_size != data_bytes) return mismatch();
  if (static_cast<AttributeType>(code) == AttributeType::kBool) {
    for (uint64_t i = 0; i < num_elements; ++i) {
      if (data[header + i] > 1) {
        return reader.Error(data_offset + header + i,
                            "bool value %d is not 0 or 1", data[header + i]);
      }
    }
  }
  return absl::OkStatus();
}

uint32_t AttributeTable::DepthOf(uint32_t reference) const {
  auto it = std::lower_bound(references_.begin(), references_.end(), reference);
  return depths_[it - references_.begin()];
}

absl::Status AttributeTable::CheckReference(const ByteReader& reader,
                                            uint32_t field_offset,
                                            uint32_t reference) const {
  if (reference % 8 != 0) {
    return reader.Error(field_offset,
                        "attribute reference %d is not a multiple of 8",
                        reference);
  }
  if (reference < 8 || reference > size_) {
    return reader.Error(field_offset,
                        "attribute reference %d out of range (Attributes has "
                        "%d bytes)",
                        reference, size_);
  }
  if (!std::binary_search(references_.begin(), references_.end(), reference)) {
    return reader.Error(field_offset,
                        "attribute reference %d does not point at the data "
                        "of an attribute entry",
                        reference);
  }
  return absl::OkStatus();
}

}  // namespace internal
}  // namespace bef
}  // namespace sluice
