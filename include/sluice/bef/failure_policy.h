// How a failure policy (`on_failure = #tfrt_dist.retry<...>` or
// `#tfrt_dist.fallback<...>`) is laid out in a program: the SBF format has
// no dialect attributes, so the compiler writes the policy as an array of
// plain attributes, which kernels read without MLIR and the decompiler
// turns back into the dialect attribute. docs/format.md, "Failure policies".
//
//   [0] string   kRetryTag or kFallbackTag
//   [1] i64      attempts in all (1 for a fallback)
//   [2] array<i32> the FailureClass codes listed (`classes`), in order, or
//       unit where `classes` is left out and its default applies
//   [3] i64      milliseconds between attempts (0 for a fallback)
//   [4] symbol   the fallback function, or unit for none
#ifndef SLUICE_BEF_FAILURE_POLICY_H_
#define SLUICE_BEF_FAILURE_POLICY_H_

#include <cstddef>
#include <string_view>

namespace sluice {
namespace bef {

inline constexpr std::string_view kRetryTag = "tfrt_dist.retry";
inline constexpr std::string_view kFallbackTag = "tfrt_dist.fallback";

inline constexpr size_t kPolicyTag = 0;
inline constexpr size_t kPolicyMaxAttempts = 1;
inline constexpr size_t kPolicyClasses = 2;
inline constexpr size_t kPolicyBackoffMs = 3;
inline constexpr size_t kPolicyFallback = 4;
inline constexpr size_t kPolicySize = 5;

}  // namespace bef
}  // namespace sluice

#endif  // SLUICE_BEF_FAILURE_POLICY_H_
