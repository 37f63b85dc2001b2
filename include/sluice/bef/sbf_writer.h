// SbfWriter: builds a program in the Sluice binary format (docs/format.md).
// The compiler drives it; tests use it to build programs (and broken ones)
// directly.
#ifndef SLUICE_BEF_SBF_WRITER_H_
#define SLUICE_BEF_SBF_WRITER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/types/span.h"
#include "sluice/bef/format.h"

namespace sluice {
namespace bef {

// One kernel of a function body, as the writer takes it. Users are computed
// by the writer.
struct KernelDescription {
  uint32_t name_index = 0;                // from AddKernelName()
  uint32_t location_index = 0;            // from AddLocation()
  std::vector<uint32_t> operands;         // registers
  std::vector<uint32_t> results;          // registers
  std::vector<uint32_t> attributes;       // attribute references
  std::vector<uint32_t> attribute_names;  // string references
  std::vector<uint32_t> functions;        // function indices
};

struct BodyDescription {
  uint32_t num_registers = 0;
  std::vector<uint32_t> argument_registers;
  std::vector<uint32_t> result_registers;
  std::vector<KernelDescription> kernels;
  // One type index per register; written to the optional RegisterTypes
  // section (empty: written as "unknown" entries of the function's count).
  std::vector<uint32_t> register_types;
};

// Arguments that name something the writer does not have (an undeclared
// function, an unknown type, kernel name, location or attribute, a register
// outside the body's count) are programming errors and fail a check. Register
// discipline (each register defined once, before its uses) is left to the
// reader, so tests can build such broken programs.
class SbfWriter {
 public:
  SbfWriter();

  // Strings, types and kernel names are deduplicated.
  uint32_t AddString(std::string_view value);
  uint32_t AddType(std::string_view spelling);
  uint32_t AddKernelName(std::string_view name);
  uint32_t AddLocation(std::string_view file, uint32_t line, uint32_t column,
                       std::optional<std::string_view> debug_name);

  // Attributes; each returns an attribute reference.
  uint32_t AddScalarAttribute(AttributeType type, const void* data,
                              uint32_t size);
  template <typename T>
  uint32_t AddScalar(AttributeType type, T value) {
    return AddScalarAttribute(type, &value, sizeof(T));
  }
  uint32_t AddStringAttribute(std::string_view value);
  uint32_t AddTypeAttribute(uint32_t type_index);
  uint32_t AddSymbolAttribute(uint32_t function_index);
  uint32_t AddUnitAttribute();
  // Elements are references to attributes added earlier.
  uint32_t AddArrayAttribute(absl::Span<const uint32_t> elements);
  uint32_t AddDenseArrayAttribute(AttributeType element_type, const void* data,
                                  uint32_t count);
  // A tensor of `shape` (dimensions >= 0) whose elements, row-major, are
  // `data`: the product of the dimensions times DenseElementSize bytes.
  uint32_t AddDenseElementsAttribute(AttributeType element_type,
                                     absl::Span<const int64_t> shape,
                                     const void* data);

  // Functions are declared first (so symbol references can name them), and
  // those with a body are defined later, in any order.
  uint32_t DeclareFunction(std::string_view name, FunctionKind kind,
                           absl::Span<const uint32_t> argument_types,
                           absl::Span<const uint32_t> result_types);
  void DefineFunction(uint32_t function_index, BodyDescription body);

  // A nested `tfrt.compiled` module: its symbol name, the index of the
  // first function declared after it in the source, and its MLIR text.
  void AddCompiledModule(std::string_view name, uint32_t position,
                         std::string_view text);

  // Attributes the kernels do not receive, as MLIR dictionary attributes
  // (`{tfrt.sync}`), for the decompiler: the module's, a function's, and
  // those of kernel `kernel` of function `function_index`'s body.
  void SetModuleAnnotations(std::string_view dictionary);
  void SetFunctionAnnotations(uint32_t function_index,
                              std::string_view dictionary);
  void AddKernelAnnotations(uint32_t function_index, uint32_t kernel,
                            std::string_view dictionary);

  // The file. Without optional sections, RegisterTypes and Annotations are
  // left out; CompiledModules is written whenever there are modules.
  std::vector<uint8_t> Finish(bool include_optional_sections = true) const;

 private:
  struct FunctionRecord {
    uint32_t name;
    FunctionKind kind;
    std::vector<uint32_t> argument_types;
    std::vector<uint32_t> result_types;
    std::optional<BodyDescription> body;
  };

  uint32_t AddAttributeEntry(AttributeType type, uint32_t count,
                             const void* data, uint32_t size);
  bool IsAttributeReference(uint32_t reference) const;

  std::vector<uint8_t> strings_;
  std::unordered_map<std::string, uint32_t> string_offsets_;
  std::vector<uint32_t> types_;
  std::unordered_map<std::string, uint32_t> type_indices_;
  std::vector<uint32_t> kernel_names_;
  std::unordered_map<std::string, uint32_t> kernel_indices_;
  std::vector<uint8_t> attributes_;
  std::vector<uint32_t> attribute_references_;  // ascending
  std::vector<uint32_t> locations_;             // 4 words per location
  std::vector<FunctionRecord> functions_;
  std::vector<uint32_t> compiled_modules_;  // 3 words per module
  uint32_t module_annotations_ = kNone;
  std::vector<uint32_t> function_annotations_;  // per function, or kNone
  std::vector<uint32_t> kernel_annotations_;    // 3 words per entry
};

}  // namespace bef
}  // namespace sluice

#endif  // SLUICE_BEF_SBF_WRITER_H_
