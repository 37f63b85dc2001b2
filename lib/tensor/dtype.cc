#include "sluice/tensor/dtype.h"

namespace sluice {

size_t DTypeSize(DType dtype) {
  return DispatchDType(dtype, [](auto element) { return sizeof(element); });
}

const char* DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kI1:
      return "i1";
    case DType::kI32:
      return "i32";
    case DType::kI64:
      return "i64";
    case DType::kF32:
      return "f32";
    case DType::kF64:
      return "f64";
  }
  return "f64";
}

std::optional<DType> ParseDType(std::string_view name) {
  if (name == "bool") return DType::kI1;
  for (int i = 0; i < kNumDTypes; ++i) {
    DType dtype = static_cast<DType>(i);
    if (name == DTypeName(dtype)) return dtype;
  }
  return std::nullopt;
}

std::optional<DType> DTypeFromByte(uint8_t byte) {
  if (byte >= kNumDTypes) return std::nullopt;
  return static_cast<DType>(byte);
}

}  // namespace sluice
