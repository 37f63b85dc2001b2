#include "sluice/host_context/concurrent_work_queue.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace sluice {
namespace {

// Generous bounds that still catch typos such as a missing comma
// ("mstd:24" meant as "mstd:2,4" is fine, "mstd:2400000" is not).
constexpr int kMaxWorkerThreads = 4096;
constexpr int kMaxBlockingThreads = 65536;
constexpr int kDefaultBlockingThreads = 256;

// A non-empty run of decimal digits, nothing else: no sign, no spaces.
std::optional<int64_t> ParseCount(std::string_view text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  int64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

absl::Status SyntaxError(std::string_view spec) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid work queue spec '", std::string(spec),
                   "': expected s, mstd, mstd:N or mstd:N,M"));
}

}  // namespace

ConcurrentWorkQueue::~ConcurrentWorkQueue() = default;

absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> CreateWorkQueue(
    std::string_view spec) {
  if (spec == "s") return CreateSingleThreadedWorkQueue();

  constexpr std::string_view kMstd = "mstd";
  if (spec.substr(0, kMstd.size()) != kMstd) return SyntaxError(spec);
  std::string_view rest = spec.substr(kMstd.size());

  int64_t num_threads = std::max(1u, std::thread::hardware_concurrency());
  int64_t max_blocking_threads = kDefaultBlockingThreads;
  if (!rest.empty()) {
    if (rest.front() != ':') return SyntaxError(spec);
    rest.remove_prefix(1);
    const size_t comma = rest.find(',');
    const std::optional<int64_t> threads = ParseCount(rest.substr(0, comma));
    if (!threads) return SyntaxError(spec);
    num_threads = *threads;
    if (comma != std::string_view::npos) {
      const std::optional<int64_t> blocking =
          ParseCount(rest.substr(comma + 1));
      if (!blocking) return SyntaxError(spec);
      max_blocking_threads = *blocking;
    }
  }
  if (num_threads < 1 || num_threads > kMaxWorkerThreads) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid work queue spec '", std::string(spec),
                     "': the number of worker threads must be between 1 and ",
                     kMaxWorkerThreads));
  }
  if (max_blocking_threads < 1 || max_blocking_threads > kMaxBlockingThreads) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid work queue spec '", std::string(spec),
                     "': the number of blocking threads must be between 1 and ",
                     kMaxBlockingThreads));
  }
  return CreateMultiThreadedWorkQueue(static_cast<int>(num_threads),
                                      static_cast<int>(max_blocking_threads));
}

}  // namespace sluice
