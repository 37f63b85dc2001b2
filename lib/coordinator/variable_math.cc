#include "lib/coordinator/variable_math.h"

#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "sluice/coordinator/variables.h"

namespace sluice::dist {
namespace {

// Element i of bytes that may sit at any address (a message's).
template <typename T>
T Load(const char* data, size_t i) {
  T value;
  std::memcpy(&value, data + i * sizeof(T), sizeof(T));
  return value;
}

template <typename T>
void Add(T* var, const char* delta, size_t n) {
  if constexpr (std::is_integral_v<T>) {
    // Through the unsigned type: wrapping around is defined there.
    using U = std::make_unsigned_t<T>;
    for (size_t i = 0; i < n; ++i) {
      var[i] = static_cast<T>(static_cast<U>(var[i]) +
                              static_cast<U>(Load<T>(delta, i)));
    }
  } else {
    for (size_t i = 0; i < n; ++i) var[i] += Load<T>(delta, i);
  }
}

template <typename T>
void Sgd(T* var, const char* gradient, size_t n, T learning_rate) {
  for (size_t i = 0; i < n; ++i) {
    var[i] -= learning_rate * Load<T>(gradient, i);
  }
}

template <typename T>
void Adam(T* var, T* m, T* v, const char* gradient, size_t n,
          const AdamStep& step) {
  const T one_minus_beta1 = static_cast<T>(1 - step.beta1);
  const T one_minus_beta2 = static_cast<T>(1 - step.beta2);
  const T step_size = static_cast<T>(step.step_size);
  const T epsilon = static_cast<T>(step.epsilon);
  for (size_t i = 0; i < n; ++i) {
    const T g = Load<T>(gradient, i);
    m[i] += one_minus_beta1 * (g - m[i]);
    v[i] += one_minus_beta2 * (g * g - v[i]);
    var[i] -= step_size * m[i] / (std::sqrt(v[i]) + epsilon);
  }
}

}  // namespace

void AddInto(DType dtype, void* var, const char* delta, size_t n) {
  switch (dtype) {
    case DType::kI32:
      return Add(static_cast<int32_t*>(var), delta, n);
    case DType::kI64:
      return Add(static_cast<int64_t*>(var), delta, n);
    case DType::kF32:
      return Add(static_cast<float*>(var), delta, n);
    case DType::kF64:
      return Add(static_cast<double*>(var), delta, n);
    case DType::kI1:
      break;
  }
}

void SgdInto(DType dtype, void* var, const char* gradient, size_t n,
             double learning_rate) {
  if (dtype == DType::kF32) {
    Sgd(static_cast<float*>(var), gradient, n,
        static_cast<float>(learning_rate));
  } else if (dtype == DType::kF64) {
    Sgd(static_cast<double*>(var), gradient, n, learning_rate);
  }
}

double AdamStepSize(double learning_rate, double beta1, double beta2,
                    int64_t t) {
  const double power = static_cast<double>(t);
  return learning_rate * std::sqrt(1 - std::pow(beta2, power)) /
         (1 - std::pow(beta1, power));
}

void AdamInto(DType dtype, void* var, void* m, void* v, const char* gradient,
              size_t n, const AdamStep& step) {
  if (dtype == DType::kF32) {
    Adam(static_cast<float*>(var), static_cast<float*>(m),
         static_cast<float*>(v), gradient, n, step);
  } else if (dtype == DType::kF64) {
    Adam(static_cast<double*>(var), static_cast<double*>(m),
         static_cast<double*>(v), gradient, n, step);
  }
}

namespace {

// The first element of `data` that `ok` refuses, described; OK when none.
template <typename T, typename Accept>
absl::Status CheckElements(const char* data, size_t n, std::string_view role,
                           std::string_view rule, Accept ok) {
  for (size_t i = 0; i < n; ++i) {
    const T element = Load<T>(data, i);
    if (!ok(element)) {
      return absl::InvalidArgumentError(
          absl::StrCat("the ", std::string(role), "'s element ", i, " is ",
                       element, ", not ", std::string(rule)));
    }
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status CheckMoments(const char* m, const char* v, size_t n) {
  absl::Status first = CheckElements<T>(m, n, "first moment", "finite",
                                        [](T x) { return std::isfinite(x); });
  if (!first.ok()) return first;
  return CheckElements<T>(v, n, "second moment", "finite and at least 0",
                          [](T x) { return std::isfinite(x) && x >= 0; });
}

}  // namespace

absl::Status CheckAdamState(int64_t step, DType dtype, const char* m,
                            const char* v, size_t n) {
  if (step < 1 || step > kMaxAdamStep) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the step is ", step, ", not in [1, 2^53 = ", kMaxAdamStep, "]"));
  }
  switch (dtype) {
    case DType::kF32:
      return CheckMoments<float>(m, v, n);
    case DType::kF64:
      return CheckMoments<double>(m, v, n);
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("Adam's state is f32 or f64, not ", DTypeName(dtype)));
  }
}

}  // namespace sluice::dist
