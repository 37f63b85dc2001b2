// How sluice_run prints a function's results (the runner output format TFRT
// tests expect).
#ifndef SLUICE_TOOLS_SLUICE_RUN_VALUE_PRINTER_H_
#define SLUICE_TOOLS_SLUICE_RUN_VALUE_PRINTER_H_

#include <string>
#include <string_view>

#include "sluice/host_context/async_value.h"

namespace sluice {

// i1/i32/i64 as integers, f32/f64 as LLVM's raw_ostream prints a double,
// tensors, shapes and host buffers as their ToString() prints them
// (`DenseHostTensor dtype = i32, shape = [2], values = [1, 2]`, `[2]`,
// `HostBuffer<pointer=0x..., size=8>`), other types as `<type> value`, errors
// as `<<error: MESSAGE>>` (with
// `, code: CODE` when `print_error_code`). `value` must be available.
std::string FormatResult(const AsyncValue& value, std::string_view type,
                         bool print_error_code);

}  // namespace sluice

#endif  // SLUICE_TOOLS_SLUICE_RUN_VALUE_PRINTER_H_
