// Program output: what kernels such as tfrt.print.i32 write to stdout.
#ifndef SLUICE_SUPPORT_PRINT_H_
#define SLUICE_SUPPORT_PRINT_H_

#include <string_view>

namespace sluice {

// Writes `line` and a newline to stdout as one unit (lines from concurrent
// kernels never interleave) and flushes, so output appears in order with
// the runner's own lines and survives a crash.
void PrintLine(std::string_view line);

}  // namespace sluice

#endif  // SLUICE_SUPPORT_PRINT_H_
