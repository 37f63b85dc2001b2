// The element types a dense host tensor can hold, and the C++ type of each.
#ifndef SLUICE_TENSOR_DTYPE_H_
#define SLUICE_TENSOR_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace sluice {

// The numbering is part of the wire and checkpoint formats: append only.
enum class DType : uint8_t {
  kI1 = 0,  // stored as one byte per element, 0 or 1
  kI32 = 1,
  kI64 = 2,
  kF32 = 3,
  kF64 = 4,
};

inline constexpr int kNumDTypes = 5;

// Bytes per element.
size_t DTypeSize(DType dtype);

// The MLIR spelling: "i1", "i32", "i64", "f32", "f64".
const char* DTypeName(DType dtype);

// Parses an MLIR spelling; "bool" is read as i1, as TFRT's op names spell it.
std::optional<DType> ParseDType(std::string_view name);

// A wire or file byte that names a dtype, or nullopt.
std::optional<DType> DTypeFromByte(uint8_t byte);

// The dtype of a C++ element type.
template <typename T>
constexpr DType DTypeOf() {
  if constexpr (std::is_same_v<T, bool>) {
    return DType::kI1;
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return DType::kI32;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return DType::kI64;
  } else if constexpr (std::is_same_v<T, float>) {
    return DType::kF32;
  } else {
    static_assert(std::is_same_v<T, double>,
                  "tensors hold bool, int32_t, int64_t, float or double");
    return DType::kF64;
  }
}

// Calls `f(T{})` with the C++ element type of `dtype`, for code written once
// for every dtype.
template <typename F>
decltype(auto) DispatchDType(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kI1:
      return f(bool{});
    case DType::kI32:
      return f(int32_t{});
    case DType::kI64:
      return f(int64_t{});
    case DType::kF32:
      return f(float{});
    case DType::kF64:
      break;
  }
  return f(double{});
}

}  // namespace sluice

#endif  // SLUICE_TENSOR_DTYPE_H_
