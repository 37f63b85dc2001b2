// Bounds-checked reading of SBF sections and the error messages the reader
// returns. Private to lib/bef.
#ifndef SLUICE_LIB_BEF_BYTE_READER_H_
#define SLUICE_LIB_BEF_BYTE_READER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"

#define SLUICE_BEF_RETURN_IF_ERROR(expr)        \
  do {                                          \
    ::absl::Status sluice_bef_status_ = (expr); \
    if (!sluice_bef_status_.ok()) {             \
      return sluice_bef_status_;                \
    }                                           \
  } while (false)

namespace sluice {
namespace bef {
namespace internal {

// "invalid sbf file: <section> at offset <offset>: <what>", where offset
// counts from the start of the file.
absl::Status SbfError(std::string_view section, uint64_t offset,
                      std::string_view what);

template <typename... Args>
absl::Status SbfErrorF(std::string_view section, uint64_t offset,
                       const absl::FormatSpec<Args...>& format,
                       const Args&... args) {
  return SbfError(section, offset, absl::StrFormat(format, args...));
}

// A cursor over the bytes [begin, end) of the file. Nothing is read outside
// that range, and every count is checked against the bytes left before
// anything is allocated for it, so a hostile count costs an error, not
// memory.
class ByteReader {
 public:
  // `section` names the section in messages; `scope` names the range when
  // it is smaller than the section ("the body of function 'main'").
  ByteReader(absl::Span<const uint8_t> file, std::string_view section,
             uint32_t begin, uint32_t end, std::string scope = "section");

  std::string_view section() const { return section_; }
  uint32_t offset() const { return position_; }
  uint32_t remaining() const { return end_ - position_; }

  absl::Status ReadU32(const char* what, uint32_t* value);

  // The next `size` bytes, which the caller has checked are there; the
  // cursor does not move.
  absl::Span<const uint8_t> PeekBytes(uint32_t size) const;
  // Moves past `size` bytes the caller has checked are there.
  void Skip(uint32_t size);

  // Reads `count` words after checking that they fit.
  absl::Status ReadU32Array(const char* what, uint32_t count,
                            std::vector<uint32_t>* values);
  // As ReadU32Array, but `*values` views the words in the file (which is
  // 8-aligned, and holds them in the host's byte order: see format.h).
  absl::Status ReadU32Span(const char* what, uint32_t count,
                           absl::Span<const uint32_t>* values);

  // Fails unless `count` items of at least `min_item_size` bytes could fit
  // in what is left. The product is formed in 64 bits.
  absl::Status CheckCountFits(const char* what, uint64_t count,
                              uint64_t min_item_size) const;

  // Fails if bytes are left over: tables and bodies are exactly as large
  // as their contents.
  absl::Status CheckAtEnd(const char* after_what) const;

  template <typename... Args>
  absl::Status Error(uint64_t offset, const absl::FormatSpec<Args...>& format,
                     const Args&... args) const {
    return SbfError(section_, offset, absl::StrFormat(format, args...));
  }

 private:
  absl::Span<const uint8_t> file_;
  std::string_view section_;
  std::string scope_;
  uint32_t position_;
  uint32_t end_;
};

// Formats at most a few values of a list for messages: "[1, 1, 2]" or
// "[1, 2, 3, 4, 5, 6, 7, 8, ... (12 in all)]".
std::string FormatList(absl::Span<const uint32_t> values);

}  // namespace internal
}  // namespace bef
}  // namespace sluice

#endif  // SLUICE_LIB_BEF_BYTE_READER_H_
