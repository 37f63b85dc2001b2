// Checks that text is well-formed UTF-8 before it goes where only UTF-8 may
// go: protobuf refuses to serialize or parse a proto3 `string` field that
// is not (a worker's function names reach RegisterProgramResponse and
// ExecuteRequest), and MLIR prints names as text.
#ifndef SLUICE_SUPPORT_UTF8_H_
#define SLUICE_SUPPORT_UTF8_H_

#include <cstddef>
#include <optional>
#include <string_view>

#include "absl/status/status.h"

namespace sluice {

// The offset of the first byte of the first sequence in `text` that is not
// well-formed UTF-8 (Unicode's definition, which protobuf applies: no
// overlong forms, no surrogates, nothing above U+10FFFF, no sequence cut
// short), or nullopt when all of it is.
std::optional<size_t> FindInvalidUtf8(std::string_view text);

// OK for well-formed UTF-8; otherwise InvalidArgument naming `what` and the
// first bad byte, the text escaped so the message is UTF-8 itself:
// `function name "f\xff" is not valid UTF-8 (byte 0xff at offset 1)`.
absl::Status CheckUtf8(std::string_view what, std::string_view text);

}  // namespace sluice

#endif  // SLUICE_SUPPORT_UTF8_H_
