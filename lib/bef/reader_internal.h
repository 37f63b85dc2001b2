// The pieces of ReadSbf that are shared between its source files: the
// validated string and attribute tables, and function body decoding.
#ifndef SLUICE_LIB_BEF_READER_INTERNAL_H_
#define SLUICE_LIB_BEF_READER_INTERNAL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "lib/bef/byte_reader.h"
#include "sluice/bef/sbf_reader.h"

namespace sluice {
namespace bef {
namespace internal {

// Where a section lies in the file.
struct SectionRange {
  bool present = false;
  uint32_t offset = 0;
  uint32_t size = 0;
};

// The Strings section. References are resolved with a binary search over
// the positions of its NUL bytes, so checking many references into one long
// string stays cheap.
class StringTable {
 public:
  void Init(absl::Span<const uint8_t> file, const SectionRange& range);

  // Resolves `reference`, read by `reader` from the field at
  // `field_offset`; errors name that field.
  absl::Status Resolve(const ByteReader& reader, uint32_t field_offset,
                       uint32_t reference, std::string_view* value) const;
  // As Resolve, but kNone is allowed and yields false in `*present`.
  absl::Status ResolveOptional(const ByteReader& reader, uint32_t field_offset,
                               uint32_t reference, bool* present,
                               std::string_view* value) const;

 private:
  const char* data_ = nullptr;
  uint32_t size_ = 0;
  std::vector<uint32_t> nul_positions_;
};

// The Attributes section, walked entry by entry once, so a reference is
// valid exactly when it is the data offset of an entry found by the walk.
class AttributeTable {
 public:
  // Validates every entry. Type and symbol attributes are checked against
  // the counts of Types and Functions; arrays may nest at most
  // kMaxArrayNesting deep.
  absl::Status Read(absl::Span<const uint8_t> file, const SectionRange& range,
                    uint32_t num_types, uint32_t num_functions);

  // Checks a reference read by `reader` from the field at `field_offset`.
  absl::Status CheckReference(const ByteReader& reader, uint32_t field_offset,
                              uint32_t reference) const;

 private:
  absl::Status ReadEntry(ByteReader& reader, uint32_t section_offset,
                         uint32_t num_types, uint32_t num_functions);

  // Checks the data of a dense elements attribute, which starts at
  // `data_offset`: a known element type, a shape whose elements fill the
  // data exactly, bools that are 0 or 1.
  static absl::Status CheckDenseElements(const ByteReader& reader,
                                         uint32_t data_offset,
                                         absl::Span<const uint8_t> data);

  // The array depth of an entry found by the walk (0 for anything but an
  // array).
  uint32_t DepthOf(uint32_t reference) const;

  uint32_t size_ = 0;
  std::vector<uint32_t> references_;  // ascending
  std::vector<uint32_t> depths_;      // one per reference
};

// What the body decoder needs from the rest of the file.
struct ReaderContext {
  absl::Span<const uint8_t> file;
  SectionRange bodies;
  StringTable strings;
  AttributeTable attributes;
  uint32_t num_kernel_names = 0;
  uint32_t num_locations = 0;
  uint32_t num_functions = 0;
};

// "'main'" for named functions, "#3" for regions, which have no name.
std::string DescribeFunction(uint32_t index, std::string_view name);

// Decodes and validates the body of function `index`, which lies at
// [body_offset, body_offset + body_size) of FunctionBodies (already checked
// to be inside it). `function` carries the decoded Functions entry.
absl::Status ReadFunctionBody(const ReaderContext& context, uint32_t index,
                              uint32_t body_offset, uint32_t body_size,
                              SbfFunction* function);

}  // namespace internal
}  // namespace bef
}  // namespace sluice

#endif  // SLUICE_LIB_BEF_READER_INTERNAL_H_
