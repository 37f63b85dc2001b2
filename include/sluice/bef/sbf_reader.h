// ReadSbf: validates a program in the Sluice binary format
// (docs/format.md) and decodes its tables. Attribute data stays in the
// caller's bytes: kernels read it in place.
#ifndef SLUICE_BEF_SBF_READER_H_
#define SLUICE_BEF_SBF_READER_H_

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sluice/bef/format.h"

namespace sluice {
namespace bef {

struct SbfLocation {
  std::string_view file;  // empty if none
  uint32_t line = 0;
  uint32_t column = 0;
  bool has_debug_name = false;
  std::string_view debug_name;
  // The entry in the file's Locations section: ops that point at the same
  // entry share one location record.
  const void* record = nullptr;
};

// The reader hands out views of the file's u32 arrays: the format is
// little-endian, and so must be the host.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the SBF reader reads the file's words in place");

// The users lists of a kernel's results, read in place: for each result a
// count, then that many kernel indices. Walks to list i, so meant for
// kernels' few results.
class SbfUsers {
 public:
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = absl::Span<const uint32_t>;
    using difference_type = std::ptrdiff_t;
    using pointer = const value_type*;
    using reference = value_type;

    explicit const_iterator(const uint32_t* list) : list_(list) {}
    value_type operator*() const {
      return absl::MakeConstSpan(list_ + 1, *list_);
    }
    const_iterator& operator++() {
      list_ += 1 + *list_;
      return *this;
    }
    bool operator==(const const_iterator& other) const {
      return list_ == other.list_;
    }
    bool operator!=(const const_iterator& other) const {
      return list_ != other.list_;
    }

   private:
    const uint32_t* list_;
  };
  using value_type = absl::Span<const uint32_t>;

  SbfUsers() = default;
  // `words` spans exactly `count` lists.
  SbfUsers(absl::Span<const uint32_t> words, uint32_t count)
      : words_(words), count_(count) {}

  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  const_iterator begin() const { return const_iterator(words_.data()); }
  const_iterator end() const {
    return const_iterator(words_.data() + words_.size());
  }
  absl::Span<const uint32_t> operator[](size_t i) const {
    const_iterator it = begin();
    for (; i > 0; --i) ++it;
    return *it;
  }

 private:
  absl::Span<const uint32_t> words_;
  uint32_t count_ = 0;
};

// A kernel of a function body. The index arrays are views of the file's
// bytes, which must outlive this.
struct SbfKernel {
  uint32_t name_index = 0;
  uint32_t location_index = 0;
  absl::Span<const uint32_t> operands;
  absl::Span<const uint32_t> results;
  absl::Span<const uint32_t> attributes;  // attribute references
  std::vector<std::string_view> attribute_names;
  absl::Span<const uint32_t> functions;
  SbfUsers users;  // per result
};

struct SbfFunction {
  std::string_view name;
  FunctionKind kind = FunctionKind::kFunction;
  std::vector<uint32_t> argument_types;
  std::vector<uint32_t> result_types;
  // Empty for native functions.
  uint32_t num_registers = 0;
  std::vector<uint32_t> argument_registers;
  std::vector<uint32_t> result_registers;
  std::vector<std::vector<uint32_t>> argument_users;  // per argument
  std::vector<SbfKernel> kernels;
  std::vector<uint32_t> register_types;  // empty without RegisterTypes
};

// A nested `tfrt.compiled` module, carried whole (CompiledModules).
struct SbfCompiledModule {
  std::string_view name;
  uint32_t position = 0;  // index of the first function after it
  std::string_view text;  // MLIR
};

// Attributes kept only for the decompiler (Annotations), each an MLIR
// dictionary attribute's text; empty where there are none.
struct SbfKernelAnnotation {
  uint32_t function = 0;
  uint32_t kernel = 0;
  std::string_view attributes;
};

struct SbfAnnotations {
  std::string_view module_attributes;
  std::vector<std::string_view> function_attributes;  // per function
  std::vector<SbfKernelAnnotation> kernels;
};

// A decoded attribute entry.
struct SbfAttribute {
  AttributeType type;
  uint32_t count;
  const void* data;  // what a kernel receives
};

struct SbfProgram {
  std::vector<std::string_view> types;
  std::vector<std::string_view> kernel_names;
  std::vector<SbfLocation> locations;
  std::vector<SbfFunction> functions;
  bool has_register_types = false;
  std::vector<SbfCompiledModule> compiled_modules;
  bool has_annotations = false;
  SbfAnnotations annotations;

  // Attribute references were validated by ReadSbf: this cannot fail for
  // any reference found in the program.
  SbfAttribute GetAttribute(uint32_t reference) const;
  // The pointer a kernel receives for an attribute reference.
  const void* AttributeData(uint32_t reference) const;
  // Location `index` (below the Locations count), decoded from the file in
  // place: what `locations[index]` holds, for callers that keep the bytes but
  // not that vector.
  SbfLocation LocationAt(uint32_t index) const;

  absl::Span<const uint8_t> attributes_section;
  // What LocationAt reads.
  absl::Span<const uint8_t> strings_section;
  absl::Span<const uint8_t> locations_section;
};

// Validates `bytes` (which must be 8-aligned and outlive the result) and
// decodes them. Errors name the section and byte offset:
// "invalid sbf file: FunctionBodies at offset 212: operand register 9 out
// of range (function 'main' has 4 registers)".
absl::StatusOr<SbfProgram> ReadSbf(absl::Span<const uint8_t> bytes);

// True if `bytes` start with the SBF magic number.
bool HasSbfMagic(absl::Span<const uint8_t> bytes);

}  // namespace bef
}  // namespace sluice

#endif  // SLUICE_BEF_SBF_READER_H_
