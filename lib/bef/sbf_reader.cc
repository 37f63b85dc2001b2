#include "sluice/bef/sbf_reader.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "lib/bef/byte_reader.h"
#include "lib/bef/format_internal.h"
#include "lib/bef/reader_internal.h"
#include "sluice/bef/checksum.h"
#include "sluice/bef/format.h"
#include "sluice/support/logging.h"
#include "sluice/support/utf8.h"

namespace sluice {
namespace bef {
namespace {

using internal::ByteReader;
using internal::DescribeFunction;
using internal::LoadLe32;
using internal::ReaderContext;
using internal::SbfErrorF;
using internal::SectionName;
using internal::SectionRange;

constexpr std::array<SectionId, 10> kKnownSections = {
    SectionId::kStrings,         SectionId::kAttributes,
    SectionId::kTypes,           SectionId::kKernelNames,
    SectionId::kFunctions,       SectionId::kFunctionBodies,
    SectionId::kLocations,       SectionId::kRegisterTypes,
    SectionId::kCompiledModules, SectionId::kAnnotations,
};

// Index into kKnownSections, or -1.
int KnownSectionIndex(uint32_t id) {
  for (size_t i = 0; i < kKnownSections.size(); ++i) {
    if (static_cast<uint32_t>(kKnownSections[i]) == id) return i;
  }
  return -1;
}

struct SectionEntry {
  uint32_t id;
  uint32_t offset;
  uint32_t size;
  uint32_t entry_offset;  // where the entry is in the section table
};

using Sections = std::array<SectionRange, kKnownSections.size()>;

const SectionRange& Get(const Sections& sections, SectionId id) {
  return sections[KnownSectionIndex(static_cast<uint32_t>(id))];
}

ByteReader SectionReader(absl::Span<const uint8_t> file,
                         const Sections& sections, SectionId id) {
  const SectionRange& range = Get(sections, id);
  return ByteReader(file, SectionName(static_cast<uint32_t>(id)), range.offset,
                    range.offset + range.size);
}

absl::Status ReadHeader(absl::Span<const uint8_t> file,
                        uint32_t* section_count) {
  if (file.size() < kHeaderSize) {
    return SbfErrorF("Header", 0,
                     "file has %d bytes, fewer than the %d-byte header",
                     file.size(), kHeaderSize);
  }
  if (!HasSbfMagic(file)) {
    return SbfErrorF("Header", 0,
                     "bad magic %02x %02x %02x %02x, expected 53 4c 42 46 "
                     "(\"SLBF\")",
                     file[0], file[1], file[2], file[3]);
  }
  const uint32_t version = LoadLe32(file.data() + 4);
  if (version != kVersion) {
    return SbfErrorF("Header", 4,
                     "unsupported version %d (this reader reads version %d)",
                     version, kVersion);
  }
  // Before any other field is believed: a damaged file must be refused as
  // damaged, not read as a different, still valid program.
  const uint32_t stored = StoredSbfChecksum(file);
  const uint32_t computed = ComputeSbfChecksum(file);
  if (stored != computed) {
    return SbfErrorF("Header", kChecksumOffset,
                     "checksum mismatch (header says 0x%08x, contents give "
                     "0x%08x): the file is corrupt or was changed after it "
                     "was written",
                     stored, computed);
  }
  *section_count = LoadLe32(file.data() + 8);
  const uint64_t table_end =
      kHeaderSize + uint64_t{kSectionEntrySize} * *section_count;
  if (table_end > file.size()) {
    return SbfErrorF("Header", 8,
                     "section table of %d entries needs %d bytes but the file "
                     "has %d",
                     *section_count, table_end, file.size());
  }
  return absl::OkStatus();
}

std::string DescribeSection(uint32_t id) {
  if (KnownSectionIndex(id) >= 0) {
    return absl::StrFormat("%s (id 0x%x)", SectionName(id), id);
  }
  return absl::StrFormat("id 0x%x", id);
}

absl::Status ReadSectionTable(absl::Span<const uint8_t> file, uint32_t count,
                              Sections* sections) {
  const uint64_t table_end = kHeaderSize + uint64_t{kSectionEntrySize} * count;
  std::vector<SectionEntry> entries(count);
  for (uint32_t i = 0; i < count; ++i) {
    SectionEntry& entry = entries[i];
    entry.entry_offset = kHeaderSize + kSectionEntrySize * i;
    const uint8_t* p = file.data() + entry.entry_offset;
    entry.id = LoadLe32(p);
    entry.offset = LoadLe32(p + 4);
    entry.size = LoadLe32(p + 8);
    const std::string name = DescribeSection(entry.id);
    if (KnownSectionIndex(entry.id) < 0 &&
        (entry.id & kOptionalSectionBit) == 0) {
      return SbfErrorF("SectionTable", entry.entry_offset,
                       "unknown required section id 0x%x", entry.id);
    }
    if (entry.offset % kSectionAlignment != 0) {
      return SbfErrorF("SectionTable", entry.entry_offset + 4,
                       "section %s starts at offset %d, not a multiple of %d",
                       name, entry.offset, kSectionAlignment);
    }
    if (entry.offset < table_end) {
      return SbfErrorF("SectionTable", entry.entry_offset + 4,
                       "section %s starts at offset %d, inside the header or "
                       "section table (which end at %d)",
                       name, entry.offset, table_end);
    }
    if (uint64_t{entry.offset} + entry.size > file.size()) {
      return SbfErrorF("SectionTable", entry.entry_offset + 8,
                       "section %s at [%d, %d) runs past the end of the "
                       "%d-byte file",
                       name, entry.offset, uint64_t{entry.offset} + entry.size,
                       file.size());
    }
  }

  // Sorting keeps duplicate and overlap checks linear-logarithmic for
  // tables of any length.
  std::vector<SectionEntry> by_id = entries;
  std::sort(by_id.begin(), by_id.end(), [](const auto& a, const auto& b) {
    return a.id != b.id ? a.id < b.id : a.entry_offset < b.entry_offset;
  });
  for (size_t i = 1; i < by_id.size(); ++i) {
    if (by_id[i].id == by_id[i - 1].id) {
      return SbfErrorF("SectionTable", by_id[i].entry_offset,
                       "duplicate section %s (first listed at offset %d)",
                       DescribeSection(by_id[i].id), by_id[i - 1].entry_offset);
    }
  }
  std::vector<SectionEntry> by_offset;
  for (const SectionEntry& entry : entries) {
    // An empty section holds no bytes, so it cannot overlap anything.
    if (entry.size != 0) by_offset.push_back(entry);
  }
  std::sort(by_offset.begin(), by_offset.end(),
            [](const auto& a, const auto& b) { return a.offset < b.offset; });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    const SectionEntry& previous = by_offset[i - 1];
    const SectionEntry& entry = by_offset[i];
    if (uint64_t{previous.offset} + previous.size > entry.offset) {
      return SbfErrorF("SectionTable", entry.entry_offset + 4,
                       "section %s at [%d, %d) overlaps section %s at [%d, %d)",
                       DescribeSection(entry.id), entry.offset,
                       uint64_t{entry.offset} + entry.size,
                       DescribeSection(previous.id), previous.offset,
                       uint64_t{previous.offset} + previous.size);
    }
  }

  for (const SectionEntry& entry : entries) {
    const int index = KnownSectionIndex(entry.id);
    if (index >= 0) (*sections)[index] = {true, entry.offset, entry.size};
  }
  for (size_t i = 0; i < kKnownSections.size(); ++i) {
    const uint32_t id = static_cast<uint32_t>(kKnownSections[i]);
    if ((id & kOptionalSectionBit) == 0 && !(*sections)[i].present) {
      return SbfErrorF("SectionTable", kHeaderSize,
                       "missing required section %s", DescribeSection(id));
    }
  }
  return absl::OkStatus();
}

// Types and KernelNames: a count, then string references.
absl::Status ReadNameTable(absl::Span<const uint8_t> file,
                           const Sections& sections, SectionId id,
                           const internal::StringTable& strings,
                           std::vector<std::string_view>* names) {
  ByteReader reader = SectionReader(file, sections, id);
  uint32_t count = 0;
  std::vector<uint32_t> references;
  SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("entry count", &count));
  const uint32_t at = reader.offset();
  SLUICE_BEF_RETURN_IF_ERROR(
      reader.ReadU32Array("string references", count, &references));
  names->resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    SLUICE_BEF_RETURN_IF_ERROR(
        strings.Resolve(reader, at + 4 * i, references[i], &(*names)[i]));
  }
  return reader.CheckAtEnd("the last entry");
}

// Validates and decodes every entry. LocationAt decodes one again later,
// trusting this validation.
absl::Status ReadLocations(const ReaderContext& context,
                           const Sections& sections, SbfProgram* program) {
  const SectionRange& range = Get(sections, SectionId::kLocations);
  ByteReader reader =
      SectionReader(context.file, sections, SectionId::kLocations);
  uint32_t count = 0;
  SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("location count", &count));
  SLUICE_BEF_RETURN_IF_ERROR(
      reader.CheckCountFits("locations", count, kLocationEntrySize));
  program->locations.resize(count);
  for (SbfLocation& location : program->locations) {
    const uint32_t at = reader.offset();
    location.record = context.file.data() + at;
    uint32_t file = 0;
    uint32_t debug_name = 0;
    bool has_file = false;
    SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("file", &file));
    SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("line", &location.line));
    SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("column", &location.column));
    SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("debug name", &debug_name));
    SLUICE_BEF_RETURN_IF_ERROR(context.strings.ResolveOptional(
        reader, at, file, &has_file, &location.file));
    SLUICE_BEF_RETURN_IF_ERROR(context.strings.ResolveOptional(
        reader, at + 12, debug_name, &location.has_debug_name,
        &location.debug_name));
  }
  SLUICE_BEF_RETURN_IF_ERROR(reader.CheckAtEnd("the last location"));
  program->locations_section = context.file.subspan(range.offset, range.size);
  return absl::OkStatus();
}

struct BodyRange {
  uint32_t offset = 0;
  uint32_t size = 0;
};

absl::Status ReadFunctions(const ReaderContext& context,
                           const Sections& sections, uint32_t num_types,
                           std::vector<SbfFunction>* functions,
                           std::vector<BodyRange>* bodies) {
  ByteReader reader =
      SectionReader(context.file, sections, SectionId::kFunctions);
  uint32_t count = 0;
  SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("function count", &count));
  // Six u32 fields at least per function.
  SLUICE_BEF_RETURN_IF_ERROR(reader.CheckCountFits("functions", count, 24));
  functions->resize(count);
  bodies->resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    SbfFunction& function = (*functions)[i];
    BodyRange& body = (*bodies)[i];
    const uint32_t at = reader.offset();
    uint32_t name = 0;
    uint32_t kind = 0;
    uint32_t num_arguments = 0;
    uint32_t num_results = 0;
    SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("name", &name));
    SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("kind", &kind));
    SLUICE_BEF_RETURN_IF_ERROR(
        reader.ReadU32("argument count", &num_arguments));
    SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("result count", &num_results));
    SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("body offset", &body.offset));
    SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("body size", &body.size));
    SLUICE_BEF_RETURN_IF_ERROR(
        context.strings.Resolve(reader, at, name, &function.name));
    // A worker sends its functions' names in protobuf string fields, which
    // a peer cannot parse unless they are UTF-8.
    if (absl::Status utf8 =
            CheckUtf8(absl::StrFormat("function #%d's name", i), function.name);
        !utf8.ok()) {
      return reader.Error(at, "%s", utf8.message());
    }
    const std::string described = DescribeFunction(i, function.name);
    if (kind > static_cast<uint32_t>(FunctionKind::kNative)) {
      return reader.Error(at + 4, "function %s has unknown kind %d", described,
                          kind);
    }
    function.kind = static_cast<FunctionKind>(kind);
    auto read_types = [&](const char* what, uint32_t n,
                          std::vector<uint32_t>* types) -> absl::Status {
      const uint32_t types_at = reader.offset();
      SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32Array(what, n, types));
      for (uint32_t t = 0; t < n; ++t) {
        if ((*types)[t] >= num_types) {
          return reader.Error(types_at + 4 * t,
                              "function %s names type %d but Types has %d "
                              "entries",
                              described, (*types)[t], num_types);
        }
      }
      return absl::OkStatus();
    };
    SLUICE_BEF_RETURN_IF_ERROR(
        read_types("argument types", num_arguments, &function.argument_types));
    SLUICE_BEF_RETURN_IF_ERROR(
        read_types("result types", num_results, &function.result_types));
    if (function.kind == FunctionKind::kNative) {
      if (body.offset != 0 || body.size != 0) {
        return reader.Error(at + 16,
                            "native function %s has a body (offset %d, size "
                            "%d); native functions have none",
                            described, body.offset, body.size);
      }
      continue;
    }
    if (body.offset % 4 != 0) {
      return reader.Error(at + 16,
                          "body of function %s starts at FunctionBodies "
                          "offset %d, not a multiple of 4",
                          described, body.offset);
    }
    if (uint64_t{body.offset} + body.size > context.bodies.size) {
      return reader.Error(at + 16,
                          "body of function %s at [%d, %d) runs past the end "
                          "of FunctionBodies (%d bytes)",
                          described, body.offset,
                          uint64_t{body.offset} + body.size,
                          context.bodies.size);
    }
  }
  return reader.CheckAtEnd("the last function");
}

absl::Status ReadRegisterTypes(absl::Span<const uint8_t> file,
                               const Sections& sections, uint32_t num_types,
                               std::vector<SbfFunction>* functions) {
  ByteReader reader = SectionReader(file, sections, SectionId::kRegisterTypes);
  for (uint32_t i = 0; i < functions->size(); ++i) {
    SbfFunction& function = (*functions)[i];
    if (function.kind == FunctionKind::kNative) continue;
    const uint32_t at = reader.offset();
    uint32_t count = 0;
    SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("register type count", &count));
    if (count != function.num_registers) {
      return reader.Error(at,
                          "lists %d register types for function %s, which "
                          "has %d registers",
                          count, DescribeFunction(i, function.name),
                          function.num_registers);
    }
    const uint32_t types_at = reader.offset();
    SLUICE_BEF_RETURN_IF_ERROR(
        reader.ReadU32Array("register types", count, &function.register_types));
    for (uint32_t r = 0; r < count; ++r) {
      const uint32_t type = function.register_types[r];
      if (type != kNone && type >= num_types) {
        return reader.Error(types_at + 4 * r,
                            "register %d of function %s has type %d but "
                            "Types has %d entries",
                            r, DescribeFunction(i, function.name), type,
                            num_types);
      }
    }
  }
  return reader.CheckAtEnd("the last function's register types");
}

absl::Status ReadCompiledModules(const ReaderContext& context,
                                 const Sections& sections,
                                 uint32_t num_functions,
                                 std::vector<SbfCompiledModule>* modules) {
  ByteReader reader =
      SectionReader(context.file, sections, SectionId::kCompiledModules);
  uint32_t count = 0;
  SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("module count", &count));
  SLUICE_BEF_RETURN_IF_ERROR(reader.CheckCountFits("modules", count, 12));
  modules->resize(count);
  for (SbfCompiledModule& module : *modules) {
    const uint32_t at = reader.offset();
    uint32_t name = 0;
    uint32_t text = 0;
    SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("name", &name));
    SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("position", &module.position));
    SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("text", &text));
    SLUICE_BEF_RETURN_IF_ERROR(
        context.strings.Resolve(reader, at, name, &module.name));
    SLUICE_BEF_RETURN_IF_ERROR(
        context.strings.Resolve(reader, at + 8, text, &module.text));
    if (module.position > num_functions) {
      return reader.Error(at + 4, "module position %d is past the %d functions",
                          module.position, num_functions);
    }
  }
  return reader.CheckAtEnd("the last module");
}

absl::Status ReadAnnotations(const ReaderContext& context,
                             const Sections& sections,
                             const std::vector<SbfFunction>& functions,
                             SbfAnnotations* annotations) {
  ByteReader reader =
      SectionReader(context.file, sections, SectionId::kAnnotations);
  uint32_t reference = 0;
  bool present = false;
  uint32_t at = reader.offset();
  SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("module attributes", &reference));
  SLUICE_BEF_RETURN_IF_ERROR(context.strings.ResolveOptional(
      reader, at, reference, &present, &annotations->module_attributes));
  uint32_t count = 0;
  at = reader.offset();
  SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("function count", &count));
  if (count != functions.size()) {
    return reader.Error(at, "lists %d functions, but Functions has %d", count,
                        functions.size());
  }
  annotations->function_attributes.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    at = reader.offset();
    SLUICE_BEF_RETURN_IF_ERROR(
        reader.ReadU32("function attributes", &reference));
    SLUICE_BEF_RETURN_IF_ERROR(context.strings.ResolveOptional(
        reader, at, reference, &present, &annotations->function_attributes[i]));
  }
  SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("kernel entry count", &count));
  SLUICE_BEF_RETURN_IF_ERROR(
      reader.CheckCountFits("kernel entries", count, 12));
  annotations->kernels.resize(count);
  for (SbfKernelAnnotation& entry : annotations->kernels) {
    at = reader.offset();
    SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("function", &entry.function));
    SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("kernel", &entry.kernel));
    SLUICE_BEF_RETURN_IF_ERROR(reader.ReadU32("attributes", &reference));
    if (entry.function >= functions.size() ||
        entry.kernel >= functions[entry.function].kernels.size()) {
      return reader.Error(at, "no kernel %d in function %d", entry.kernel,
                          entry.function);
    }
    SLUICE_BEF_RETURN_IF_ERROR(
        context.strings.Resolve(reader, at + 8, reference, &entry.attributes));
  }
  return reader.CheckAtEnd("the last kernel entry");
}

}  // namespace

SbfAttribute SbfProgram::GetAttribute(uint32_t reference) const {
  SLUICE_CHECK(reference % 8 == 0 && reference >= 8 &&
               reference <= attributes_section.size())
      << "attribute reference " << reference << " outside a "
      << attributes_section.size() << "-byte Attributes section";
  const uint8_t* data = attributes_section.data() + reference;
  return SbfAttribute{static_cast<AttributeType>(LoadLe32(data - 8)),
                      LoadLe32(data - 4), data};
}

const void* SbfProgram::AttributeData(uint32_t reference) const {
  return GetAttribute(reference).data;
}

SbfLocation SbfProgram::LocationAt(uint32_t index) const {
  SLUICE_CHECK(4 + (uint64_t{index} + 1) * kLocationEntrySize <=
               locations_section.size())
      << "location " << index << " outside a " << locations_section.size()
      << "-byte Locations section";
  const uint8_t* entry =
      locations_section.data() + 4 + size_t{index} * kLocationEntrySize;
  // ReadSbf checked that each reference ends in a NUL inside Strings.
  auto string_at = [this](uint32_t reference) {
    const char* text =
        reinterpret_cast<const char*>(strings_section.data()) + reference;
    return std::string_view(text,
                            strnlen(text, strings_section.size() - reference));
  };
  SbfLocation location;
  location.record = entry;
  const uint32_t file = LoadLe32(entry);
  if (file != kNone) location.file = string_at(file);
  location.line = LoadLe32(entry + 4);
  location.column = LoadLe32(entry + 8);
  const uint32_t debug_name = LoadLe32(entry + 12);
  location.has_debug_name = debug_name != kNone;
  if (location.has_debug_name) location.debug_name = string_at(debug_name);
  return location;
}

bool HasSbfMagic(absl::Span<const uint8_t> bytes) {
  return bytes.size() >= sizeof(kMagic) &&
         std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) == 0;
}

absl::StatusOr<SbfProgram> ReadSbf(absl::Span<const uint8_t> bytes) {
  if (reinterpret_cast<uintptr_t>(bytes.data()) % kSectionAlignment != 0) {
    return absl::InvalidArgumentError(
        "sbf bytes must start at an 8-aligned address: copy them into an "
        "aligned buffer before reading");
  }
  uint32_t section_count = 0;
  SLUICE_BEF_RETURN_IF_ERROR(ReadHeader(bytes, &section_count));
  Sections sections;
  SLUICE_BEF_RETURN_IF_ERROR(ReadSectionTable(bytes, section_count, &sections));

  SbfProgram program;
  ReaderContext context;
  context.file = bytes;
  context.bodies = Get(sections, SectionId::kFunctionBodies);
  const SectionRange& strings = Get(sections, SectionId::kStrings);
  context.strings.Init(bytes, strings);
  program.strings_section = bytes.subspan(strings.offset, strings.size);
  SLUICE_BEF_RETURN_IF_ERROR(ReadNameTable(bytes, sections, SectionId::kTypes,
                                           context.strings, &program.types));
  SLUICE_BEF_RETURN_IF_ERROR(
      ReadNameTable(bytes, sections, SectionId::kKernelNames, context.strings,
                    &program.kernel_names));
  SLUICE_BEF_RETURN_IF_ERROR(ReadLocations(context, sections, &program));
  const uint32_t num_types = static_cast<uint32_t>(program.types.size());
  std::vector<BodyRange> bodies;
  SLUICE_BEF_RETURN_IF_ERROR(
      ReadFunctions(context, sections, num_types, &program.functions, &bodies));
  context.num_kernel_names = static_cast<uint32_t>(program.kernel_names.size());
  context.num_locations = static_cast<uint32_t>(program.locations.size());
  context.num_functions = static_cast<uint32_t>(program.functions.size());
  const SectionRange& attributes = Get(sections, SectionId::kAttributes);
  SLUICE_BEF_RETURN_IF_ERROR(context.attributes.Read(
      bytes, attributes, num_types, context.num_functions));
  program.attributes_section =
      bytes.subspan(attributes.offset, attributes.size);

  for (uint32_t i = 0; i < program.functions.size(); ++i) {
    if (program.functions[i].kind == FunctionKind::kNative) continue;
    SLUICE_BEF_RETURN_IF_ERROR(internal::ReadFunctionBody(
        context, i, bodies[i].offset, bodies[i].size, &program.functions[i]));
  }
  if (Get(sections, SectionId::kRegisterTypes).present) {
    SLUICE_BEF_RETURN_IF_ERROR(
        ReadRegisterTypes(bytes, sections, num_types, &program.functions));
    program.has_register_types = true;
  }
  if (Get(sections, SectionId::kCompiledModules).present) {
    SLUICE_BEF_RETURN_IF_ERROR(ReadCompiledModules(
        context, sections, context.num_functions, &program.compiled_modules));
  }
  if (Get(sections, SectionId::kAnnotations).present) {
    SLUICE_BEF_RETURN_IF_ERROR(ReadAnnotations(
        context, sections, program.functions, &program.annotations));
    program.has_annotations = true;
  }
  return program;
}

}  // namespace bef
}  // namespace sluice
