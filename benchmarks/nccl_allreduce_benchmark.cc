// Allreduce on CUDA devices, like with like: ncclAllReduce called directly
// against the same allreduce through Sluice's NCCL group
// (NcclGroup::DeviceAllReduce, the call behind tfrt_ccl.device_allreduce),
// in the same process and run. f32, sum, one rank per visible device, each
// on a thread of its own (NCCL needs every rank to call). Both paths use a
// non-blocking communicator (ncclConfig_t.blocking = 0) and reduce out of
// place, because that is what Sluice does and because NCCL treats the two
// placements differently: with one rank an in-place allreduce is a no-op.
//
// Two measures, Direct then Sluice at each size so that the lines read as
// pairs:
//   BM_AllReduceBandwidth/{Direct,Sluice}/bytes:N, 1 MB to 1 GB (x4; the
//     sizes from 64 MB up are the ones that tell). An iteration issues a
//     batch of K back-to-back allreduces (counter `batch`, the same K for
//     both paths at a size) and waits until all are done, so that the time
//     to notice completion is paid once per batch, as throughput is
//     normally measured. Counters, GB/s: algbw = bytes * K / time and
//     busbw = algbw * 2 (n - 1) / n for n ranks.
//   BM_AllReduceLatency/{Direct,Sluice}/bytes:N, 8 B, 1 KB, 64 KB, 1 MB and
//     64 MB. An iteration is one allreduce and the wait for it: the time is
//     per op, so here the time to notice completion is paid every op.
// Before its timed loop every benchmark runs untimed allreduces of its size
// on every rank (at least 3, and at least one full batch), so that first
// calls, NCCL's lazy connection setup and the growth of CUDA's memory pool
// are not timed. The communicators are made once per path for the whole
// run, as a program keeps its own.
//
// The work of each path per allreduce:
//   Direct: ncclAllReduce from a send into a receive buffer, both allocated
//     once per benchmark; per batch one cudaStreamSynchronize (the thread
//     waits on the stream) and one ncclCommGetAsyncError.
//   Sluice: DeviceAllReduce formats the op's description, allocates a new
//     output tensor (DeviceTensor::Allocate: cudaMallocAsync on the device's
//     stream, served by the stream-ordered pool once the warm-up has grown
//     it, so no cudaMalloc), orders the communicator's stream after the
//     input's (cudaEventRecord + cudaStreamWaitEvent), calls ncclAllReduce,
//     records a completion event and wakes the NCCL watchdog, whose thread
//     polls that event (every 50 us while busy) and makes the returned
//     AsyncValue available; the benchmark waits for every value of the batch
//     (a callback each) and checks that none is an error. It drops a batch's
//     values, which frees the outputs (cudaFreeAsync), once the next batch
//     is issued, as a program drops a step's results while the next step
//     runs. The allocation and free are part of what a Sluice caller pays,
//     so they are timed, but they overlap the device's work.
//
// With one GPU (one rank) the allreduce is a device-to-device copy and busbw
// is 0: the bandwidth is that of the copy, and the gap between the paths is
// the per-op overhead of Sluice's path over a copy. Without a device every
// benchmark is skipped with the CUDA error.
//
//   bazel build -c opt //benchmarks:nccl_allreduce_benchmark
//   bazel-bin/benchmarks/nccl_allreduce_benchmark --benchmark_min_time=0.2
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "grpcpp/grpcpp.h"
#include "lib/collective/store_service.h"
#include "sluice/collective/nccl_group.h"
#include "sluice/gpu/device_tensor.h"
#include "sluice/gpu/gpu_device.h"

namespace sluice::ccl {
namespace {

constexpr int64_t kKiB = int64_t{1} << 10;
constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;

constexpr int kWarmupOps = 3;
// A batch moves about kBatchBytes, in kMinBatch to kMaxBatch ops: enough
// that noticing its end (about 100 us on Sluice's path, measured on an
// H200) is about 1% of it from 64 MB up (a batch there takes 8 ms or more),
// few enough that Sluice's outputs, one per op, alive until the next batch
// is issued (two batches: 32 GiB), fit beside the input on an H100.
constexpr int64_t kBatchBytes = 16 * kGiB;
constexpr int kMinBatch = 8;
constexpr int kMaxBatch = 256;
// A rank that never joins, or a call NCCL never finishes setting up, fails
// the benchmark instead of hanging the run.
constexpr absl::Duration kSettleTimeout = absl::Seconds(60);
// Sluice's own bound on a collective: generous for 1 GB, short enough to
// fail within the few minutes the run is given.
constexpr absl::Duration kSluiceTimeout = absl::Minutes(1);

int BatchFor(int64_t bytes) {
  return static_cast<int>(
      std::clamp<int64_t>(kBatchBytes / bytes, kMinBatch, kMaxBatch));
}

std::string CudaError(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return "";
  return absl::StrCat(what, ": ", cudaGetErrorString(error));
}

std::string NcclError(ncclResult_t result, const char* what) {
  if (result == ncclSuccess) return "";
  return absl::StrCat(what, ": ", ncclGetErrorString(result));
}

std::string FirstError(const std::vector<std::string>& errors) {
  for (const std::string& error : errors) {
    if (!error.empty()) return error;
  }
  return "";
}

// A non-blocking communicator answers ncclInProgress while a call is still
// being set up (its init, or a first collective that connects the peers)
// and takes no other call until that is over.
std::string Settle(ncclComm_t comm, const char* what) {
  const absl::Time deadline = absl::Now() + kSettleTimeout;
  while (true) {
    ncclResult_t async = ncclSuccess;
    if (ncclResult_t read = ncclCommGetAsyncError(comm, &async);
        read != ncclSuccess) {
      return NcclError(read, what);
    }
    if (async != ncclInProgress) return NcclError(async, what);
    if (absl::Now() >= deadline) {
      return absl::StrCat(what, ": still in progress after ",
                          absl::FormatDuration(kSettleTimeout));
    }
    std::this_thread::yield();
  }
}

// Runs fn(rank) on a thread per rank, current on the rank's device, and
// waits for all.
template <typename F>
void OnEveryRank(int ranks, F fn) {
  std::vector<std::thread> threads;
  for (int rank = 0; rank < ranks; ++rank) {
    threads.emplace_back([&fn, rank] {
      cudaSetDevice(rank);
      fn(rank);
    });
  }
  for (std::thread& thread : threads) thread.join();
}

int Ranks(benchmark::State& state) {
  absl::StatusOr<int> devices = gpu::CountDevices();
  if (!devices.ok()) {
    state.SkipWithError(std::string(devices.status().message()).c_str());
    return 0;
  }
  return *devices;
}

// The direct path's communicators and streams, one per rank.
struct DirectComms {
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;
  std::string error;
};

const DirectComms& GetDirectComms(int ranks) {
  // Never destroyed: destroying a non-blocking communicator is asynchronous
  // too, and there is nothing to gain from it at exit.
  static const DirectComms* const made = [ranks] {
    auto* made = new DirectComms;
    made->comms.resize(ranks);
    made->streams.resize(ranks);
    ncclUniqueId id;
    if (ncclResult_t result = ncclGetUniqueId(&id); result != ncclSuccess) {
      made->error = NcclError(result, "ncclGetUniqueId");
      return made;
    }
    std::vector<std::string> errors(ranks);
    OnEveryRank(ranks, [&](int rank) {
      errors[rank] = CudaError(cudaStreamCreateWithFlags(&made->streams[rank],
                                                         cudaStreamNonBlocking),
                               "cudaStreamCreateWithFlags");
      if (!errors[rank].empty()) return;
      ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
      config.blocking = 0;
      const ncclResult_t result =
          ncclCommInitRankConfig(&made->comms[rank], ranks, id, rank, &config);
      errors[rank] = result == ncclInProgress
                         ? Settle(made->comms[rank], "ncclCommInitRankConfig")
                         : NcclError(result, "ncclCommInitRankConfig");
    });
    made->error = FirstError(errors);
    return made;
  }();
  return *made;
}

class DirectPath {
 public:
  DirectPath(const DirectComms& comms, int ranks, int64_t bytes)
      : comms_(comms),
        ranks_(ranks),
        bytes_(static_cast<size_t>(bytes)),
        send_(ranks, nullptr),
        receive_(ranks, nullptr) {}
  DirectPath(const DirectPath&) = delete;
  DirectPath& operator=(const DirectPath&) = delete;
  ~DirectPath() {
    OnEveryRank(ranks_, [&](int rank) {
      cudaFree(send_[rank]);
      cudaFree(receive_[rank]);
    });
  }

  std::string Allocate() {
    std::vector<std::string> errors(ranks_);
    OnEveryRank(ranks_, [&](int rank) {
      errors[rank] = CudaError(cudaMalloc(&send_[rank], bytes_), "cudaMalloc");
      if (errors[rank].empty()) {
        errors[rank] =
            CudaError(cudaMalloc(&receive_[rank], bytes_), "cudaMalloc");
      }
    });
    return FirstError(errors);
  }

  // `ops` allreduces back to back on `rank`, then waits for them.
  std::string Run(int rank, int ops) {
    const ncclComm_t comm = comms_.comms[rank];
    const cudaStream_t stream = comms_.streams[rank];
    for (int i = 0; i < ops; ++i) {
      const ncclResult_t result =
          ncclAllReduce(send_[rank], receive_[rank], bytes_ / sizeof(float),
                        ncclFloat32, ncclSum, comm, stream);
      std::string error = result == ncclInProgress
                              ? Settle(comm, "ncclAllReduce")
                              : NcclError(result, "ncclAllReduce");
      if (!error.empty()) return error;
    }
    std::string error =
        CudaError(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (!error.empty()) return error;
    // A failure of the peers or the network shows here, not on the stream.
    ncclResult_t async = ncclSuccess;
    if (ncclResult_t read = ncclCommGetAsyncError(comm, &async);
        read != ncclSuccess) {
      async = read;
    }
    return NcclError(async, "ncclCommGetAsyncError");
  }

 private:
  const DirectComms& comms_;
  const int ranks_;
  const size_t bytes_;
  std::vector<void*> send_;
  std::vector<void*> receive_;
};

// The rendezvous store that Sluice's groups meet through.
const std::string& StoreAddress() {
  static const std::string* const address = [] {
    static std::unique_ptr<grpc::Service> service = NewStoreService();
    int port = 0;
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port);
    builder.RegisterService(service.get());
    static std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
    return new std::string(absl::StrCat("127.0.0.1:", port));
  }();
  return *address;
}

struct SluiceGroups {
  std::vector<RCReference<NcclGroup>> groups;
  std::string error;
};

const SluiceGroups& GetSluiceGroups(int ranks) {
  // Never destroyed, as the direct path's communicators.
  static const SluiceGroups* const made = [ranks] {
    auto* made = new SluiceGroups;
    made->groups.resize(ranks);
    std::vector<std::string> errors(ranks);
    OnEveryRank(ranks, [&](int rank) {
      NcclGroupOptions options;
      options.store_address = StoreAddress();
      options.rank = rank;
      options.size = ranks;
      options.generation = 1;
      options.device = rank;
      options.connect_timeout = kSettleTimeout;
      options.default_timeout = kSluiceTimeout;
      absl::StatusOr<RCReference<NcclGroup>> group = CreateNcclGroup(options);
      if (!group.ok()) {
        errors[rank] = std::string(group.status().message());
        return;
      }
      made->groups[rank] = *std::move(group);
    });
    made->error = FirstError(errors);
    return made;
  }();
  return *made;
}

// Counts a batch's values down; shared with the callbacks, which run on the
// watchdog's thread and may outlast the wait by a moment.
struct Countdown {
  std::mutex mu;
  std::condition_variable zero;
  size_t left = 0;
};

// Waits until every value is available; the first error's message, or empty.
std::string AwaitAll(
    const std::vector<AsyncValueRef<gpu::DeviceTensor>>& values) {
  auto countdown = std::make_shared<Countdown>();
  countdown->left = values.size();
  // Every value, not just the last: the watchdog may resolve a later one in
  // the same poll before an earlier one.
  for (const AsyncValueRef<gpu::DeviceTensor>& value : values) {
    value.AndThen([countdown] {
      std::lock_guard<std::mutex> lock(countdown->mu);
      if (--countdown->left == 0) countdown->zero.notify_all();
    });
  }
  {
    std::unique_lock<std::mutex> lock(countdown->mu);
    countdown->zero.wait(lock, [&] { return countdown->left == 0; });
  }
  for (const AsyncValueRef<gpu::DeviceTensor>& value : values) {
    if (value.IsError()) return std::string(value.GetError().message());
  }
  return "";
}

class SluicePath {
 public:
  SluicePath(const SluiceGroups& groups, int ranks, int64_t bytes)
      : groups_(groups),
        ranks_(ranks),
        elements_(bytes / static_cast<int64_t>(sizeof(float))),
        inputs_(ranks),
        results_(ranks) {}

  std::string Allocate() {
    std::vector<std::string> errors(ranks_);
    OnEveryRank(ranks_, [&](int rank) {
      absl::StatusOr<RCReference<gpu::GpuDevice>> device =
          gpu::GpuDevice::Shared(rank);
      absl::StatusOr<gpu::DeviceTensor> input =
          device.ok() ? gpu::DeviceTensor::Allocate(*std::move(device),
                                                    DType::kF32, {elements_})
                      : absl::StatusOr<gpu::DeviceTensor>(device.status());
      if (!input.ok()) {
        errors[rank] = std::string(input.status().message());
        return;
      }
      inputs_[rank] = *std::move(input);
    });
    return FirstError(errors);
  }

  // `ops` allreduces back to back on `rank`, then waits for them.
  std::string Run(int rank, int ops) {
    std::vector<AsyncValueRef<gpu::DeviceTensor>> results;
    results.reserve(ops);
    for (int i = 0; i < ops; ++i) {
      results.push_back(groups_.groups[rank]->DeviceAllReduce(
          *inputs_[rank], ReduceOp::kSum, absl::InfiniteDuration()));
    }
    // The previous batch's outputs are freed while this one runs, as a
    // program drops a step's results while the next step runs: timed, but
    // off the device's critical path.
    results_[rank].clear();
    std::string error = AwaitAll(results);
    results_[rank] = std::move(results);
    return error;
  }

 private:
  const SluiceGroups& groups_;
  const int ranks_;
  const int64_t elements_;
  std::vector<std::optional<gpu::DeviceTensor>> inputs_;
  std::vector<std::vector<AsyncValueRef<gpu::DeviceTensor>>> results_;
};

// Times path.Run(0, ops) on the benchmark's thread while every other rank
// runs path.Run(rank, ops) as many times on a thread of its own: a rank that
// issued fewer collectives would leave its peers waiting for ever.
template <typename Path>
void Measure(benchmark::State& state, int ranks, int ops, Path& path) {
  // At least kWarmupOps allreduces and one full batch, so that the timed
  // batches find the pool grown to a batch's outputs.
  const int warmup_runs = (kWarmupOps + ops - 1) / ops;
  std::vector<std::string> errors(ranks);
  OnEveryRank(ranks, [&](int rank) {
    for (int i = 0; i < warmup_runs && errors[rank].empty(); ++i) {
      errors[rank] = path.Run(rank, ops);
    }
  });
  if (std::string error = FirstError(errors); !error.empty()) {
    state.SkipWithError(("warm-up: " + error).c_str());
    return;
  }
  std::mutex mu;
  std::condition_variable cv;
  int64_t started = 0;
  bool done = false;
  std::vector<std::thread> others;
  for (int rank = 1; rank < ranks; ++rank) {
    others.emplace_back([&, rank] {
      cudaSetDevice(rank);
      for (int64_t i = 0;; ++i) {
        {
          std::unique_lock<std::mutex> lock(mu);
          cv.wait(lock, [&] { return started > i || done; });
          if (started <= i) return;
        }
        errors[rank] = path.Run(rank, ops);
        // Its peers' collectives fail or time out without it: no more.
        if (!errors[rank].empty()) return;
      }
    });
  }
  cudaSetDevice(0);
  for (auto _ : state) {
    {
      std::lock_guard<std::mutex> lock(mu);
      ++started;
      cv.notify_all();
    }
    errors[0] = path.Run(0, ops);
    if (!errors[0].empty()) break;
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
    cv.notify_all();
  }
  for (std::thread& thread : others) thread.join();
  if (std::string error = FirstError(errors); !error.empty()) {
    state.SkipWithError(error.c_str());
  }
}

// Sets `Path` up on `made` (the communicators) and measures it.
template <typename Path, typename Made>
void SetUpAndMeasure(benchmark::State& state, const Made& made, int ranks,
                     int64_t bytes, int ops) {
  if (!made.error.empty()) {
    state.SkipWithError(made.error.c_str());
    return;
  }
  Path path(made, ranks, bytes);
  if (std::string error = path.Allocate(); !error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  Measure(state, ranks, ops, path);
}

enum class Via { kDirect, kSluice };

void BM_AllReduce(benchmark::State& state, Via via, bool batched) {
  const int ranks = Ranks(state);
  if (ranks == 0) return;
  const int64_t bytes = state.range(0);
  const int ops = batched ? BatchFor(bytes) : 1;
  if (via == Via::kDirect) {
    SetUpAndMeasure<DirectPath>(state, GetDirectComms(ranks), ranks, bytes,
                                ops);
  } else {
    SetUpAndMeasure<SluicePath>(state, GetSluiceGroups(ranks), ranks, bytes,
                                ops);
  }
  if (state.error_occurred()) return;
  state.counters["ranks"] = ranks;
  if (!batched) return;
  const double gigabytes = static_cast<double>(bytes) * ops / 1e9;
  state.counters["batch"] = ops;
  state.counters["algbw_GBps"] = benchmark::Counter(
      gigabytes, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["busbw_GBps"] =
      benchmark::Counter(gigabytes * 2.0 * (ranks - 1) / ranks,
                         benchmark::Counter::kIsIterationInvariantRate);
}

void Register(const std::string& measure, int64_t bytes, bool batched) {
  for (Via via : {Via::kDirect, Via::kSluice}) {
    const std::string name =
        absl::StrCat(measure, via == Via::kDirect ? "/Direct" : "/Sluice");
    benchmark::RegisterBenchmark(name.c_str(), BM_AllReduce, via, batched)
        ->ArgName("bytes")
        ->Arg(bytes)
        ->UseRealTime()
        ->Unit(batched ? benchmark::kMillisecond : benchmark::kMicrosecond);
  }
}

const bool kRegistered = [] {
  for (int64_t bytes = kMiB; bytes <= kGiB; bytes *= 4) {
    Register("BM_AllReduceBandwidth", bytes, /*batched=*/true);
  }
  for (int64_t bytes : {int64_t{8}, kKiB, 64 * kKiB, kMiB, 64 * kMiB}) {
    Register("BM_AllReduceLatency", bytes, /*batched=*/false);
  }
  return true;
}();

}  // namespace
}  // namespace sluice::ccl
