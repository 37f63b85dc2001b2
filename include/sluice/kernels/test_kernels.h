// The test kernels (as TFRT defines them): `tfrt_test.*`, the
// value-lifetime kernels `vt.*`, the tutorial kernels `tfrt_tutorial.*`, and
// the built-in native functions.
#ifndef SLUICE_KERNELS_TEST_KERNELS_H_
#define SLUICE_KERNELS_TEST_KERNELS_H_

#include "sluice/kernel/kernel_registry.h"

namespace sluice {

// Registers every `tfrt_test.*`, `vt.*` and `tfrt_tutorial.*` kernel, and the
// native functions native_add, native_async_add, native_error, native_sink
// and native_async_sink.
absl::Status RegisterTestKernels(KernelRegistry* registry);

}  // namespace sluice

#endif  // SLUICE_KERNELS_TEST_KERNELS_H_
