// What a kernel plugin exports: a shared library that `sluice_run` and
// `sluice_worker` load with --kernel_plugin=path.so to add its kernels to
// their registry (see docs/kernels.md).
//
// A plugin defines exactly one function, with C linkage so that the tools
// find it by this plain name:
//
//   extern "C" void SluiceRegisterKernels(sluice::KernelRegistry* registry,
//                                         absl::Status* status);
//
// It adds its kernels to `registry` and leaves `*status` OK, or sets
// `*status` to why it could not. Only pointers cross the boundary; the
// status is the host's, so no object changes hands between allocators.
// SLUICE_KERNEL_PLUGIN(fn) defines it from a usual registration function,
// `absl::Status fn(sluice::KernelRegistry*)`.
//
// A plugin links none of Sluice's libraries: it is built against their
// headers (//tools:kernel_plugin_api) and uses the code of the tool that
// loads it, which exports its symbols for that purpose. Build it with the
// same compiler, flags and Sluice sources as the tool.
#ifndef SLUICE_TOOLS_KERNEL_PLUGIN_H_
#define SLUICE_TOOLS_KERNEL_PLUGIN_H_

#include "absl/status/status.h"
#include "sluice/kernel/kernel_registry.h"

// The name of the function every plugin exports.
#define SLUICE_KERNEL_PLUGIN_SYMBOL "SluiceRegisterKernels"

using SluiceRegisterKernelsFn = void (*)(sluice::KernelRegistry* registry,
                                         absl::Status* status);

#define SLUICE_KERNEL_PLUGIN(register_fn)                 \
  extern "C" __attribute__((visibility("default"))) void  \
  SluiceRegisterKernels(sluice::KernelRegistry* registry, \
                        absl::Status* status) {           \
    *status = register_fn(registry);                      \
  }                                                       \
  static_assert(true, "SLUICE_KERNEL_PLUGIN needs a trailing semicolon")

#endif  // SLUICE_TOOLS_KERNEL_PLUGIN_H_
