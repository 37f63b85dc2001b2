#include "lib/collective/nccl_fake_api.h"

#include <cstring>
#include <map>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace sluice::ccl {
namespace {

struct FakeComm {
  int nranks = 1;
  int rank = 0;
  // Polls left that answer ncclInProgress.
  int in_progress_polls = 0;
  int polls = 0;
  int async_error_after_polls = -1;
  ncclResult_t async_error = ncclSuccess;
  bool released = false;
  // A job on a thread of the fake's (its creation, a split of it) runs:
  // it says ncclInProgress until the thread is done.
  bool job_running = false;
  // It says ncclInProgress until then (a finalize).
  absl::Time finalizing_until = absl::InfinitePast();
  // Threads inside NCCL on it now.
  int inside = 0;
};

struct FakeOp {
  FakeComm* comm = nullptr;
  int queries_left = 0;
  bool never = false;
};

struct FakeStream {
  std::shared_ptr<FakeOp> last;
  int device = 0;
};

struct FakeEvent {
  std::shared_ptr<FakeOp> op;
  int device = 0;
};

FakeComm* AsFake(ncclComm_t comm) { return reinterpret_cast<FakeComm*>(comm); }
FakeStream* AsFake(cudaStream_t stream) {
  return reinterpret_cast<FakeStream*>(stream);
}
FakeEvent* AsFake(cudaEvent_t event) {
  return reinterpret_cast<FakeEvent*>(event);
}

size_t ElementSize(ncclDataType_t dtype) {
  switch (dtype) {
    case ncclInt8:
    case ncclUint8:
      return 1;
    case ncclFloat16:
    case ncclBfloat16:
      return 2;
    case ncclInt32:
    case ncclUint32:
    case ncclFloat32:
      return 4;
    default:
      return 8;
  }
}

}  // namespace

struct FakeNcclApi::State {
  std::mutex mu;
  std::condition_variable aborts_released_cv;
  FakeNcclScript script;
  bool aborts_released = false;
  int aborts_started = 0;
  int aborts_returned = 0;
  int comms_destroyed = 0;
  int async_error_polls = 0;
  int calls_after_release = 0;
  int splits = 0;
  int shrinks = 0;
  int concurrent_calls = 0;
  int device_mismatches = 0;
  int unique_ids = 0;
  // Each thread's current device (cudaSetDevice), 0 until it sets one.
  std::map<std::thread::id, int> current_device;
  // The fake's NCCL threads: they finish new communicators.
  std::vector<std::thread> jobs;
  std::map<void*, size_t> allocations;
  // Never freed before the fake, so that a call on a released handle is
  // seen rather than undefined.
  std::vector<std::unique_ptr<FakeComm>> comms;
  std::vector<std::unique_ptr<FakeStream>> streams;
  std::vector<std::unique_ptr<FakeEvent>> events;

  // With mu held: a new communicator, written to `out` at once when
  // `parent` is null (ncclCommInitRankConfig) and when the job is done
  // otherwise (a split or shrink of `parent`).
  ncclResult_t NewComm(int nranks, int rank, FakeComm* parent,
                       ncclComm_t* out) {
    comms.push_back(std::make_unique<FakeComm>());
    FakeComm* comm = comms.back().get();
    comm->nranks = nranks;
    comm->rank = rank;
    comm->in_progress_polls = script.init_in_progress_polls;
    comm->async_error_after_polls = script.async_error_after_polls;
    comm->async_error = script.async_error;
    ncclComm_t handle = reinterpret_cast<ncclComm_t>(comm);
    if (script.creation_takes <= absl::ZeroDuration()) {
      *out = handle;
      return comm->in_progress_polls > 0 ? ncclInProgress : ncclSuccess;
    }
    const absl::Time done = absl::Now() + script.creation_takes;
    FakeComm* busy = parent != nullptr ? parent : comm;
    busy->job_running = true;
    if (parent == nullptr) *out = handle;
    jobs.emplace_back(
        [this, done, busy, out, handle, write = parent != nullptr] {
          absl::SleepFor(done - absl::Now());
          std::lock_guard<std::mutex> lock(mu);
          // An abort of the parent ends its split, as NCCL's does.
          if (write && !busy->released) *out = handle;
          busy->job_running = false;
        });
    return ncclInProgress;
  }
  // With mu held: a call on `comm` begins (Enter) or ends (Leave); Call is
  // both, for a call made wholly under mu.
  void Enter(FakeComm* comm) {
    if (comm->inside > 0) ++concurrent_calls;
    ++comm->inside;
  }
  void Leave(FakeComm* comm) { --comm->inside; }
  void Call(FakeComm* comm) {
    Enter(comm);
    Leave(comm);
  }
  int& CurrentDevice() { return current_device[std::this_thread::get_id()]; }
  // With mu held: false (and counted) for a released communicator.
  bool Usable(FakeComm* comm) {
    if (comm->released) ++calls_after_release;
    return !comm->released;
  }
};

FakeNcclApi::FakeNcclApi(FakeNcclScript script)
    : state_(std::make_unique<State>()) {
  state_->script = script;
}

FakeNcclApi::~FakeNcclApi() {
  for (std::thread& job : state_->jobs) job.join();
  for (auto& [pointer, bytes] : state_->allocations) {
    delete[] static_cast<char*>(pointer);
  }
}

void FakeNcclApi::SetScript(const FakeNcclScript& script) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->script = script;
}

void FakeNcclApi::ReleaseAborts() {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->aborts_released = true;
  state_->aborts_released_cv.notify_all();
}

#define SLUICE_FAKE_COUNTER(name)                 \
  int FakeNcclApi::name() const {                 \
    std::lock_guard<std::mutex> lock(state_->mu); \
    return state_->name;                          \
  }
SLUICE_FAKE_COUNTER(aborts_started)
SLUICE_FAKE_COUNTER(aborts_returned)
SLUICE_FAKE_COUNTER(comms_destroyed)
SLUICE_FAKE_COUNTER(async_error_polls)
SLUICE_FAKE_COUNTER(calls_after_release)
SLUICE_FAKE_COUNTER(splits)
SLUICE_FAKE_COUNTER(shrinks)
SLUICE_FAKE_COUNTER(concurrent_calls)
SLUICE_FAKE_COUNTER(device_mismatches)
#undef SLUICE_FAKE_COUNTER

int64_t FakeNcclApi::device_bytes_in_use() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  int64_t bytes = 0;
  for (const auto& [pointer, size] : state_->allocations) bytes += size;
  return bytes;
}

int FakeNcclApi::Version() {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->script.version;
}

bool FakeNcclApi::HasCommSplit() {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->script.split;
}

bool FakeNcclApi::HasCommShrink() {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->script.shrink;
}

ncclResult_t FakeNcclApi::GetUniqueId(ncclUniqueId* id) {
  std::lock_guard<std::mutex> lock(state_->mu);
  std::memset(id->internal, 0, sizeof(id->internal));
  int serial = ++state_->unique_ids;
  std::memcpy(id->internal, &serial, sizeof(serial));
  return ncclSuccess;
}

ncclResult_t FakeNcclApi::CommInitRankConfig(ncclComm_t* comm, int nranks,
                                             ncclUniqueId, int rank,
                                             ncclConfig_t*) {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (nranks < 1 || rank < 0 || rank >= nranks) return ncclInvalidArgument;
  return state_->NewComm(nranks, rank, nullptr, comm);
}

ncclResult_t FakeNcclApi::CommSplit(ncclComm_t comm, int, int key,
                                    ncclComm_t* new_comm, ncclConfig_t*) {
  std::lock_guard<std::mutex> lock(state_->mu);
  FakeComm* parent = AsFake(comm);
  if (parent == nullptr) return ncclInvalidArgument;
  if (!state_->Usable(parent)) return ncclInvalidUsage;
  state_->Call(parent);
  ++state_->splits;
  return state_->NewComm(parent->nranks, key, parent, new_comm);
}

ncclResult_t FakeNcclApi::CommShrink(ncclComm_t comm, int* exclude_ranks,
                                     int exclude_count, ncclComm_t* new_comm,
                                     ncclConfig_t*, int) {
  std::lock_guard<std::mutex> lock(state_->mu);
  FakeComm* parent = AsFake(comm);
  if (parent == nullptr) return ncclInvalidArgument;
  if (!state_->Usable(parent)) return ncclInvalidUsage;
  state_->Call(parent);
  ++state_->shrinks;
  int rank = parent->rank;
  for (int i = 0; i < exclude_count; ++i) {
    if (exclude_ranks[i] < parent->rank) --rank;
  }
  return state_->NewComm(parent->nranks - exclude_count, rank, parent,
                         new_comm);
}

ncclResult_t FakeNcclApi::CommGetAsyncError(ncclComm_t comm,
                                            ncclResult_t* async_error) {
  std::lock_guard<std::mutex> lock(state_->mu);
  FakeComm* fake = AsFake(comm);
  // A split's communicator before the split is done, say.
  if (fake == nullptr) return ncclInvalidArgument;
  if (!state_->Usable(fake)) return ncclInvalidUsage;
  state_->Call(fake);
  ++state_->async_error_polls;
  if (fake->async_error_after_polls >= 0 &&
      fake->polls >= fake->async_error_after_polls) {
    *async_error = fake->async_error;
  } else if (fake->job_running || absl::Now() < fake->finalizing_until) {
    *async_error = ncclInProgress;
  } else if (fake->in_progress_polls > 0) {
    --fake->in_progress_polls;
    *async_error = ncclInProgress;
  } else {
    *async_error = ncclSuccess;
  }
  ++fake->polls;
  return ncclSuccess;
}

ncclResult_t FakeNcclApi::CommAbort(ncclComm_t comm) {
  std::unique_lock<std::mutex> lock(state_->mu);
  FakeComm* fake = AsFake(comm);
  if (!state_->Usable(fake)) return ncclInvalidUsage;
  state_->Enter(fake);
  ++state_->aborts_started;
  if (state_->script.abort_hangs) {
    state_->aborts_released_cv.wait(lock,
                                    [this] { return state_->aborts_released; });
  }
  state_->Leave(fake);
  fake->released = true;
  ++state_->aborts_returned;
  return ncclSuccess;
}

ncclResult_t FakeNcclApi::CommFinalize(ncclComm_t comm) {
  std::lock_guard<std::mutex> lock(state_->mu);
  FakeComm* fake = AsFake(comm);
  if (!state_->Usable(fake)) return ncclInvalidUsage;
  state_->Call(fake);
  if (state_->script.finalize_takes <= absl::ZeroDuration()) return ncclSuccess;
  fake->finalizing_until = absl::Now() + state_->script.finalize_takes;
  return ncclInProgress;
}

ncclResult_t FakeNcclApi::CommDestroy(ncclComm_t comm) {
  std::lock_guard<std::mutex> lock(state_->mu);
  FakeComm* fake = AsFake(comm);
  if (!state_->Usable(fake)) return ncclInvalidUsage;
  state_->Call(fake);
  fake->released = true;
  ++state_->comms_destroyed;
  return ncclSuccess;
}

std::string FakeNcclApi::GetErrorString(ncclResult_t result) {
  switch (result) {
    case ncclSuccess:
      return "no error";
    case ncclUnhandledCudaError:
      return "unhandled cuda error";
    case ncclSystemError:
      return "unhandled system error";
    case ncclInternalError:
      return "internal error";
    case ncclInvalidArgument:
      return "invalid argument";
    case ncclInvalidUsage:
      return "invalid usage";
    case ncclRemoteError:
      return "remote process exited or there was a network error";
    case ncclInProgress:
      return "operation in progress";
    default:
      return absl::StrCat("nccl result ", static_cast<int>(result));
  }
}

std::string FakeNcclApi::GetLastError(ncclComm_t) {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->script.last_error;
}

ncclResult_t FakeNcclApi::Collective(ncclComm_t comm, cudaStream_t stream,
                                     const void* send, void* recv,
                                     size_t bytes) {
  std::unique_lock<std::mutex> lock(state_->mu);
  FakeComm* fake = AsFake(comm);
  if (!state_->Usable(fake)) return ncclInvalidUsage;
  const FakeNcclScript& script = state_->script;
  if (script.enqueue_takes > absl::ZeroDuration()) {
    state_->Enter(fake);
    const absl::Duration takes = script.enqueue_takes;
    lock.unlock();
    absl::SleepFor(takes);
    lock.lock();
    state_->Leave(fake);
  } else {
    state_->Call(fake);
  }
  if (script.enqueue_result != ncclSuccess) return script.enqueue_result;
  if (fake->nranks == 1 && send != nullptr && recv != nullptr && send != recv &&
      bytes > 0) {
    std::memcpy(recv, send, bytes);
  }
  auto op = std::make_shared<FakeOp>();
  op->comm = fake;
  op->never = script.complete_after_queries < 0;
  op->queries_left = script.complete_after_queries;
  AsFake(stream)->last = std::move(op);
  if (script.enqueue_in_progress_polls > 0) {
    fake->in_progress_polls = script.enqueue_in_progress_polls;
    return ncclInProgress;
  }
  return ncclSuccess;
}

ncclResult_t FakeNcclApi::AllReduce(const void* send, void* recv, size_t count,
                                    ncclDataType_t dtype, ncclRedOp_t,
                                    ncclComm_t comm, cudaStream_t stream) {
  return Collective(comm, stream, send, recv, count * ElementSize(dtype));
}

ncclResult_t FakeNcclApi::AllGather(const void* send, void* recv,
                                    size_t send_count, ncclDataType_t dtype,
                                    ncclComm_t comm, cudaStream_t stream) {
  return Collective(comm, stream, send, recv, send_count * ElementSize(dtype));
}

ncclResult_t FakeNcclApi::ReduceScatter(const void* send, void* recv,
                                        size_t recv_count, ncclDataType_t dtype,
                                        ncclRedOp_t, ncclComm_t comm,
                                        cudaStream_t stream) {
  return Collective(comm, stream, send, recv, recv_count * ElementSize(dtype));
}

ncclResult_t FakeNcclApi::Broadcast(const void* send, void* recv, size_t count,
                                    ncclDataType_t dtype, int, ncclComm_t comm,
                                    cudaStream_t stream) {
  return Collective(comm, stream, send, recv, count * ElementSize(dtype));
}

ncclResult_t FakeNcclApi::Send(const void*, size_t, ncclDataType_t, int,
                               ncclComm_t comm, cudaStream_t stream) {
  return Collective(comm, stream, nullptr, nullptr, 0);
}

ncclResult_t FakeNcclApi::Recv(void*, size_t, ncclDataType_t, int,
                               ncclComm_t comm, cudaStream_t stream) {
  return Collective(comm, stream, nullptr, nullptr, 0);
}

ncclResult_t FakeNcclApi::GroupStart() { return ncclSuccess; }
ncclResult_t FakeNcclApi::GroupEnd() { return ncclSuccess; }

cudaError_t FakeNcclApi::GetDeviceCount(int* count) {
  std::lock_guard<std::mutex> lock(state_->mu);
  *count = state_->script.devices;
  return state_->script.devices > 0 ? cudaSuccess : cudaErrorNoDevice;
}

cudaError_t FakeNcclApi::SetDevice(int device) {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (device < 0 || device >= state_->script.devices) {
    return cudaErrorInvalidDevice;
  }
  state_->CurrentDevice() = device;
  return cudaSuccess;
}

cudaError_t FakeNcclApi::StreamCreate(cudaStream_t* stream) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->streams.push_back(std::make_unique<FakeStream>());
  state_->streams.back()->device = state_->CurrentDevice();
  *stream = reinterpret_cast<cudaStream_t>(state_->streams.back().get());
  return cudaSuccess;
}

cudaError_t FakeNcclApi::StreamDestroy(cudaStream_t) { return cudaSuccess; }

cudaError_t FakeNcclApi::EventCreate(cudaEvent_t* event) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->events.push_back(std::make_unique<FakeEvent>());
  state_->events.back()->device = state_->CurrentDevice();
  *event = reinterpret_cast<cudaEvent_t>(state_->events.back().get());
  return cudaSuccess;
}

cudaError_t FakeNcclApi::EventRecord(cudaEvent_t event, cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (AsFake(event)->device != AsFake(stream)->device) {
    ++state_->device_mismatches;
    return cudaErrorInvalidResourceHandle;
  }
  AsFake(event)->op = AsFake(stream)->last;
  return cudaSuccess;
}

cudaError_t FakeNcclApi::EventQuery(cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(state_->mu);
  FakeOp* op = AsFake(event)->op.get();
  // An aborted communicator's kernels are gone.
  if (op == nullptr || op->comm->released) return cudaSuccess;
  if (op->never) return cudaErrorNotReady;
  if (op->queries_left > 0) {
    --op->queries_left;
    return cudaErrorNotReady;
  }
  return cudaSuccess;
}

cudaError_t FakeNcclApi::EventDestroy(cudaEvent_t) { return cudaSuccess; }

cudaError_t FakeNcclApi::StreamWaitEvent(cudaStream_t, cudaEvent_t) {
  return cudaSuccess;
}

cudaError_t FakeNcclApi::StreamSynchronize(cudaStream_t) { return cudaSuccess; }

cudaError_t FakeNcclApi::Malloc(void** pointer, size_t bytes) {
  std::lock_guard<std::mutex> lock(state_->mu);
  *pointer = new char[bytes == 0 ? 1 : bytes];
  state_->allocations[*pointer] = bytes;
  return cudaSuccess;
}

cudaError_t FakeNcclApi::Free(void* pointer) {
  std::lock_guard<std::mutex> lock(state_->mu);
  auto it = state_->allocations.find(pointer);
  if (it == state_->allocations.end()) return cudaErrorInvalidValue;
  delete[] static_cast<char*>(pointer);
  state_->allocations.erase(it);
  return cudaSuccess;
}

cudaError_t FakeNcclApi::MemcpyAsync(void* destination, const void* source,
                                     size_t bytes, cudaMemcpyKind,
                                     cudaStream_t) {
  if (bytes > 0) std::memcpy(destination, source, bytes);
  return cudaSuccess;
}

std::string FakeNcclApi::CudaErrorString(cudaError_t error) {
  return absl::StrCat("fake cuda error ", static_cast<int>(error));
}

}  // namespace sluice::ccl
