// Constants of the Sluice binary format (SBF); see docs/format.md.
#ifndef SLUICE_BEF_FORMAT_H_
#define SLUICE_BEF_FORMAT_H_

#include <cstdint>

namespace sluice {
namespace bef {

inline constexpr uint8_t kMagic[4] = {0x53, 0x4C, 0x42, 0x46};  // "SLBF"
inline constexpr uint32_t kVersion = 2;
inline constexpr uint32_t kHeaderSize = 16;
// The header's u32 at this offset holds the CRC-32 of the whole file, read
// with the field itself as zero (see checksum.h).
inline constexpr uint32_t kChecksumOffset = 12;
inline constexpr uint32_t kSectionEntrySize = 12;
// A Locations entry: file, line, column, debug name.
inline constexpr uint32_t kLocationEntrySize = 16;
inline constexpr uint32_t kSectionAlignment = 8;
inline constexpr uint32_t kNone = 0xFFFFFFFF;
// Section ids with this bit set may be skipped by readers that do not know
// them.
inline constexpr uint32_t kOptionalSectionBit = 0x80000000;

// How deeply array attributes may nest: an array of scalars has depth 1, an
// array holding it depth 2. Kernels and the decompiler walk arrays
// recursively, so the reader refuses deeper ones before they can exhaust the
// stack.
inline constexpr uint32_t kMaxArrayNesting = 256;

enum class SectionId : uint32_t {
  kStrings = 1,
  kAttributes = 2,
  kTypes = 3,
  kKernelNames = 4,
  kFunctions = 5,
  kFunctionBodies = 6,
  kLocations = 7,
  kRegisterTypes = 0x80000001,
  // Nested `tfrt.compiled` modules, carried whole for kernels that compile
  // them at run time. Optional so that older readers skip it, but written
  // even without the other optional sections.
  kCompiledModules = 0x80000002,
  // Module, function and op attributes the kernels do not receive, for the
  // decompiler.
  kAnnotations = 0x80000003,
};

enum class AttributeType : uint32_t {
  kBool = 1,
  kI8 = 2,
  kI16 = 3,
  kI32 = 4,
  kI64 = 5,
  kUI8 = 6,
  kUI16 = 7,
  kUI32 = 8,
  kUI64 = 9,
  kF16 = 10,
  kBF16 = 11,
  kF32 = 12,
  kF64 = 13,
  kString = 14,
  kType = 15,
  kSymbol = 16,
  kArray = 17,
  kComplex64 = 18,
  kComplex128 = 19,
  kUnit = 20,
  // A tensor's elements and shape (MLIR's dense elements attributes): `u32`
  // element type code, `u32` rank, `u64` dimensions, then the elements.
  // The count is the data's size in bytes.
  kDenseElements = 21,
  // kDenseArrayBase + a scalar type's code: a dense array of that scalar.
  kDenseArrayBase = 0x100,
};

enum class FunctionKind : uint32_t {
  kFunction = 0,  // has a body; listed and runnable by name
  kRegion = 1,    // the body of a region op; never run on its own
  kNative = 2,    // implemented in C++, registered by name; no body
};

// Bytes per element of an attribute type, or 0 for an unknown code. Unit
// has no elements and reports 1 so that callers never divide by zero.
uint32_t AttributeElementSize(AttributeType type);

// "i32", "string", "dense<f32>", ... for messages.
const char* AttributeTypeName(AttributeType type);

// Bytes per element of a dense elements attribute whose elements have type
// `element_type` (a scalar, or a complex number counted as one element), or
// 0 for a type such an attribute cannot hold.
uint32_t DenseElementSize(AttributeType element_type);

// Bytes before a dense elements attribute's dimensions: the element type
// code and the rank.
inline constexpr uint32_t kDenseElementsHeaderSize = 8;

}  // namespace bef
}  // namespace sluice

#endif  // SLUICE_BEF_FORMAT_H_
