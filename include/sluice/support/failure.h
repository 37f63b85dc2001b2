// The failure taxonomy. An error's absl::Status carries one payload that
// records where the error came from (the kernel and `.mlir` location that
// made it, the task and process incarnation it ran on, the generation it
// belongs to) and, when its producer knows, what kind of failure it is.
// Classify() turns a status into a FailureClass; every policy that decides
// what to do about a failure (retry elsewhere, vote against a commit,
// restart) asks it, and none reads the message. docs/faults.md has the table.
#ifndef SLUICE_SUPPORT_FAILURE_H_
#define SLUICE_SUPPORT_FAILURE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace sluice {

enum class FailureClass : uint8_t {
  // The peer or the transport went away: the same work may succeed on
  // another task, or on this one later.
  kRetryable = 1,
  // The program or its data is wrong: running it again fails again.
  kFatal = 2,
  // The caller stopped the work (or its deadline did).
  kCancelled = 3,
  // Produced under an older generation than the one asking: never mixed in.
  kStale = 4,
};

// "retryable", "fatal", "cancelled", "stale".
std::string_view FailureClassName(FailureClass failure_class);
// The class named `name` (as FailureClassName spells it), or none.
std::optional<FailureClass> ParseFailureClass(std::string_view name);

// No generation: the error belongs to none (nothing runs under quorums).
inline constexpr int64_t kNoGeneration = -1;

// Where an error came from and, when its producer said, its class. Every
// field is optional; this is the one payload an error carries.
struct ErrorContext {
  std::string kernel;    // the kernel's name, e.g. "tfrt.div.i32"
  std::string location;  // the `.mlir` location, e.g. "prog.mlir:3:8"
  std::string task;  // the remote task that produced it, e.g. "/job:w/task:1"
  // The process that served `task` (it changes when the task restarts);
  // 0 when unknown.
  uint64_t incarnation = 0;
  int64_t generation = kNoGeneration;
  // Set by whoever knew the kind of failure; when none, Classify derives
  // the class from the status code.
  std::optional<FailureClass> failure_class;
  // The message of the error this one was derived from, at the root of the
  // chain (sluice/support/error_util.h, RootCause); empty when this error is
  // a root itself.
  std::string cause;
};

// Records where `status` came from, keeping every field already recorded
// (the first producer wins: an error forwarded by later kernels still names
// the kernel that made it). OK statuses are returned unchanged.
absl::Status AddErrorContext(absl::Status status, const ErrorContext& context);

// The context recorded on `status` (all fields empty when none is).
ErrorContext GetErrorContext(const absl::Status& status);

// The class of a failure: the one recorded on `status` if any, else the
// class of its code (ClassOfCode), where the status counts as coming from a
// peer when it names a task. An OK status has no class; Classify says
// kFatal for it, so that a policy that asks by mistake never retries.
FailureClass Classify(const absl::Status& status);

// The class of a status that records none:
//   CANCELLED                 cancelled
//   UNAVAILABLE               retryable
//   DEADLINE_EXCEEDED         retryable from a peer (it did not answer in
//                             time), cancelled otherwise (a local deadline
//                             is a RequestContext's, which cancels the
//                             request with it)
//   ABORTED                   stale when the status records a generation,
//                             fatal otherwise
//   anything else             fatal, RESOURCE_EXHAUSTED included: a program
//                             that exhausts a resource exhausts it again on
//                             a peer like this one; a producer that knows
//                             an exhaustion passes (a full queue) marks it
//                             retryable
FailureClass ClassOfCode(absl::StatusCode code, bool from_peer,
                         bool has_generation);

// `status` with class `failure_class`, replacing any class recorded before:
// whoever marks a status knows more than whoever made it (a coordinator
// that learns a value belongs to an older generation marks it stale). The
// origin is kept. OK statuses are returned unchanged.
absl::Status MarkFailureClass(absl::Status status, FailureClass failure_class);

// Marks `status` retryable and records `task` (and its `incarnation`, 0 when
// unknown) as its origin unless one is recorded.
absl::Status MarkRetryable(absl::Status status, std::string_view task,
                           uint64_t incarnation = 0);

// Marks `status` stale and records the `generation` it was produced under
// unless one is recorded.
absl::Status MarkStale(absl::Status status, int64_t generation);

}  // namespace sluice

#endif  // SLUICE_SUPPORT_FAILURE_H_
