// One rank of a Gloo group (or, with --backend=nccl, of an NCCL group on
// CUDA device --device) for the collective integration tests. Runs --op
// (allreduce, allreduce_partial, allgather, reduce_scatter, broadcast,
// barrier or sendrecv) --count times on tensors it derives from its rank and
// the iteration, checks every result against the value it must have, and
// prints one line per iteration:
//   ok <op> <i>[ contributors=<ranks>]    (the ranks: allreduce_partial's)
//   wrong <op> <i> <what differs>
//   error <op> <i> code=<CODE> class=<class> generation=<g> elapsed_ms=<ms>
//       <message>
// then stops at the first error. With --stall_before=K it prints
// "stalling <op> <K>" and sleeps before iteration K (its peers wait in that
// collective). With --rejoin_generation=G it then joins generation G as
// --rejoin_rank of --rejoin_size and prints "rejoined ok" or
// "rejoined error ..." after one checked allreduce. It lingers
// --linger_ms before it exits (its connections stay up while its peers
// report), and kills itself after --max_life_s whatever happens.
// --abort_timeout_ms sets NcclGroupOptions::abort_timeout (unset: the
// group's default); a watchdog that escalates exits the process with code
// 75 after logging on stderr.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "sluice/collective/gloo_group.h"
#include "sluice/collective/nccl_group.h"
#include "sluice/support/failure.h"

namespace sluice::ccl {
namespace {

struct Flags {
  std::string store;
  std::string op = "allreduce";
  std::string backend = "gloo";
  int64_t rank = 0, size = 1, generation = 0, count = 1, elements = 16;
  int64_t timeout_ms = 10000, stall_before = -1, linger_ms = 0;
  int64_t rejoin_generation = -1, rejoin_rank = 0, rejoin_size = 1;
  int64_t max_life_s = 120;
  int64_t device = 0;
  // Negative: NcclGroupOptions' default.
  int64_t abort_timeout_ms = -1;
};

bool ParseFlags(int argc, char** argv, Flags* flags) {
  std::map<std::string, int64_t*> numbers = {
      {"rank", &flags->rank},
      {"size", &flags->size},
      {"generation", &flags->generation},
      {"count", &flags->count},
      {"elements", &flags->elements},
      {"timeout_ms", &flags->timeout_ms},
      {"stall_before", &flags->stall_before},
      {"linger_ms", &flags->linger_ms},
      {"rejoin_generation", &flags->rejoin_generation},
      {"rejoin_rank", &flags->rejoin_rank},
      {"rejoin_size", &flags->rejoin_size},
      {"max_life_s", &flags->max_life_s},
      {"device", &flags->device},
      {"abort_timeout_ms", &flags->abort_timeout_ms},
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    size_t equals = arg.find('=');
    if (arg.rfind("--", 0) != 0 || equals == std::string::npos) return false;
    std::string name = arg.substr(2, equals - 2);
    std::string value = arg.substr(equals + 1);
    if (name == "store") {
      flags->store = value;
    } else if (name == "op") {
      flags->op = value;
    } else if (name == "backend") {
      flags->backend = value;
    } else if (numbers.count(name) == 0 ||
               !absl::SimpleAtoi(value, numbers[name])) {
      return false;
    }
  }
  return !flags->store.empty() &&
         (flags->backend == "gloo" || flags->backend == "nccl");
}

// The group of `generation` with this rank as `rank` of `size`.
absl::StatusOr<RCReference<CollectiveGroup>> Connect(const Flags& flags,
                                                     int64_t generation,
                                                     int64_t rank,
                                                     int64_t size) {
  if (flags.backend == "nccl") {
    NcclGroupOptions options;
    options.store_address = flags.store;
    options.rank = static_cast<int>(rank);
    options.size = static_cast<int>(size);
    options.generation = generation;
    options.device = static_cast<int>(flags.device);
    if (flags.abort_timeout_ms >= 0) {
      options.abort_timeout = absl::Milliseconds(flags.abort_timeout_ms);
    }
    absl::StatusOr<RCReference<NcclGroup>> group = CreateNcclGroup(options);
    if (!group.ok()) return group.status();
    return RCReference<CollectiveGroup>(*std::move(group));
  }
  GlooGroupOptions options;
  options.store_address = flags.store;
  options.rank = static_cast<int>(rank);
  options.size = static_cast<int>(size);
  options.generation = generation;
  return CreateGlooGroup(options);
}

std::unique_ptr<HostAllocator> allocator = CreateMallocAllocator();

// Rank r's input at iteration i: r + 1 + i + (j % 7) at element j.
DenseHostTensor Input(int64_t rank, int64_t iteration, int64_t elements) {
  std::vector<float> values(elements);
  for (int64_t j = 0; j < elements; ++j) {
    values[j] = static_cast<float>(rank + 1 + iteration + j % 7);
  }
  return *DenseHostTensor::FromValues<float>({elements}, values,
                                             allocator.get());
}

float InputValue(int64_t rank, int64_t iteration, int64_t j) {
  return static_cast<float>(rank + 1 + iteration + j % 7);
}

// "" when `got` holds the value that element j must have, else what differs.
std::string Compare(const DenseHostTensor& got,
                    const std::function<float(int64_t)>& expected) {
  auto values = got.values<float>();
  for (int64_t j = 0; j < static_cast<int64_t>(values.size()); ++j) {
    if (values[j] != expected(j)) {
      return absl::StrCat("element ", j, " is ", values[j], ", not ",
                          expected(j));
    }
  }
  return "";
}

// Runs iteration `i` of `op`; the error, or what is wrong with the result
// ("" when right) in `wrong`. A partial allreduce names its contributors in
// `detail` (" contributors=0,1,3").
absl::Status RunOnce(CollectiveGroup& group, const Flags& flags, int64_t i,
                     std::string* wrong, std::string* detail) {
  const absl::Duration timeout = absl::Milliseconds(flags.timeout_ms);
  const int64_t r = group.rank(), n = group.size(), e = flags.elements;
  auto sum_of_ranks = [&](int64_t j) {
    float sum = 0;
    for (int64_t k = 0; k < n; ++k) sum += InputValue(k, i, j);
    return sum;
  };
  DenseHostTensor input = Input(r, i, e);
  if (flags.op == "allreduce") {
    auto result = group.AllReduce(input, ReduceOp::kSum, timeout);
    if (!result.ok()) return result.status();
    *wrong = Compare(*result, sum_of_ranks);
  } else if (flags.op == "allreduce_partial") {
    PartialOptions options;
    options.timeout = timeout;
    auto result = group.AllReducePartial(input, ReduceOp::kSum, options);
    if (!result.ok()) return result.status();
    *detail = absl::StrCat(" contributors=",
                           absl::StrJoin(result->contributors, ","));
    *wrong = Compare(result->value, [&](int64_t j) {
      float sum = 0;
      for (int k : result->contributors) sum += InputValue(k, i, j);
      return sum;
    });
  } else if (flags.op == "allgather") {
    auto result = group.AllGather(input, timeout);
    if (!result.ok()) return result.status();
    *wrong = Compare(*result,
                     [&](int64_t j) { return InputValue(j / e, i, j % e); });
  } else if (flags.op == "reduce_scatter") {
    auto result = group.ReduceScatter(input, ReduceOp::kSum, timeout);
    if (!result.ok()) return result.status();
    *wrong = Compare(*result,
                     [&](int64_t j) { return sum_of_ranks(r * e / n + j); });
  } else if (flags.op == "broadcast") {
    int root = static_cast<int>(i % n);
    auto result = group.Broadcast(input, root, timeout);
    if (!result.ok()) return result.status();
    *wrong =
        Compare(*result, [&](int64_t j) { return InputValue(root, i, j); });
  } else if (flags.op == "barrier") {
    return group.Barrier(timeout);
  } else if (flags.op == "sendrecv") {
    // A ring: each rank sends to the next and receives from the previous;
    // even ranks send first so that the ring never waits on itself.
    int next = static_cast<int>((r + 1) % n);
    int previous = static_cast<int>((r + n - 1) % n);
    absl::StatusOr<DenseHostTensor> received;
    if (r % 2 == 0) {
      if (absl::Status sent = group.Send(input, next, i, timeout); !sent.ok()) {
        return sent;
      }
      received = group.Recv(DType::kF32, {e}, previous, i, timeout);
    } else {
      received = group.Recv(DType::kF32, {e}, previous, i, timeout);
      if (!received.ok()) return received.status();
      if (absl::Status sent = group.Send(input, next, i, timeout); !sent.ok()) {
        return sent;
      }
    }
    if (!received.ok()) return received.status();
    *wrong = Compare(*received,
                     [&](int64_t j) { return InputValue(previous, i, j); });
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown op ", flags.op));
  }
  return absl::OkStatus();
}

void PrintError(const std::string& what, const absl::Status& status,
                absl::Duration elapsed) {
  std::printf("%s code=%s class=%s generation=%lld elapsed_ms=%lld %s\n",
              what.c_str(), absl::StatusCodeToString(status.code()).c_str(),
              std::string(FailureClassName(Classify(status))).c_str(),
              static_cast<long long>(GetErrorContext(status).generation),
              static_cast<long long>(absl::ToInt64Milliseconds(elapsed)),
              std::string(status.message()).c_str());
}

int Main(int argc, char** argv) {
  Flags flags;
  if (!ParseFlags(argc, argv, &flags)) {
    std::fprintf(stderr, "ccl_rank: bad flags\n");
    return 2;
  }
  alarm(static_cast<unsigned>(flags.max_life_s));
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  {
    absl::StatusOr<RCReference<CollectiveGroup>> group =
        Connect(flags, flags.generation, flags.rank, flags.size);
    if (!group.ok()) {
      PrintError("connect error", group.status(), absl::ZeroDuration());
      return 1;
    }
    std::printf("connected\n");
    for (int64_t i = 0; i < flags.count; ++i) {
      if (i == flags.stall_before) {
        std::printf("stalling %s %lld\n", flags.op.c_str(),
                    static_cast<long long>(i));
        absl::SleepFor(absl::Seconds(flags.max_life_s));
      }
      std::string wrong, detail;
      absl::Time start = absl::Now();
      absl::Status status = RunOnce(**group, flags, i, &wrong, &detail);
      std::string what = absl::StrCat(flags.op, " ", i);
      if (!status.ok()) {
        PrintError("error " + what, status, absl::Now() - start);
        break;
      }
      if (!wrong.empty()) {
        std::printf("wrong %s %s\n", what.c_str(), wrong.c_str());
      } else {
        std::printf("ok %s%s\n", what.c_str(), detail.c_str());
      }
    }
  }
  if (flags.rejoin_generation >= 0) {
    absl::StatusOr<RCReference<CollectiveGroup>> group = Connect(
        flags, flags.rejoin_generation, flags.rejoin_rank, flags.rejoin_size);
    absl::Status status = group.status();
    if (group.ok()) {
      std::string wrong, detail;
      Flags allreduce = flags;
      allreduce.op = "allreduce";
      status = RunOnce(**group, allreduce, 0, &wrong, &detail);
      if (status.ok() && !wrong.empty()) {
        status = absl::InternalError(wrong);
      }
    }
    if (status.ok()) {
      std::printf("rejoined ok generation=%lld\n",
                  static_cast<long long>(flags.rejoin_generation));
    } else {
      PrintError("rejoined error", status, absl::ZeroDuration());
    }
  }
  absl::SleepFor(absl::Milliseconds(flags.linger_ms));
  return 0;
}

}  // namespace
}  // namespace sluice::ccl

int main(int argc, char** argv) { return sluice::ccl::Main(argc, argv); }
