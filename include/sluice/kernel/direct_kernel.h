// DirectKernel: a second way into a kernel that only computes, for the
// executor's fast path. SLUICE_KERNEL makes one when every parameter is a
// payload (a plain value or reference) or an attribute (Attribute<T>,
// StringAttribute, ArrayAttribute<T>) and the kernel returns one small,
// trivially copyable value (see kInlinePayload).
//
// Such a kernel needs no KernelFrame: the executor hands it the payloads'
// addresses and the place to write its result. When every reader of that
// result is such a kernel too and it is not returned, the place is the
// register itself: no AsyncValue is made for the value at all.
#ifndef SLUICE_KERNEL_DIRECT_KERNEL_H_
#define SLUICE_KERNEL_DIRECT_KERNEL_H_

#include <cstdint>
#include <type_traits>

#include "sluice/host_context/async_value.h"
#include "sluice/support/ref_count.h"

namespace sluice {

// Payload types a register holds in place of an AsyncValue: 8 bytes of
// storage, copied and dropped without running any code (trivially copyable
// types are trivially destructible too).
template <typename T>
inline constexpr bool kInlinePayload = std::is_trivially_copyable_v<T> &&
                                       sizeof(T) <= 8 && alignof(T) <= 8;

struct DirectKernel {
  // Reads operand i at operands[i] and attribute i at attributes[i] (the
  // kernel's attribute parameters, in order) and writes its result at
  // `result`: 8 bytes, 8-aligned.
  void (*run)(void* const* operands, const void* const* attributes,
              void* result);
  uint32_t num_operands;
  // The payload type each operand is read as, and the result's
  // (&ConcreteAsyncValue<T>::kTypeInfo): equal identities let the loader
  // keep a value in place between its producer and its readers.
  const internal::PayloadTypeInfo* const* operand_types;
  const internal::PayloadTypeInfo* result_type;
  // An available AsyncValue holding a copy of the payload at `payload`: of
  // the result's type, and of each operand's type (null for operand types
  // that are never kept in place).
  RCReference<AsyncValue> (*make_result)(const void* payload);
  RCReference<AsyncValue> (*const* make_operand)(const void* payload);
};

}  // namespace sluice

#endif  // SLUICE_KERNEL_DIRECT_KERNEL_H_
