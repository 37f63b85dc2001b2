// Checks an op of a program against the signature of the kernel that runs
// it, and binds the op's attributes to the kernel's attribute parameters.
// Private to lib/executor.
#ifndef SLUICE_LIB_EXECUTOR_KERNEL_CONTRACT_H_
#define SLUICE_LIB_EXECUTOR_KERNEL_CONTRACT_H_

#include <string>
#include <string_view>
#include <vector>

#include "sluice/bef/sbf_reader.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {
namespace executor_internal {

// The attribute pointers the kernel receives, in the order its parameters
// take them (null for an optional attribute the op leaves out). Appends to
// `problems` one message for each way the op does not fit the kernel
// ("kernel 'x' takes 2 operands; the op has 1"), without the op's location,
// which the caller adds. Kernels without a signature receive the op's
// attributes as listed, unchecked.
std::vector<const void*> BindKernel(std::string_view kernel_name,
                                    const RegisteredKernel& kernel,
                                    const bef::SbfKernel& op,
                                    const bef::SbfProgram& program,
                                    std::vector<std::string>& problems);

}  // namespace executor_internal
}  // namespace sluice

#endif  // SLUICE_LIB_EXECUTOR_KERNEL_CONTRACT_H_
