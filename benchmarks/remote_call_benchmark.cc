// What a Sluice remote call costs on top of the gRPC unary call it rides
// on. One process, loopback: a WorkerServer and a bare gRPC echo service
// (benchmarks/echo_service.proto, the same callback server API), each
// called with the same payloads:
//   - round trips, each call waited for before the next: no payload, and a
//     64 KiB string sent and echoed back;
//   - throughput: two client threads calling back to back, and one thread
//     keeping a batch of calls in flight;
//   - where the difference goes: the bare call with, one at a time, the
//     thread hand-offs and the reactor a Sluice call adds
//     (BM_GrpcEmptyWithHops).
//   - what a new connection costs: a channel of its own, its first call,
//     and its end (BM_GrpcNewConnection).
// With SLUICE_TLS_CERT, SLUICE_TLS_KEY and SLUICE_TLS_CA set, every
// connection (Sluice's and the bare echo's) is mutual TLS, as a job's are;
// benchmarks/tls_overhead.sh runs the set both ways.
// Times are wall-clock (UseRealTime): the caller mostly waits.
// cpu_us_per_call is the whole process's CPU time per call. Both hosts use
// mstd:2 unless SLUICE_BENCH_WORKER_QUEUE / SLUICE_BENCH_CLIENT_QUEUE name
// another queue (e.g. "s" for the client, single-threaded benchmarks only).
#include <sys/resource.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "benchmarks/echo_service.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "lib/support/grpc_credentials.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/distributed/remote_client.h"
#include "sluice/distributed/worker_server.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/kernels/basic_kernels.h"
#include "sluice/support/liveness.h"
#include "sluice/support/logging.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice::dist {
namespace {

constexpr size_t kPayloadBytes = 64 << 10;
constexpr size_t kTensorBytes = 4 << 20;
constexpr int kBatch = 32;

constexpr char kProgram[] = R"mlir(
func.func @empty() -> !tfrt.chain {
  %ch = tfrt.new.chain
  tfrt.return %ch : !tfrt.chain
}

func.func @echo(%s: !tfrt.string) -> !tfrt.string {
  tfrt.return %s : !tfrt.string
}

func.func @identity(%x: !t.tensor) -> !t.tensor {
  tfrt.return %x : !t.tensor
}
)mlir";

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "remote_call_benchmark: %s\n", message.c_str());
  std::exit(1);
}

// A reactor that deletes itself when gRPC is done with the call, the shape
// of a Sluice worker's Execution.
class OwnReactor final : public grpc::ServerUnaryReactor {
  void OnDone() override { delete this; }
};

class EchoService final : public bench::Echo::CallbackService {
 public:
  // `host` answers the requests that ask for it (see echo_service.proto).
  explicit EchoService(HostContext* host) : host_(host) {}

 private:
  grpc::ServerUnaryReactor* Echo(grpc::CallbackServerContext* context,
                                 const bench::EchoMessage* request,
                                 bench::EchoMessage* response) override {
    response->set_payload(request->payload());
    grpc::ServerUnaryReactor* reactor =
        request->own_reactor() ? new OwnReactor : context->DefaultReactor();
    if (request->answer_from_work_queue()) {
      host_->EnqueueWork([reactor] { reactor->Finish(grpc::Status::OK); });
    } else {
      reactor->Finish(grpc::Status::OK);
    }
    return reactor;
  }

  HostContext* const host_;
};

// A one-shot flag a gRPC callback sets and a caller waits for: what a
// caller of the bare async stub needs to wait for its answer.
class Done {
 public:
  void Set() {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    cv_.notify_one();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return done_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
};

// Both servers and their clients, made once and kept for the process's
// life (gRPC's threads may still run at exit; nothing is torn down).
struct Setup {
  std::unique_ptr<HostContext> worker_host;
  std::unique_ptr<WorkerServer> worker;
  std::unique_ptr<HostContext> client_host;
  std::unique_ptr<ClusterClient> client;
  TaskClient* task = nullptr;
  RemoteFunction empty;
  RemoteFunction echo;
  RemoteFunction identity;
  // The same worker through a client whose liveness pings are off in
  // effect (a week's timeout): what pings cost a busy connection.
  std::unique_ptr<ClusterClient> client_without_pings;
  TaskClient* task_without_pings = nullptr;
  RemoteFunction empty_without_pings;

  std::unique_ptr<EchoService> echo_service;
  std::unique_ptr<grpc::Server> echo_server;
  std::unique_ptr<bench::Echo::Stub> echo_stub;
  std::string echo_address;

  std::string payload = std::string(kPayloadBytes, 'p');
  std::string tensor_payload = std::string(kTensorBytes, 't');
};

// The work queue of the worker's or the client's host: mstd:2 unless the
// environment variable `name` names another (to see what the hand-offs
// between threads cost).
std::unique_ptr<HostContext> MakeHost(const char* name) {
  const char* spec = std::getenv(name);
  auto queue = CreateWorkQueue(spec != nullptr ? spec : "mstd:2");
  if (!queue.ok()) Die(std::string(queue.status().message()));
  return std::make_unique<HostContext>([](const DecodedDiagnostic&) {},
                                       CreateMallocAllocator(),
                                       *std::move(queue));
}

// CPU time of the whole process (every thread: the caller, gRPC's, both
// hosts'), in microseconds.
double ProcessCpuMicros() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 +
         usage.ru_utime.tv_usec + usage.ru_stime.tv_usec;
}

// Reports the process's CPU time per call, all threads together: a call
// that waits costs little of the caller's CPU but may keep others busy.
class CpuPerCall {
 public:
  explicit CpuPerCall(benchmark::State& state)
      : state_(state), start_(ProcessCpuMicros()) {}
  ~CpuPerCall() {
    // One thread measures for all: the figure is per process.
    if (state_.thread_index() != 0 || state_.iterations() == 0) return;
    const double calls = static_cast<double>(state_.iterations()) *
                         state_.threads() * calls_per_iteration_;
    state_.counters["cpu_us_per_call"] = (ProcessCpuMicros() - start_) / calls;
  }
  void set_calls_per_iteration(int calls) { calls_per_iteration_ = calls; }

 private:
  benchmark::State& state_;
  const double start_;
  int calls_per_iteration_ = 1;
};

Setup* MakeSetup() {
  auto* setup = new Setup;
  setup->worker_host = MakeHost("SLUICE_BENCH_WORKER_QUEUE");
  SLUICE_CHECK(
      RegisterBasicKernels(&GetKernelRegistry(setup->worker_host.get())).ok());
  WorkerOptions worker_options;
  worker_options.task_name = "/job:worker/task:0";
  worker_options.address = "127.0.0.1:0";
  auto worker = WorkerServer::Start(setup->worker_host.get(), worker_options);
  if (!worker.ok()) Die(std::string(worker.status().message()));
  setup->worker = *std::move(worker);

  setup->client_host = MakeHost("SLUICE_BENCH_CLIENT_QUEUE");
  auto spec = ClusterSpec::FromJson(absl::StrCat(
      R"({"worker": ["127.0.0.1:)", setup->worker->port(), R"("]})"));
  if (!spec.ok()) Die(std::string(spec.status().message()));
  setup->client = std::make_unique<ClusterClient>(*spec, RpcOptions(),
                                                  setup->client_host.get());
  setup->task = *setup->client->GetTask("/job:worker/task:0");
  auto status = setup->task->GetStatus();
  setup->client_host->Await(status.CopyRCRef());
  if (status.IsError()) Die(status.GetError().ToString());
  auto program = CompileProgram(kProgram, "remote_call_benchmark.mlir");
  if (!program.ok()) Die(std::string(program.status().message()));
  auto registered = setup->task->RegisterProgram(*program);
  setup->client_host->Await(registered.CopyRCRef());
  if (registered.IsError()) Die(registered.GetError().ToString());
  setup->empty = *registered->GetFunction("empty");
  setup->echo = *registered->GetFunction("echo");
  setup->identity = *registered->GetFunction("identity");

  RpcOptions without_pings;
  without_pings.liveness_timeout = kMaxLivenessTimeout;
  setup->client_without_pings = std::make_unique<ClusterClient>(
      *spec, without_pings, setup->client_host.get());
  setup->task_without_pings =
      *setup->client_without_pings->GetTask("/job:worker/task:0");
  auto registered_again = setup->task_without_pings->RegisterProgram(*program);
  setup->client_host->Await(registered_again.CopyRCRef());
  if (registered_again.IsError()) {
    Die(registered_again.GetError().ToString());
  }
  setup->empty_without_pings = *registered_again->GetFunction("empty");

  int echo_port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", NewServerCredentials(), &echo_port);
  setup->echo_service = std::make_unique<EchoService>(setup->worker_host.get());
  builder.RegisterService(setup->echo_service.get());
  builder.SetMaxReceiveMessageSize(RpcOptions().max_message_bytes);
  builder.SetMaxSendMessageSize(RpcOptions().max_message_bytes);
  setup->echo_server = builder.BuildAndStart();
  if (setup->echo_server == nullptr) Die("cannot start the echo server");
  // The same message limits as Sluice's channel, nothing else.
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(RpcOptions().max_message_bytes);
  arguments.SetMaxSendMessageSize(RpcOptions().max_message_bytes);
  setup->echo_address = absl::StrCat("127.0.0.1:", echo_port);
  setup->echo_stub = bench::Echo::NewStub(grpc::CreateCustomChannel(
      setup->echo_address, NewChannelCredentials(), arguments));
  return setup;
}

Setup& GetSetup() {
  static Setup* const setup = MakeSetup();
  return *setup;
}

// --- One Sluice call, started and waited for ---

std::vector<RCReference<AsyncValue>> StartSluiceCall(Setup& setup,
                                                     AsyncValue* payload) {
  if (payload == nullptr) return setup.task->Call(setup.empty, {}, nullptr);
  AsyncValue* arguments[] = {payload};
  return setup.task->Call(setup.echo, arguments, nullptr);
}

bool CheckSluiceResult(benchmark::State& state,
                       const RCReference<AsyncValue>& result, bool payload) {
  if (result->IsError()) {
    state.SkipWithError(result->GetError().ToString().c_str());
    return false;
  }
  if (payload && result->get<std::string>().size() != kPayloadBytes) {
    state.SkipWithError("the echo came back short");
    return false;
  }
  return true;
}

void SluiceRoundTrip(benchmark::State& state, bool payload) {
  Setup& setup = GetSetup();
  CpuPerCall cpu(state);
  RCReference<AsyncValue> argument =
      MakeAvailableAsyncValueRef<std::string>(setup.payload).ReleaseRCRef();
  for (auto _ : state) {
    std::vector<RCReference<AsyncValue>> results =
        StartSluiceCall(setup, payload ? argument.get() : nullptr);
    setup.client_host->Await(results);
    if (!CheckSluiceResult(state, results[0], payload)) break;
  }
  state.SetItemsProcessed(state.iterations());
  if (payload) state.SetBytesProcessed(state.iterations() * kPayloadBytes * 2);
}

void SluiceBatch(benchmark::State& state, bool payload) {
  Setup& setup = GetSetup();
  CpuPerCall cpu(state);
  cpu.set_calls_per_iteration(kBatch);
  RCReference<AsyncValue> argument =
      MakeAvailableAsyncValueRef<std::string>(setup.payload).ReleaseRCRef();
  for (auto _ : state) {
    std::vector<RCReference<AsyncValue>> results;
    results.reserve(kBatch);
    for (int i = 0; i < kBatch; ++i) {
      results.push_back(std::move(
          StartSluiceCall(setup, payload ? argument.get() : nullptr)[0]));
    }
    setup.client_host->Await(results);
    if (!CheckSluiceResult(state, results.back(), payload)) break;
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

// --- One bare gRPC call, started and waited for ---

struct EchoCall {
  grpc::ClientContext context;
  bench::EchoMessage request;
  bench::EchoMessage response;
  grpc::Status status;
  Done done;
};

// Fills the request per call, as Sluice's client encodes its arguments per
// call: both pay for copying the payload into the message. Sets the
// deadline Sluice gives every RPC (30 s): gRPC keeps a timer per call that
// has one, on both sides.
void StartEchoCall(Setup& setup, bool payload, EchoCall& call) {
  if (payload) call.request.set_payload(setup.payload);
  call.context.set_deadline(std::chrono::system_clock::now() +
                            absl::ToChronoSeconds(RpcOptions().deadline));
  setup.echo_stub->async()->Echo(&call.context, &call.request, &call.response,
                                 [&call](grpc::Status status) {
                                   call.status = std::move(status);
                                   call.done.Set();
                                 });
}

bool CheckEchoResult(benchmark::State& state, const EchoCall& call,
                     bool payload) {
  if (!call.status.ok()) {
    state.SkipWithError(call.status.error_message().c_str());
    return false;
  }
  if (payload && call.response.payload().size() != kPayloadBytes) {
    state.SkipWithError("the echo came back short");
    return false;
  }
  return true;
}

void GrpcRoundTrip(benchmark::State& state, bool payload) {
  Setup& setup = GetSetup();
  CpuPerCall cpu(state);
  for (auto _ : state) {
    EchoCall call;
    StartEchoCall(setup, payload, call);
    call.done.Wait();
    if (!CheckEchoResult(state, call, payload)) break;
  }
  state.SetItemsProcessed(state.iterations());
  if (payload) state.SetBytesProcessed(state.iterations() * kPayloadBytes * 2);
}

void GrpcBatch(benchmark::State& state, bool payload) {
  Setup& setup = GetSetup();
  CpuPerCall cpu(state);
  cpu.set_calls_per_iteration(kBatch);
  for (auto _ : state) {
    std::vector<std::unique_ptr<EchoCall>> calls;
    calls.reserve(kBatch);
    for (int i = 0; i < kBatch; ++i) {
      calls.push_back(std::make_unique<EchoCall>());
      StartEchoCall(setup, payload, *calls.back());
    }
    for (const auto& call : calls) call->done.Wait();
    if (!CheckEchoResult(state, *calls.back(), payload)) break;
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

// The bare call with what a Sluice call does differently added one at a
// time: the server answers from the worker host's work queue
// (state.range(0)); the client's callback resolves through the client
// host's work queue before the caller wakes (state.range(1)); the server
// answers through its own reactor with an OnDone (state.range(2)).
void BM_GrpcEmptyWithHops(benchmark::State& state) {
  Setup& setup = GetSetup();
  CpuPerCall cpu(state);
  const bool server_hop = state.range(0) != 0;
  const bool client_hop = state.range(1) != 0;
  const bool own_reactor = state.range(2) != 0;
  HostContext* const host = setup.client_host.get();
  for (auto _ : state) {
    EchoCall call;
    call.request.set_answer_from_work_queue(server_hop);
    call.request.set_own_reactor(own_reactor);
    call.context.set_deadline(std::chrono::system_clock::now() +
                              absl::ToChronoSeconds(RpcOptions().deadline));
    setup.echo_stub->async()->Echo(
        &call.context, &call.request, &call.response,
        [&call, host, client_hop](grpc::Status status) {
          call.status = std::move(status);
          if (client_hop) {
            host->EnqueueWork([&call] { call.done.Set(); });
          } else {
            call.done.Set();
          }
        });
    call.done.Wait();
    if (!CheckEchoResult(state, call, false)) break;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GrpcEmptyWithHops)
    ->ArgNames({"server_hop", "client_hop", "own_reactor"})
    ->Args({0, 0, 0})
    ->Args({1, 0, 0})
    ->Args({0, 1, 0})
    ->Args({0, 0, 1})
    ->Args({1, 1, 0})
    ->Args({1, 1, 1})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// --- A 4 MiB tensor through an identity function, and the same bytes
// through the bare echo ---

void BM_Sluice4MiBTensor(benchmark::State& state) {
  Setup& setup = GetSetup();
  CpuPerCall cpu(state);
  absl::StatusOr<DenseHostTensor> tensor = DenseHostTensor::Create(
      DType::kF32, TensorShape({1024, 1024}), setup.client_host->allocator());
  if (!tensor.ok()) Die(std::string(tensor.status().message()));
  std::memset(tensor->raw_data(), 0x3f, tensor->num_bytes());
  RCReference<AsyncValue> argument =
      MakeAvailableAsyncValueRef<DenseHostTensor>(*std::move(tensor))
          .ReleaseRCRef();
  for (auto _ : state) {
    AsyncValue* arguments[] = {argument.get()};
    std::vector<RCReference<AsyncValue>> results =
        setup.task->Call(setup.identity, arguments, nullptr);
    setup.client_host->Await(results);
    if (results[0]->IsError()) {
      state.SkipWithError(results[0]->GetError().ToString().c_str());
      break;
    }
    if (results[0]->get<DenseHostTensor>().num_bytes() != kTensorBytes) {
      state.SkipWithError("the tensor came back short");
      break;
    }
  }
  state.SetBytesProcessed(state.iterations() * kTensorBytes * 2);
}

void BM_Grpc4MiB(benchmark::State& state) {
  Setup& setup = GetSetup();
  CpuPerCall cpu(state);
  for (auto _ : state) {
    EchoCall call;
    call.request.set_payload(setup.tensor_payload);
    call.context.set_deadline(std::chrono::system_clock::now() +
                              absl::ToChronoSeconds(RpcOptions().deadline));
    setup.echo_stub->async()->Echo(&call.context, &call.request, &call.response,
                                   [&call](grpc::Status status) {
                                     call.status = std::move(status);
                                     call.done.Set();
                                   });
    call.done.Wait();
    if (!call.status.ok()) {
      state.SkipWithError(call.status.error_message().c_str());
      break;
    }
    if (call.response.payload().size() != kTensorBytes) {
      state.SkipWithError("the echo came back short");
      break;
    }
  }
  state.SetBytesProcessed(state.iterations() * kTensorBytes * 2);
}
BENCHMARK(BM_Sluice4MiBTensor)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Grpc4MiB)->UseRealTime()->Unit(benchmark::kMicrosecond);

// --- The benchmarks ---

// A channel of its own per call (a subchannel pool of its own, or gRPC
// would share the open connection): TCP, HTTP/2 setup, the TLS handshake
// when TLS is on, one empty call, and the channel's end.
void BM_GrpcNewConnection(benchmark::State& state) {
  Setup& setup = GetSetup();
  grpc::ChannelArguments arguments;
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  for (auto _ : state) {
    std::unique_ptr<bench::Echo::Stub> stub =
        bench::Echo::NewStub(grpc::CreateCustomChannel(
            setup.echo_address, NewChannelCredentials(), arguments));
    grpc::ClientContext context;
    bench::EchoMessage request;
    bench::EchoMessage response;
    const grpc::Status status = stub->Echo(&context, request, &response);
    if (!status.ok()) {
      state.SkipWithError(status.error_message().c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GrpcNewConnection)->UseRealTime()->Unit(benchmark::kMicrosecond);

// Liveness pings on (the default timeout) and off: a connection in use
// never pings, so the two should agree within noise.
void BM_SluiceEmptyLivenessOff(benchmark::State& state) {
  Setup& setup = GetSetup();
  for (auto _ : state) {
    std::vector<RCReference<AsyncValue>> results =
        setup.task_without_pings->Call(setup.empty_without_pings, {}, nullptr);
    setup.client_host->Await(results);
    if (!CheckSluiceResult(state, results[0], false)) break;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SluiceEmptyLivenessOff)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

void BM_SluiceEmpty(benchmark::State& state) { SluiceRoundTrip(state, false); }
void BM_GrpcEmpty(benchmark::State& state) { GrpcRoundTrip(state, false); }
void BM_Sluice64KiB(benchmark::State& state) { SluiceRoundTrip(state, true); }
void BM_Grpc64KiB(benchmark::State& state) { GrpcRoundTrip(state, true); }
BENCHMARK(BM_SluiceEmpty)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GrpcEmpty)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Sluice64KiB)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Grpc64KiB)->UseRealTime()->Unit(benchmark::kMicrosecond);

// Throughput: two threads, each waiting for its call before the next.
BENCHMARK(BM_SluiceEmpty)
    ->Threads(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GrpcEmpty)
    ->Threads(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Sluice64KiB)
    ->Threads(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Grpc64KiB)
    ->Threads(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// Throughput: one thread, kBatch calls in flight at a time.
void BM_SluiceEmptyBatch(benchmark::State& state) { SluiceBatch(state, false); }
void BM_GrpcEmptyBatch(benchmark::State& state) { GrpcBatch(state, false); }
void BM_Sluice64KiBBatch(benchmark::State& state) { SluiceBatch(state, true); }
void BM_Grpc64KiBBatch(benchmark::State& state) { GrpcBatch(state, true); }
BENCHMARK(BM_SluiceEmptyBatch)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GrpcEmptyBatch)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Sluice64KiBBatch)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Grpc64KiBBatch)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace sluice::dist
