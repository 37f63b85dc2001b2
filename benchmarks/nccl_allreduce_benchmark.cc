// Allreduce on CUDA devices: ncclAllReduce called directly, and the same
// allreduce through Sluice's NCCL group (DeviceAllReduce, the call behind
// tfrt_ccl.device_allreduce: enqueue, watchdog, AsyncValue), in the same
// run, 1 MB to 1 GB of f32. One rank per visible device, each on a thread
// of its own (NCCL needs every rank to call). Each iteration is one
// allreduce and waits for it to complete. Counters: algbw (bytes / time)
// and busbw (algbw * 2 (n - 1) / n, nccl-tests' bus bandwidth), GB/s.
// Without a device every benchmark is skipped with the CUDA error.
//
//   bazel run -c opt //benchmarks:nccl_allreduce_benchmark
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "grpcpp/grpcpp.h"
#include "lib/collective/store_service.h"
#include "sluice/collective/nccl_group.h"
#include "sluice/gpu/device_tensor.h"
#include "sluice/gpu/gpu_device.h"

namespace sluice::ccl {
namespace {

constexpr int64_t kMinBytes = int64_t{1} << 20;
constexpr int64_t kMaxBytes = int64_t{1} << 30;

// Runs fn(rank) on one thread per rank and waits for all.
template <typename F>
void OnEveryRank(int ranks, F fn) {
  std::vector<std::thread> threads;
  for (int rank = 0; rank < ranks; ++rank) threads.emplace_back(fn, rank);
  for (std::thread& thread : threads) thread.join();
}

void SetCounters(benchmark::State& state, int ranks) {
  const double bytes = static_cast<double>(state.range(0));
  state.counters["algbw_GBps"] = benchmark::Counter(
      bytes / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["busbw_GBps"] =
      benchmark::Counter(bytes / 1e9 * 2.0 * (ranks - 1) / ranks,
                         benchmark::Counter::kIsIterationInvariantRate);
  state.counters["ranks"] = ranks;
}

int Ranks(benchmark::State& state) {
  absl::StatusOr<int> devices = gpu::CountDevices();
  if (!devices.ok()) {
    state.SkipWithError(std::string(devices.status().message()).c_str());
    return 0;
  }
  return *devices;
}

void BM_NcclAllReduceDirect(benchmark::State& state) {
  const int ranks = Ranks(state);
  if (ranks == 0) return;
  const size_t count = static_cast<size_t>(state.range(0)) / sizeof(float);
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  std::vector<ncclComm_t> comms(ranks);
  std::vector<cudaStream_t> streams(ranks);
  std::vector<float*> buffers(ranks);
  OnEveryRank(ranks, [&](int rank) {
    cudaSetDevice(rank);
    cudaStreamCreateWithFlags(&streams[rank], cudaStreamNonBlocking);
    cudaMalloc(&buffers[rank], count * sizeof(float));
    ncclCommInitRank(&comms[rank], ranks, id, rank);
  });
  // Every rank's thread runs the same number of iterations: the benchmark's
  // thread is rank 0, the others follow its count.
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
        ncclAllReduce(buffers[rank], buffers[rank], count, ncclFloat32, ncclSum,
                      comms[rank], streams[rank]);
        cudaStreamSynchronize(streams[rank]);
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
    ncclAllReduce(buffers[0], buffers[0], count, ncclFloat32, ncclSum, comms[0],
                  streams[0]);
    cudaStreamSynchronize(streams[0]);
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
    cv.notify_all();
  }
  for (std::thread& thread : others) thread.join();
  OnEveryRank(ranks, [&](int rank) {
    cudaSetDevice(rank);
    ncclCommDestroy(comms[rank]);
    cudaFree(buffers[rank]);
    cudaStreamDestroy(streams[rank]);
  });
  SetCounters(state, ranks);
}

// Waits for `value`.
template <typename T>
bool Await(const AsyncValueRef<T>& value) {
  std::mutex mu;
  std::condition_variable cv;
  bool ready = false;
  value.AndThen([&] {
    std::lock_guard<std::mutex> lock(mu);
    ready = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return ready; });
  return !value.IsError();
}

void BM_SluiceGroupAllReduce(benchmark::State& state) {
  const int ranks = Ranks(state);
  if (ranks == 0) return;
  static const std::string* const store = [] {
    // The rendezvous store the groups meet through, for the whole run.
    static std::unique_ptr<grpc::Service> service = NewStoreService();
    int port = 0;
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port);
    builder.RegisterService(service.get());
    static std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
    return new std::string(absl::StrCat("127.0.0.1:", port));
  }();
  static int64_t generation = 0;
  ++generation;
  const int64_t elements = state.range(0) / static_cast<int64_t>(sizeof(float));
  std::vector<RCReference<NcclGroup>> groups(ranks);
  std::vector<std::optional<gpu::DeviceTensor>> inputs(ranks);
  std::string failed;
  std::mutex failed_mu;
  OnEveryRank(ranks, [&](int rank) {
    NcclGroupOptions options;
    options.store_address = *store;
    options.rank = rank;
    options.size = ranks;
    options.generation = generation;
    options.device = rank;
    options.default_timeout = absl::Minutes(5);
    auto group = CreateNcclGroup(options);
    auto device = gpu::GpuDevice::Shared(rank);
    absl::StatusOr<gpu::DeviceTensor> input =
        device.ok() ? gpu::DeviceTensor::Allocate(*std::move(device),
                                                  DType::kF32, {elements})
                    : absl::StatusOr<gpu::DeviceTensor>(device.status());
    std::lock_guard<std::mutex> lock(failed_mu);
    if (!group.ok() || !input.ok()) {
      failed =
          absl::StrCat(group.status().message(), " ", input.status().message());
      return;
    }
    groups[rank] = *std::move(group);
    inputs[rank] = *std::move(input);
  });
  if (!failed.empty()) {
    state.SkipWithError(failed.c_str());
    return;
  }
  std::mutex mu;
  std::condition_variable cv;
  int64_t started = 0;
  bool done = false;
  std::vector<std::thread> others;
  for (int rank = 1; rank < ranks; ++rank) {
    others.emplace_back([&, rank] {
      for (int64_t i = 0;; ++i) {
        {
          std::unique_lock<std::mutex> lock(mu);
          cv.wait(lock, [&] { return started > i || done; });
          if (started <= i) return;
        }
        Await(groups[rank]->DeviceAllReduce(*inputs[rank], ReduceOp::kSum,
                                            absl::InfiniteDuration()));
      }
    });
  }
  for (auto _ : state) {
    {
      std::lock_guard<std::mutex> lock(mu);
      ++started;
      cv.notify_all();
    }
    if (!Await(groups[0]->DeviceAllReduce(*inputs[0], ReduceOp::kSum,
                                          absl::InfiniteDuration()))) {
      state.SkipWithError("the allreduce failed");
      break;
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
    cv.notify_all();
  }
  for (std::thread& thread : others) thread.join();
  SetCounters(state, ranks);
}

BENCHMARK(BM_NcclAllReduceDirect)
    ->RangeMultiplier(4)
    ->Range(kMinBytes, kMaxBytes)
    ->UseRealTime();
BENCHMARK(BM_SluiceGroupAllReduce)
    ->RangeMultiplier(4)
    ->Range(kMinBytes, kMaxBytes)
    ->UseRealTime();

}  // namespace
}  // namespace sluice::ccl
