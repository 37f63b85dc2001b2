// A check of `.mlir` text that runs before MLIR's parser sees it. The parser
// (and the verifier, passes, emitter and printer after it) recurse once per
// level of nesting, so a program nested thousands of levels deep would
// overflow the stack of every tool. Each Sluice entry point that parses text
// (CompileMlirToSbf, sluice_translate, sluice_opt) refuses such a program
// first, with an error at the bracket that crosses the limit.
#ifndef SLUICE_COMPILER_SOURCE_NESTING_H_
#define SLUICE_COMPILER_SOURCE_NESTING_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "llvm/Support/SourceMgr.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LogicalResult.h"

namespace sluice {

// The deepest nesting of brackets a program may have. Chosen so that a
// program at the limit compiles, runs and decompiles in every tool and pass
// with room to spare under AddressSanitizer, whose frames are several times
// larger (docs/format.md, "Limits").
inline constexpr int kMaxSourceNesting = 256;

// Where a program first nests too deeply.
struct SourceNestingError {
  size_t offset = 0;    // of the opening bracket one level too deep
  unsigned line = 0;    // 1-based
  unsigned column = 0;  // 1-based, in bytes, as MLIR counts
  std::string message;  // without the position
};

// Counts the brackets `(`, `[`, `{` and `<` outside string literals and `//`
// comments; each closing bracket ends one level, whichever kind it is (a
// mismatch is the parser's to report), and the `>` of `->` closes nothing.
// Returns the first opening bracket that takes the depth past `limit`.
std::optional<SourceNestingError> FindExcessiveNesting(
    std::string_view source, int limit = kMaxSourceNesting);

// FindExcessiveNesting over buffer `buffer_id` of `source_mgr`; a program
// nested too deeply becomes an error diagnostic in `context`, located in the
// buffer by its name, so the tool's diagnostic handler prints it as
// `file:line:col: error: ...` with the source line.
mlir::LogicalResult CheckSourceNesting(const llvm::SourceMgr& source_mgr,
                                       unsigned buffer_id,
                                       mlir::MLIRContext* context);

}  // namespace sluice

#endif  // SLUICE_COMPILER_SOURCE_NESTING_H_
