#include "sluice/compiler/source_nesting.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "absl/strings/str_format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

namespace sluice {

std::optional<SourceNestingError> FindExcessiveNesting(std::string_view source,
                                                       int limit) {
  int depth = 0;
  unsigned line = 1;
  size_t line_start = 0;
  const size_t size = source.size();
  for (size_t i = 0; i < size; ++i) {
    const char c = source[i];
    switch (c) {
      case '\n':
        ++line;
        line_start = i + 1;
        break;
      case '"':
        // MLIR's lexer ends a string at its closing quote or, as an error,
        // at the end of the line; a backslash escapes the next character.
        for (++i; i < size && source[i] != '"' && source[i] != '\n'; ++i) {
          if (source[i] == '\\' && i + 1 < size && source[i + 1] != '\n') ++i;
        }
        if (i < size && source[i] == '\n') --i;  // counted by the loop
        break;
      case '/':
        if (i + 1 < size && source[i + 1] == '/') {
          while (i + 1 < size && source[i + 1] != '\n') ++i;
        }
        break;
      case '(':
      case '[':
      case '{':
      case '<':
        if (++depth > limit) {
          SourceNestingError error;
          error.offset = i;
          error.line = line;
          error.column = static_cast<unsigned>(i - line_start + 1);
          error.message = absl::StrFormat(
              "nesting deeper than %d levels; sluice limits programs to %d "
              "levels of brackets ((), [], {} and <>)",
              limit, limit);
          return error;
        }
        break;
      case '>':
        if (i > 0 && source[i - 1] == '-') break;  // an arrow
        [[fallthrough]];
      case ')':
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return std::nullopt;
}

mlir::LogicalResult CheckSourceNesting(const llvm::SourceMgr& source_mgr,
                                       unsigned buffer_id,
                                       mlir::MLIRContext* context) {
  const llvm::MemoryBuffer* buffer = source_mgr.getMemoryBuffer(buffer_id);
  const llvm::StringRef text = buffer->getBuffer();
  std::optional<SourceNestingError> error =
      FindExcessiveNesting(std::string_view(text.data(), text.size()));
  if (!error) return mlir::success();
  mlir::emitError(mlir::FileLineColLoc::get(
      context, buffer->getBufferIdentifier(), error->line, error->column))
      << error->message;
  return mlir::failure();
}

}  // namespace sluice
