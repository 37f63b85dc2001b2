#include "lib/collective/gloo_failure.h"

#include <memory>
#include <string_view>
#include <typeinfo>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gloo/common/error.h"
#include "gloo/transport/context.h"

// gloo::transport::tcp::Context::signalException(const std::string&): what
// Gloo calls when an operation times out. It fails every buffer pending on
// the context's pairs, waking the threads that wait on them, and closes the
// pairs. (Pair::close() alone, which Context::closeConnections() calls, only
// closes the sockets: a waiting thread would wait for its timeout.) Debian's
// libgloo-dev lacks a header that gloo/transport/tcp/context.h includes, so
// the member function is declared here by its symbol; it returns nothing
// and takes the context and the message, which is how a free function with
// these parameters is called.
extern void
GlooTcpContextSignalException(void* context, const std::string& message) __asm__(
    "_ZN4gloo9transport3tcp7Context15signalExceptionERKNSt7__cxx1112basic_"
    "stringIcSt11char_traitsIcESaIcEEE");

namespace sluice::ccl {
namespace {

// Names the protected transport context of a gloo::Context; the pointer to
// member applies to any gloo::Context.
class ContextAccess : public gloo::Context {
 public:
  static constexpr auto kTransportContext = &ContextAccess::transportContext_;
};

constexpr char kTcpContextType[] = "N4gloo9transport3tcp7ContextE";

}  // namespace

absl::Status GlooExceptionStatus(const std::exception& exception) {
  std::string what = exception.what();
  if (absl::StrContains(what, "Timed out")) {
    return absl::DeadlineExceededError(absl::StrCat("gloo timed out: ", what));
  }
  if (dynamic_cast<const gloo::IoException*>(&exception) != nullptr) {
    return absl::UnavailableError(
        absl::StrCat("a connection to a peer failed: ", what));
  }
  return absl::InternalError(absl::StrCat("gloo failed: ", what));
}

void BreakConnections(gloo::Context& context, const std::string& reason) {
  gloo::transport::Context* transport =
      (context.*ContextAccess::kTransportContext).get();
  if (transport == nullptr) return;
  // The transport context is gloo's first (polymorphic) base of tcp::Context,
  // so the two pointers are the same.
  if (std::string_view(typeid(*transport).name()) != kTcpContextType) return;
  GlooTcpContextSignalException(transport, reason);
}

}  // namespace sluice::ccl
