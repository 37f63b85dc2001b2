#include "tools/sluice_run/value_printer.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "llvm/Support/raw_ostream.h"
#include "sluice/support/error_util.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/host_buffer.h"
#include "sluice/tensor/tensor_shape.h"

namespace sluice {

std::string FormatResult(const AsyncValue& value, std::string_view type,
                         bool print_error_code) {
  if (value.IsError()) {
    const absl::Status& error = value.GetError();
    std::string text = absl::StrCat("<<error: ", std::string(error.message()));
    if (print_error_code) {
      absl::StrAppend(&text, ", code: ", StatusCodeName(error.code()));
    }
    return text + ">>";
  }
  if (type == "i1") return value.get<bool>() ? "1" : "0";
  if (type == "i32") return absl::StrCat(value.get<int32_t>());
  if (type == "i64") return absl::StrCat(value.get<int64_t>());
  if (type == "f32" || type == "f64") {
    const double number =
        type == "f32" ? value.get<float>() : value.get<double>();
    std::string text;
    llvm::raw_string_ostream os(text);
    os << number;
    return os.str();
  }
  // A value of another payload than its type promises (a kernel of another
  // library may produce one) falls through to the generic form.
  if (type == "!t.tensor" && value.IsType<DenseHostTensor>()) {
    return value.get<DenseHostTensor>().ToString();
  }
  if (type == "!ts.shape" && value.IsType<TensorShape>()) {
    return value.get<TensorShape>().ToString();
  }
  if (type == "!ht.host_buffer" && value.IsType<RCReference<HostBuffer>>()) {
    return value.get<RCReference<HostBuffer>>()->ToString();
  }
  return absl::StrCat(std::string(type), " value");
}

}  // namespace sluice
