#include "sluice/bef/sbf_writer.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "lib/bef/format_internal.h"
#include "sluice/bef/checksum.h"
#include "sluice/bef/format.h"
#include "sluice/support/logging.h"

namespace sluice {
namespace bef {
namespace {

using internal::AlignTo;
using internal::AppendLe32;

// Every offset in the file is a u32, so no table may grow past 4 GiB.
void CheckFitsU32(uint64_t size, const char* what) {
  SLUICE_CHECK(size <= std::numeric_limits<uint32_t>::max())
      << what << " grew past 4 GiB (" << size << " bytes)";
}

void PadTo(std::vector<uint8_t>* bytes, uint64_t alignment) {
  bytes->resize(AlignTo(bytes->size(), alignment), 0);
}

void AppendWords(std::vector<uint8_t>* out, absl::Span<const uint32_t> words) {
  for (uint32_t word : words) AppendLe32(out, word);
}

// Users per register: kernels in ascending order, once per use, which is
// the exact form the reader checks.
std::vector<std::vector<uint32_t>> ComputeUsers(const BodyDescription& body) {
  std::vector<std::vector<uint32_t>> users(body.num_registers);
  for (uint32_t k = 0; k < body.kernels.size(); ++k) {
    for (uint32_t operand : body.kernels[k].operands) {
      users[operand].push_back(k);
    }
  }
  return users;
}

void AppendUsers(std::vector<uint8_t>* out,
                 const std::vector<uint32_t>& users) {
  AppendLe32(out, static_cast<uint32_t>(users.size()));
  AppendWords(out, users);
}

void EncodeBody(const BodyDescription& body, std::vector<uint8_t>* out) {
  const std::vector<std::vector<uint32_t>> users = ComputeUsers(body);
  AppendLe32(out, body.num_registers);
  AppendLe32(out, static_cast<uint32_t>(body.kernels.size()));
  AppendWords(out, body.argument_registers);
  AppendWords(out, body.result_registers);
  for (uint32_t reg : body.argument_registers) AppendUsers(out, users[reg]);
  for (const KernelDescription& kernel : body.kernels) {
    AppendLe32(out, kernel.name_index);
    AppendLe32(out, kernel.location_index);
    AppendLe32(out, static_cast<uint32_t>(kernel.operands.size()));
    AppendLe32(out, static_cast<uint32_t>(kernel.results.size()));
    AppendLe32(out, static_cast<uint32_t>(kernel.attributes.size()));
    AppendLe32(out, static_cast<uint32_t>(kernel.functions.size()));
    AppendWords(out, kernel.operands);
    AppendWords(out, kernel.results);
    AppendWords(out, kernel.attributes);
    AppendWords(out, kernel.attribute_names);
    AppendWords(out, kernel.functions);
    for (uint32_t reg : kernel.results) AppendUsers(out, users[reg]);
  }
}

// A count-prefixed table of u32 words (Types, KernelNames).
std::vector<uint8_t> EncodeTable(const std::vector<uint32_t>& words,
                                 uint32_t words_per_entry) {
  std::vector<uint8_t> out;
  AppendLe32(&out, static_cast<uint32_t>(words.size() / words_per_entry));
  AppendWords(&out, words);
  return out;
}

}  // namespace

SbfWriter::SbfWriter() = default;

uint32_t SbfWriter::AddString(std::string_view value) {
  SLUICE_CHECK(value.find('\0') == std::string_view::npos)
      << "sbf strings are NUL-terminated and cannot hold a NUL byte";
  auto [it, inserted] = string_offsets_.try_emplace(
      std::string(value), static_cast<uint32_t>(strings_.size()));
  if (inserted) {
    CheckFitsU32(uint64_t{strings_.size()} + value.size() + 1, "Strings");
    strings_.insert(strings_.end(), value.begin(), value.end());
    strings_.push_back(0);
  }
  return it->second;
}

uint32_t SbfWriter::AddType(std::string_view spelling) {
  const uint32_t name = AddString(spelling);
  auto [it, inserted] = type_indices_.try_emplace(
      std::string(spelling), static_cast<uint32_t>(types_.size()));
  if (inserted) types_.push_back(name);
  return it->second;
}

uint32_t SbfWriter::AddKernelName(std::string_view name) {
  const uint32_t string = AddString(name);
  auto [it, inserted] = kernel_indices_.try_emplace(
      std::string(name), static_cast<uint32_t>(kernel_names_.size()));
  if (inserted) kernel_names_.push_back(string);
  return it->second;
}

uint32_t SbfWriter::AddLocation(std::string_view file, uint32_t line,
                                uint32_t column,
                                std::optional<std::string_view> debug_name) {
  const uint32_t index = static_cast<uint32_t>(locations_.size() / 4);
  locations_.push_back(file.empty() ? kNone : AddString(file));
  locations_.push_back(line);
  locations_.push_back(column);
  locations_.push_back(debug_name ? AddString(*debug_name) : kNone);
  return index;
}

uint32_t SbfWriter::AddAttributeEntry(AttributeType type, uint32_t count,
                                      const void* data, uint32_t size) {
  SLUICE_CHECK(attributes_.size() % 8 == 0);
  CheckFitsU32(uint64_t{attributes_.size()} + 8 + AlignTo(size, 8),
               "Attributes");
  AppendLe32(&attributes_, static_cast<uint32_t>(type));
  AppendLe32(&attributes_, count);
  const uint32_t reference = static_cast<uint32_t>(attributes_.size());
  const uint8_t* begin = static_cast<const uint8_t*>(data);
  if (size != 0) attributes_.insert(attributes_.end(), begin, begin + size);
  PadTo(&attributes_, 8);
  attribute_references_.push_back(reference);
  return reference;
}

bool SbfWriter::IsAttributeReference(uint32_t reference) const {
  return std::binary_search(attribute_references_.begin(),
                            attribute_references_.end(), reference);
}

uint32_t SbfWriter::AddScalarAttribute(AttributeType type, const void* data,
                                       uint32_t size) {
  const uint32_t code = static_cast<uint32_t>(type);
  const uint32_t element_size = AttributeElementSize(type);
  const bool is_complex =
      type == AttributeType::kComplex64 || type == AttributeType::kComplex128;
  SLUICE_CHECK(internal::IsScalarAttributeType(code) || is_complex)
      << "attribute type " << AttributeTypeName(type) << " (" << code
      << ") is not a scalar";
  const uint32_t count = is_complex ? 2 : 1;
  SLUICE_CHECK(size == count * element_size)
      << "a " << AttributeTypeName(type) << " attribute takes "
      << count * element_size << " bytes, not " << size;
  if (type == AttributeType::kBool) {
    SLUICE_CHECK(*static_cast<const uint8_t*>(data) <= 1)
        << "a bool attribute must be 0 or 1";
  }
  return AddAttributeEntry(type, count, data, size);
}

uint32_t SbfWriter::AddStringAttribute(std::string_view value) {
  CheckFitsU32(value.size(), "a string attribute");
  return AddAttributeEntry(AttributeType::kString,
                           static_cast<uint32_t>(value.size()), value.data(),
                           static_cast<uint32_t>(value.size()));
}

uint32_t SbfWriter::AddTypeAttribute(uint32_t type_index) {
  SLUICE_CHECK(type_index < types_.size())
      << "type attribute names type " << type_index << " but only "
      << types_.size() << " types were added";
  return AddAttributeEntry(AttributeType::kType, 1, &type_index,
                           sizeof(type_index));
}

uint32_t SbfWriter::AddSymbolAttribute(uint32_t function_index) {
  SLUICE_CHECK(function_index < functions_.size())
      << "symbol attribute names function " << function_index << " but only "
      << functions_.size() << " functions were declared";
  return AddAttributeEntry(AttributeType::kSymbol, 1, &function_index,
                           sizeof(function_index));
}

uint32_t SbfWriter::AddUnitAttribute() {
  return AddAttributeEntry(AttributeType::kUnit, 0, nullptr, 0);
}

uint32_t SbfWriter::AddArrayAttribute(absl::Span<const uint32_t> elements) {
  for (uint32_t element : elements) {
    SLUICE_CHECK(IsAttributeReference(element))
        << "array element " << element
        << " is not a reference to an attribute added earlier";
  }
  CheckFitsU32(uint64_t{elements.size()} * 4, "an array attribute");
  return AddAttributeEntry(
      AttributeType::kArray, static_cast<uint32_t>(elements.size()),
      elements.data(), static_cast<uint32_t>(elements.size() * 4));
}

uint32_t SbfWriter::AddDenseArrayAttribute(AttributeType element_type,
                                           const void* data, uint32_t count) {
  const uint32_t code = static_cast<uint32_t>(element_type);
  SLUICE_CHECK(internal::IsScalarAttributeType(code))
      << "dense arrays hold scalars, not " << AttributeTypeName(element_type);
  const uint64_t size = uint64_t{count} * AttributeElementSize(element_type);
  CheckFitsU32(size, "a dense array attribute");
  if (element_type == AttributeType::kBool) {
    const uint8_t* values = static_cast<const uint8_t*>(data);
    for (uint32_t i = 0; i < count; ++i) {
      SLUICE_CHECK(values[i] <= 1) << "dense bool element " << i << " is "
                                   << int{values[i]} << ", not 0 or 1";
    }
  }
  return AddAttributeEntry(
      static_cast<AttributeType>(
          static_cast<uint32_t>(AttributeType::kDenseArrayBase) + code),
      count, data, static_cast<uint32_t>(size));
}

uint32_t SbfWriter::AddDenseElementsAttribute(AttributeType element_type,
                                              absl::Span<const int64_t> shape,
                                              const void* data) {
  const uint32_t element_size = DenseElementSize(element_type);
  SLUICE_CHECK(element_size != 0)
      << "dense elements hold scalars or complex numbers, not "
      << AttributeTypeName(element_type);
  uint64_t num_elements = 1;
  for (int64_t dimension : shape) {
    SLUICE_CHECK(dimension >= 0) << "dimension " << dimension << " < 0";
    // Saturates rather than overflows; CheckFitsU32 then refuses the size.
    num_elements = dimension != 0 && num_elements > UINT32_MAX / dimension
                       ? uint64_t{UINT32_MAX} + 1
                       : num_elements * dimension;
  }
  const uint64_t header = kDenseElementsHeaderSize + 8 * uint64_t{shape.size()};
  const uint64_t size = header + num_elements * element_size;
  CheckFitsU32(size, "a dense elements attribute");
  if (element_type == AttributeType::kBool) {
    const uint8_t* values = static_cast<const uint8_t*>(data);
    for (uint64_t i = 0; i < num_elements; ++i) {
      SLUICE_CHECK(values[i] <= 1) << "dense bool element " << i << " is "
                                   << int{values[i]} << ", not 0 or 1";
    }
  }
  std::vector<uint8_t> bytes;
  bytes.reserve(size);
  AppendLe32(&bytes, static_cast<uint32_t>(element_type));
  AppendLe32(&bytes, static_cast<uint32_t>(shape.size()));
  for (int64_t dimension : shape) {
    const uint64_t value = static_cast<uint64_t>(dimension);
    AppendLe32(&bytes, static_cast<uint32_t>(value));
    AppendLe32(&bytes, static_cast<uint32_t>(value >> 32));
  }
  // An empty tensor may come with no data at all.
  if (num_elements != 0) {
    const uint8_t* begin = static_cast<const uint8_t*>(data);
    bytes.insert(bytes.end(), begin, begin + num_elements * element_size);
  }
  return AddAttributeEntry(AttributeType::kDenseElements,
                           static_cast<uint32_t>(size), bytes.data(),
                           static_cast<uint32_t>(size));
}

uint32_t SbfWriter::DeclareFunction(std::string_view name, FunctionKind kind,
                                    absl::Span<const uint32_t> argument_types,
                                    absl::Span<const uint32_t> result_types) {
  SLUICE_CHECK(kind == FunctionKind::kFunction ||
               kind == FunctionKind::kRegion || kind == FunctionKind::kNative)
      << "unknown function kind " << static_cast<uint32_t>(kind);
  for (absl::Span<const uint32_t> types : {argument_types, result_types}) {
    for (uint32_t type : types) {
      SLUICE_CHECK(type < types_.size())
          << "function '" << name << "' names type " << type << " but only "
          << types_.size() << " types were added";
    }
  }
  FunctionRecord record;
  record.name = AddString(name);
  record.kind = kind;
  record.argument_types.assign(argument_types.begin(), argument_types.end());
  record.result_types.assign(result_types.begin(), result_types.end());
  functions_.push_back(std::move(record));
  return static_cast<uint32_t>(functions_.size() - 1);
}

void SbfWriter::DefineFunction(uint32_t function_index, BodyDescription body) {
  SLUICE_CHECK(function_index < functions_.size())
      << "defining function " << function_index << " but only "
      << functions_.size() << " functions were declared";
  FunctionRecord& function = functions_[function_index];
  SLUICE_CHECK(function.kind != FunctionKind::kNative)
      << "native function " << function_index << " cannot have a body";
  SLUICE_CHECK(!function.body.has_value())
      << "function " << function_index << " is defined twice";
  SLUICE_CHECK(body.argument_registers.size() == function.argument_types.size())
      << "function " << function_index << " declares "
      << function.argument_types.size() << " arguments but its body has "
      << body.argument_registers.size();
  SLUICE_CHECK(body.result_registers.size() == function.result_types.size())
      << "function " << function_index << " declares "
      << function.result_types.size() << " results but its body returns "
      << body.result_registers.size();
  SLUICE_CHECK(body.register_types.empty() ||
               body.register_types.size() == body.num_registers)
      << "function " << function_index << " has " << body.num_registers
      << " registers but " << body.register_types.size() << " register types";
  for (uint32_t type : body.register_types) {
    SLUICE_CHECK(type == kNone || type < types_.size())
        << "register type " << type << " out of range";
  }
  auto check_registers = [&](const std::vector<uint32_t>& registers) {
    for (uint32_t reg : registers) {
      SLUICE_CHECK(reg < body.num_registers)
          << "function " << function_index << " uses register " << reg
          << " but has " << body.num_registers << " registers";
    }
  };
  check_registers(body.argument_registers);
  check_registers(body.result_registers);
  const uint32_t num_locations = static_cast<uint32_t>(locations_.size() / 4);
  for (const KernelDescription& kernel : body.kernels) {
    check_registers(kernel.operands);
    check_registers(kernel.results);
    SLUICE_CHECK(kernel.name_index < kernel_names_.size())
        << "kernel name " << kernel.name_index << " out of range";
    SLUICE_CHECK(kernel.location_index < num_locations)
        << "location " << kernel.location_index << " out of range";
    SLUICE_CHECK(kernel.attribute_names.size() == kernel.attributes.size())
        << "a kernel has " << kernel.attributes.size() << " attributes but "
        << kernel.attribute_names.size() << " attribute names";
    for (uint32_t attribute : kernel.attributes) {
      SLUICE_CHECK(IsAttributeReference(attribute))
          << "attribute " << attribute << " was not added";
    }
    for (uint32_t name : kernel.attribute_names) {
      SLUICE_CHECK(name < strings_.size())
          << "attribute name " << name << " is not a string reference";
    }
    for (uint32_t callee : kernel.functions) {
      SLUICE_CHECK(callee < functions_.size())
          << "function " << callee << " was not declared";
    }
  }
  function.body = std::move(body);
}

void SbfWriter::AddCompiledModule(std::string_view name, uint32_t position,
                                  std::string_view text) {
  SLUICE_CHECK(position <= functions_.size())
      << "module position " << position << " past the " << functions_.size()
      << " declared functions";
  compiled_modules_.push_back(AddString(name));
  compiled_modules_.push_back(position);
  compiled_modules_.push_back(AddString(text));
}

void SbfWriter::SetModuleAnnotations(std::string_view dictionary) {
  module_annotations_ = AddString(dictionary);
}

void SbfWriter::SetFunctionAnnotations(uint32_t function_index,
                                       std::string_view dictionary) {
  SLUICE_CHECK(function_index < functions_.size())
      << "function " << function_index << " was not declared";
  if (function_annotations_.size() <= function_index) {
    function_annotations_.resize(function_index + 1, kNone);
  }
  function_annotations_[function_index] = AddString(dictionary);
}

void SbfWriter::AddKernelAnnotations(uint32_t function_index, uint32_t kernel,
                                     std::string_view dictionary) {
  SLUICE_CHECK(function_index < functions_.size())
      << "function " << function_index << " was not declared";
  kernel_annotations_.push_back(function_index);
  kernel_annotations_.push_back(kernel);
  kernel_annotations_.push_back(AddString(dictionary));
}

std::vector<uint8_t> SbfWriter::Finish(bool include_optional_sections) const {
  std::vector<uint8_t> functions;
  std::vector<uint8_t> bodies;
  std::vector<uint8_t> register_types;
  AppendLe32(&functions, static_cast<uint32_t>(functions_.size()));
  for (uint32_t i = 0; i < functions_.size(); ++i) {
    const FunctionRecord& function = functions_[i];
    SLUICE_CHECK(function.kind == FunctionKind::kNative ||
                 function.body.has_value())
        << "function " << i << " was declared with a body but not defined";
    uint32_t body_offset = 0;
    uint32_t body_size = 0;
    if (function.body) {
      body_offset = static_cast<uint32_t>(bodies.size());
      EncodeBody(*function.body, &bodies);
      CheckFitsU32(bodies.size(), "FunctionBodies");
      body_size = static_cast<uint32_t>(bodies.size()) - body_offset;
      const BodyDescription& body = *function.body;
      AppendLe32(&register_types, body.num_registers);
      if (body.register_types.empty()) {
        for (uint32_t r = 0; r < body.num_registers; ++r) {
          AppendLe32(&register_types, kNone);
        }
      } else {
        AppendWords(&register_types, body.register_types);
      }
    }
    AppendLe32(&functions, function.name);
    AppendLe32(&functions, static_cast<uint32_t>(function.kind));
    AppendLe32(&functions,
               static_cast<uint32_t>(function.argument_types.size()));
    AppendLe32(&functions, static_cast<uint32_t>(function.result_types.size()));
    AppendLe32(&functions, body_offset);
    AppendLe32(&functions, body_size);
    AppendWords(&functions, function.argument_types);
    AppendWords(&functions, function.result_types);
  }

  std::vector<std::pair<SectionId, std::vector<uint8_t>>> sections;
  sections.emplace_back(SectionId::kStrings, strings_);
  sections.emplace_back(SectionId::kAttributes, attributes_);
  sections.emplace_back(SectionId::kTypes, EncodeTable(types_, 1));
  sections.emplace_back(SectionId::kKernelNames, EncodeTable(kernel_names_, 1));
  sections.emplace_back(SectionId::kFunctions, std::move(functions));
  sections.emplace_back(SectionId::kFunctionBodies, std::move(bodies));
  sections.emplace_back(SectionId::kLocations, EncodeTable(locations_, 4));
  if (include_optional_sections) {
    sections.emplace_back(SectionId::kRegisterTypes, std::move(register_types));
  }
  // Files without modules or annotations stay as they were before these
  // sections existed.
  if (!compiled_modules_.empty()) {
    sections.emplace_back(SectionId::kCompiledModules,
                          EncodeTable(compiled_modules_, 3));
  }
  const bool has_annotations = module_annotations_ != kNone ||
                               !function_annotations_.empty() ||
                               !kernel_annotations_.empty();
  if (include_optional_sections && has_annotations) {
    std::vector<uint8_t> annotations;
    AppendLe32(&annotations, module_annotations_);
    AppendLe32(&annotations, static_cast<uint32_t>(functions_.size()));
    for (uint32_t i = 0; i < functions_.size(); ++i) {
      AppendLe32(&annotations, i < function_annotations_.size()
                                   ? function_annotations_[i]
                                   : kNone);
    }
    AppendLe32(&annotations,
               static_cast<uint32_t>(kernel_annotations_.size() / 3));
    AppendWords(&annotations, kernel_annotations_);
    sections.emplace_back(SectionId::kAnnotations, std::move(annotations));
  }

  std::vector<uint8_t> file(kMagic, kMagic + 4);
  AppendLe32(&file, kVersion);
  AppendLe32(&file, static_cast<uint32_t>(sections.size()));
  AppendLe32(&file, 0);  // the checksum, once the rest is in place
  uint64_t offset = AlignTo(kHeaderSize + kSectionEntrySize * sections.size(),
                            kSectionAlignment);
  for (const auto& [id, bytes] : sections) {
    CheckFitsU32(offset + bytes.size(), "the file");
    AppendLe32(&file, static_cast<uint32_t>(id));
    AppendLe32(&file, static_cast<uint32_t>(offset));
    AppendLe32(&file, static_cast<uint32_t>(bytes.size()));
    offset = AlignTo(offset + bytes.size(), kSectionAlignment);
  }
  for (const auto& [id, bytes] : sections) {
    PadTo(&file, kSectionAlignment);
    file.insert(file.end(), bytes.begin(), bytes.end());
  }
  UpdateSbfChecksum(absl::MakeSpan(file));
  return file;
}

}  // namespace bef
}  // namespace sluice
