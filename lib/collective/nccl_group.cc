// The NCCL backend of CollectiveGroup (sluice/collective/nccl_group.h).
//
// Every collective goes to the communicator's watch (nccl_comm_watch.h),
// which the process's watchdog polls: the caller's thread only makes the
// NCCL call. Host tensors are staged through device memory: copied in on a
// copy stream of the group's own, which the communicator's stream waits
// for, and copied out on it once the collective is done, so that a hung
// collective never blocks a copy that has no part in it.
#include "sluice/collective/nccl_group.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "lib/collective/group_error.h"
#include "lib/collective/nccl_group_internal.h"
#include "lib/collective/nccl_real_api.h"
#include "lib/collective/nccl_unique_id_store.h"
#include "sluice/gpu/gpu_device.h"
#include "sluice/support/error_util.h"
#include "sluice/support/failure.h"
#include "sluice/support/logging.h"

namespace sluice::ccl {
namespace {

// How often a communicator being created is polled.
constexpr absl::Duration kCreatePoll = absl::Milliseconds(1);

// The allocator of host results when the options name none. Result tensors
// outlive their group, so it is never destroyed.
HostAllocator* ProcessHeap() {
  static HostAllocator* const heap = CreateMallocAllocator().release();
  return heap;
}

absl::StatusOr<ncclDataType_t> NcclType(DType dtype, bool reduce) {
  switch (dtype) {
    case DType::kF32:
      return ncclFloat32;
    case DType::kF64:
      return ncclFloat64;
    case DType::kI32:
      return ncclInt32;
    case DType::kI64:
      return ncclInt64;
    case DType::kI1:
      if (!reduce) return ncclUint8;
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("cannot reduce ", DTypeName(dtype),
                   " tensors (f32, f64, i32 and i64 it can)"));
}

ncclRedOp_t NcclReduction(ReduceOp op) {
  switch (op) {
    case ReduceOp::kAvg:
      return ncclAvg;
    case ReduceOp::kMin:
      return ncclMin;
    case ReduceOp::kMax:
      return ncclMax;
    case ReduceOp::kSum:
      break;
  }
  return ncclSum;
}

// Device memory that a host collective stages through, freed when the last
// collective that may touch it is over.
struct Staging {
  NcclApi* api = nullptr;
  void* in = nullptr;
  void* out = nullptr;
  size_t in_bytes = 0;
  size_t out_bytes = 0;
  ~Staging() {
    if (in != nullptr) api->Free(in);
    if (out != nullptr) api->Free(out);
  }
};

// What a host collective waits on.
class Completion {
 public:
  std::function<void(absl::Status)> Done() {
    return [this](absl::Status status) {
      std::lock_guard<std::mutex> lock(mu_);
      status_ = std::move(status);
      done_ = true;
      cv_.notify_all();
    };
  }
  // The watch reports every collective by its deadline (plus a poll).
  absl::Status Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return done_; });
    return status_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  absl::Status status_;
};

// The NCCL call(s) of a collective, on the communicator's stream.
using NcclCall = std::function<ncclResult_t(cudaStream_t)>;

class NcclGroupImpl final : public NcclGroup {
 public:
  NcclGroupImpl(const NcclGroupOptions& options,
                const NcclGroupEnvironment& environment,
                std::shared_ptr<NcclCommWatch> watch, cudaStream_t copy_stream,
                cudaEvent_t order_event, std::string created_by)
      : NcclGroup(options.rank, options.size, options.generation),
        api_(environment.api),
        device_ordinal_(options.device),
        device_tensors_(environment.device_tensors),
        default_timeout_(options.default_timeout),
        allocator_(options.allocator == nullptr ? ProcessHeap()
                                                : options.allocator),
        watch_(std::move(watch)),
        copy_stream_(copy_stream),
        order_event_(order_event),
        created_by_(std::move(created_by)) {}

  ~NcclGroupImpl() override {
    watch_->Close();
    api_->EventDestroy(order_event_);
    api_->StreamDestroy(copy_stream_);
  }

  ncclComm_t comm() const { return watch_->comm(); }
  NcclCommWatch& watch() const { return *watch_; }

  // Called when the next generation's group is made from this one.
  void Retire(int64_t next_generation) {
    Abort(MarkStale(absl::AbortedError(absl::StrCat(
                        "the group of generation ", generation(),
                        " was retired for generation ", next_generation)),
                    generation()));
  }

  absl::StatusOr<DenseHostTensor> AllReduce(const DenseHostTensor& input,
                                            ReduceOp op,
                                            absl::Duration timeout) override {
    return RunOnHost(AllReduceSpec(op), input, timeout);
  }

  absl::StatusOr<DenseHostTensor> AllGather(const DenseHostTensor& input,
                                            absl::Duration timeout) override {
    return RunOnHost(AllGatherSpec(), input, timeout);
  }

  absl::StatusOr<DenseHostTensor> ReduceScatter(
      const DenseHostTensor& input, ReduceOp op,
      absl::Duration timeout) override {
    return RunOnHost(ReduceScatterSpec(op), input, timeout);
  }

  absl::StatusOr<DenseHostTensor> Broadcast(const DenseHostTensor& input,
                                            int root,
                                            absl::Duration timeout) override {
    return RunOnHost(BroadcastSpec(root), input, timeout);
  }

  // NCCL has no barrier: an allreduce of one element is one.
  absl::Status Barrier(absl::Duration timeout) override {
    absl::StatusOr<DenseHostTensor> one = DenseHostTensor::Create(
        DType::kI32, TensorShape::Create({1}).value(), allocator_);
    if (!one.ok()) return one.status();
    *static_cast<int32_t*>(one->raw_data()) = 1;
    Spec barrier = AllReduceSpec(ReduceOp::kSum);
    barrier.op = "barrier";
    barrier.detail.clear();
    return RunOnHost(barrier, *one, timeout).status();
  }

  absl::Status Send(const DenseHostTensor& input, int peer, int64_t tag,
                    absl::Duration timeout) override {
    return RunOnHost(SendSpec(peer, tag), input, timeout).status();
  }

  absl::StatusOr<DenseHostTensor> Recv(DType dtype, const TensorShape& shape,
                                       int peer, int64_t tag,
                                       absl::Duration timeout) override {
    absl::StatusOr<DenseHostTensor> none = DenseHostTensor::Create(
        dtype, TensorShape::Create({0}).value(), allocator_);
    if (!none.ok()) return none.status();
    Spec spec = RecvSpec(peer, tag, shape);
    Prepared prepared = Prepare(spec, dtype, shape);
    if (!prepared.invalid.ok()) return Invalid(prepared.what, prepared.invalid);
    return HostCollective(prepared.what, timeout, *none, prepared.shape,
                          Bind(spec, prepared));
  }

  AsyncValueRef<gpu::DeviceTensor> DeviceAllReduce(
      const gpu::DeviceTensor& input, ReduceOp op,
      absl::Duration timeout) override {
    return RunOnDevice(AllReduceSpec(op), input, timeout);
  }

  AsyncValueRef<gpu::DeviceTensor> DeviceAllGather(
      const gpu::DeviceTensor& input, absl::Duration timeout) override {
    return RunOnDevice(AllGatherSpec(), input, timeout);
  }

  AsyncValueRef<gpu::DeviceTensor> DeviceReduceScatter(
      const gpu::DeviceTensor& input, ReduceOp op,
      absl::Duration timeout) override {
    return RunOnDevice(ReduceScatterSpec(op), input, timeout);
  }

  AsyncValueRef<gpu::DeviceTensor> DeviceBroadcast(
      const gpu::DeviceTensor& input, int root,
      absl::Duration timeout) override {
    return RunOnDevice(BroadcastSpec(root), input, timeout);
  }

  AsyncValueRef<gpu::DeviceTensor> DeviceAllToAll(
      const gpu::DeviceTensor& input, absl::Duration timeout) override {
    Spec spec;
    spec.op = "all_to_all";
    spec.output = Output::kLikeInput;
    spec.count = Count::kPart;
    const size_t element_bytes = DTypeSize(input.dtype());
    // Part p of dimension 0 goes to rank p, and rank p's part comes back
    // into part p.
    spec.call = [this, element_bytes](const void* in, void* out, size_t count,
                                      ncclDataType_t type,
                                      cudaStream_t stream) {
      const size_t bytes = count * element_bytes;
      ncclResult_t first = api_->GroupStart();
      for (int peer = 0; peer < size() && first == ncclSuccess; ++peer) {
        first = api_->Send(static_cast<const char*>(in) + peer * bytes, count,
                           type, peer, comm(), stream);
        if (first == ncclSuccess) {
          first = api_->Recv(static_cast<char*>(out) + peer * bytes, count,
                             type, peer, comm(), stream);
        }
      }
      ncclResult_t end = api_->GroupEnd();
      return first != ncclSuccess ? first : end;
    };
    return RunOnDevice(spec, input, timeout);
  }

  AsyncValueRef<Chain> DeviceSend(const gpu::DeviceTensor& input, int peer,
                                  absl::Duration timeout) override {
    Spec spec = SendSpec(peer, std::nullopt);
    Prepared prepared = Prepare(spec, input.dtype(), input.shape());
    if (!prepared.invalid.ok()) {
      return InvalidValue<Chain>(prepared.what, prepared.invalid);
    }
    auto result = std::make_shared<AsyncValueRef<Chain>>(
        MakeUnconstructedAsyncValueRef<Chain>());
    absl::Status launched = LaunchOnDevice(
        prepared.what, timeout, input,
        [call = Bind(spec, prepared), in = input.data()](cudaStream_t stream) {
          return call(in, nullptr, stream);
        },
        std::make_shared<gpu::DeviceTensor>(input),
        [result](absl::Status status) {
          if (status.ok()) {
            result->emplace();
          } else {
            result->SetError(std::move(status));
          }
        });
    if (!launched.ok()) return InvalidValue<Chain>(prepared.what, launched);
    return result->CopyRef();
  }

  AsyncValueRef<gpu::DeviceTensor> DeviceRecv(DType dtype,
                                              const TensorShape& shape,
                                              int peer,
                                              absl::Duration timeout) override {
    Spec spec = RecvSpec(peer, std::nullopt, shape);
    Prepared prepared = Prepare(spec, dtype, shape);
    if (!prepared.invalid.ok()) {
      return InvalidValue<gpu::DeviceTensor>(prepared.what, prepared.invalid);
    }
    absl::StatusOr<RCReference<gpu::GpuDevice>> device = Device();
    absl::StatusOr<gpu::DeviceTensor> output =
        device.ok()
            ? gpu::DeviceTensor::Allocate(*std::move(device), dtype, shape)
            : absl::StatusOr<gpu::DeviceTensor>(device.status());
    if (!output.ok()) {
      return InvalidValue<gpu::DeviceTensor>(prepared.what, output.status());
    }
    return Deliver(
        prepared.what, timeout, *output,
        std::make_shared<gpu::DeviceTensor>(*output),
        [call = Bind(spec, prepared), out = output->data()](
            cudaStream_t stream) { return call(nullptr, out, stream); });
  }

  void Abort(absl::Status reason) override { watch_->Abort(std::move(reason)); }

  absl::Status health() const override { return watch_->health(); }

  std::string_view created_by() const override { return created_by_; }

 private:
  std::string Where() const {
    return absl::StrCat("rank ", rank(), " of ", size(), " (generation ",
                        generation(), ")");
  }

  // What makes one collective differ from another. The steps around it
  // (describing it, checking its dtype and arguments, shaping its output,
  // staging or ordering it, watching it) are the same for all of them, on
  // host and device tensors alike.
  enum class Output { kLikeInput, kStacked, kPart, kNone, kGiven };
  enum class Count { kInput, kPart, kGiven };
  // The NCCL call(s) of a collective, on `count` elements of `type` (per
  // rank, as NCCL counts them).
  using SpecCall =
      std::function<ncclResult_t(const void* in, void* out, size_t count,
                                 ncclDataType_t type, cudaStream_t stream)>;
  struct Spec {
    std::string op;      // "allreduce"
    std::string detail;  // "sum", "root 1", "to rank 2, tag 7"
    bool reduces = false;
    Output output = Output::kLikeInput;
    Count count = Count::kInput;
    // The tensor a receive makes (Output::kGiven, Count::kGiven).
    TensorShape given;
    // An argument out of range, found before the tensor is looked at.
    absl::Status invalid;
    SpecCall call;
  };
  // A Spec applied to a tensor's dtype and shape.
  struct Prepared {
    std::string what;  // "allreduce (sum) of f32[4] on rank 0 of 2 (...)"
    absl::Status invalid;
    ncclDataType_t type = ncclFloat32;
    TensorShape shape;  // the output's
    size_t count = 0;
  };

  Spec AllReduceSpec(ReduceOp op) {
    Spec spec;
    spec.op = "allreduce";
    spec.detail = std::string(ReduceOpName(op));
    spec.reduces = true;
    spec.call = [this, op](const void* in, void* out, size_t count,
                           ncclDataType_t type, cudaStream_t stream) {
      return api_->AllReduce(in, out, count, type, NcclReduction(op), comm(),
                             stream);
    };
    return spec;
  }

  Spec AllGatherSpec() {
    Spec spec;
    spec.op = "allgather";
    spec.output = Output::kStacked;
    spec.call = [this](const void* in, void* out, size_t count,
                       ncclDataType_t type, cudaStream_t stream) {
      return api_->AllGather(in, out, count, type, comm(), stream);
    };
    return spec;
  }

  Spec ReduceScatterSpec(ReduceOp op) {
    Spec spec;
    spec.op = "reduce_scatter";
    spec.detail = std::string(ReduceOpName(op));
    spec.reduces = true;
    spec.output = Output::kPart;
    spec.count = Count::kPart;
    spec.call = [this, op](const void* in, void* out, size_t count,
                           ncclDataType_t type, cudaStream_t stream) {
      return api_->ReduceScatter(in, out, count, type, NcclReduction(op),
                                 comm(), stream);
    };
    return spec;
  }

  Spec BroadcastSpec(int root) {
    Spec spec;
    spec.op = "broadcast";
    spec.detail = absl::StrCat("root ", root);
    if (root < 0 || root >= size()) {
      spec.invalid = absl::InvalidArgumentError(
          absl::StrCat("root ", root, " is not a rank of the group"));
    }
    spec.call = [this, root](const void* in, void* out, size_t count,
                             ncclDataType_t type, cudaStream_t stream) {
      return api_->Broadcast(in, out, count, type, root, comm(), stream);
    };
    return spec;
  }

  // A send or receive ("to rank", "from rank"). NCCL has no tags: host
  // sends and receives carry theirs into messages and checks only.
  Spec PeerSpec(std::string op, std::string_view toward, int peer,
                std::optional<int64_t> tag) {
    Spec spec;
    spec.op = std::move(op);
    spec.detail = absl::StrCat(std::string(toward), " rank ", peer,
                               tag ? absl::StrCat(", tag ", *tag) : "");
    spec.invalid = CheckPeer(rank(), size(), peer, tag.value_or(0));
    return spec;
  }

  Spec SendSpec(int peer, std::optional<int64_t> tag) {
    Spec spec = PeerSpec("send", "to", peer, tag);
    spec.output = Output::kNone;
    spec.call = [this, peer](const void* in, void*, size_t count,
                             ncclDataType_t type, cudaStream_t stream) {
      return api_->Send(in, count, type, peer, comm(), stream);
    };
    return spec;
  }

  Spec RecvSpec(int peer, std::optional<int64_t> tag,
                const TensorShape& shape) {
    Spec spec = PeerSpec("recv", "from", peer, tag);
    spec.output = Output::kGiven;
    spec.count = Count::kGiven;
    spec.given = shape;
    spec.call = [this, peer](const void*, void* out, size_t count,
                             ncclDataType_t type, cudaStream_t stream) {
      return api_->Recv(out, count, type, peer, comm(), stream);
    };
    return spec;
  }

  Prepared Prepare(const Spec& spec, DType dtype,
                   const TensorShape& shape) const {
    Prepared prepared;
    prepared.what = absl::StrCat(
        spec.op,
        spec.detail.empty() ? "" : absl::StrCat(" (", spec.detail, ")"), " of ",
        DTypeName(dtype), shape.ToString(), " on ", Where());
    absl::StatusOr<ncclDataType_t> type = NcclType(dtype, spec.reduces);
    if (!type.ok()) {
      prepared.invalid = type.status();
      return prepared;
    }
    prepared.type = *type;
    if (!spec.invalid.ok()) {
      prepared.invalid = spec.invalid;
      return prepared;
    }
    absl::StatusOr<TensorShape> part = shape;
    if (spec.output == Output::kPart || spec.count == Count::kPart) {
      part = Part(shape);
      if (!part.ok()) {
        prepared.invalid = part.status();
        return prepared;
      }
    }
    absl::StatusOr<TensorShape> output = shape;
    switch (spec.output) {
      case Output::kLikeInput:
        break;
      case Output::kStacked:
        output = Stacked(shape);
        break;
      case Output::kPart:
        output = part;
        break;
      case Output::kNone:
        output = TensorShape::Create({0});
        break;
      case Output::kGiven:
        output = spec.given;
        break;
    }
    if (!output.ok()) {
      prepared.invalid = output.status();
      return prepared;
    }
    prepared.shape = *std::move(output);
    const TensorShape& counted = spec.count == Count::kPart    ? *part
                                 : spec.count == Count::kGiven ? spec.given
                                                               : shape;
    prepared.count = static_cast<size_t>(counted.num_elements());
    return prepared;
  }

  // The spec's call with the prepared count and type bound.
  static std::function<ncclResult_t(const void*, void*, cudaStream_t)> Bind(
      const Spec& spec, const Prepared& prepared) {
    return [call = spec.call, count = prepared.count, type = prepared.type](
               const void* in, void* out, cudaStream_t stream) {
      return call(in, out, count, type, stream);
    };
  }

  absl::StatusOr<DenseHostTensor> RunOnHost(const Spec& spec,
                                            const DenseHostTensor& input,
                                            absl::Duration timeout) {
    Prepared prepared = Prepare(spec, input.dtype(), input.shape());
    if (!prepared.invalid.ok()) return Invalid(prepared.what, prepared.invalid);
    return HostCollective(prepared.what, timeout, input, prepared.shape,
                          Bind(spec, prepared));
  }

  AsyncValueRef<gpu::DeviceTensor> RunOnDevice(const Spec& spec,
                                               const gpu::DeviceTensor& input,
                                               absl::Duration timeout) {
    Prepared prepared = Prepare(spec, input.dtype(), input.shape());
    if (!prepared.invalid.ok()) {
      return InvalidValue<gpu::DeviceTensor>(prepared.what, prepared.invalid);
    }
    return DeviceCollective(prepared.what, timeout, input, prepared.shape,
                            Bind(spec, prepared));
  }

  // A bad argument: fatal, with the generation, and the group keeps
  // working (nothing reached NCCL).
  absl::Status Invalid(const std::string& what, const absl::Status& cause) {
    ErrorContext context;
    context.generation = generation();
    return AddErrorContext(
        MarkFailureClass(WithMessagePrefix(cause, what + ": "),
                         FailureClass::kFatal),
        context);
  }

  template <typename T>
  AsyncValueRef<T> InvalidValue(const std::string& what,
                                const absl::Status& cause) {
    AsyncValueRef<T> value = MakeUnconstructedAsyncValueRef<T>();
    absl::Status error = Invalid(what, cause);
    // A missing device or a refused call keeps its own class.
    if (cause.code() != absl::StatusCode::kInvalidArgument) {
      error = MarkFailureClass(error, Classify(cause));
    }
    value.SetError(std::move(error));
    return value;
  }

  absl::StatusOr<TensorShape> Stacked(const TensorShape& shape) const {
    std::vector<int64_t> dims = {size()};
    dims.insert(dims.end(), shape.dims().begin(), shape.dims().end());
    return TensorShape::Create(dims);
  }

  // Dimension 0 split into size() equal parts: one part's shape.
  absl::StatusOr<TensorShape> Part(const TensorShape& shape) const {
    if (shape.rank() == 0 || shape.dim(0) % size() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("the input's dimension 0 must split into ", size(),
                       " equal parts, but its shape is ", shape.ToString()));
    }
    std::vector<int64_t> dims(shape.dims().begin(), shape.dims().end());
    dims[0] /= size();
    return TensorShape::Create(dims);
  }

  absl::Duration Timeout(absl::Duration timeout) const {
    return timeout == absl::InfiniteDuration() ? default_timeout_ : timeout;
  }

  // Puts `call` on the communicator's stream behind the work on
  // `after_stream` so far, watched until `timeout`; `done` gets the outcome.
  absl::Status Launch(const std::string& what, absl::Duration timeout,
                      cudaStream_t after_stream, NcclCall call,
                      std::shared_ptr<void> buffers,
                      std::function<void(absl::Status)> done) {
    timeout = Timeout(timeout);
    if (timeout <= absl::ZeroDuration()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the timeout must be positive, got ", absl::FormatDuration(timeout)));
    }
    NcclOp op;
    op.what = what;
    op.timeout = timeout;
    op.deadline = absl::Now() + timeout;
    // The watch serialises its collectives, so they share one event.
    op.prologue = [api = api_, event = order_event_, after_stream,
                   stream = watch_->stream()] {
      cudaError_t recorded = api->EventRecord(event, after_stream);
      return recorded != cudaSuccess ? recorded
                                     : api->StreamWaitEvent(stream, event);
    };
    op.enqueue = [call = std::move(call), stream = watch_->stream()] {
      return call(stream);
    };
    op.done = std::move(done);
    op.buffers = std::move(buffers);
    watch_->Submit(std::move(op));
    return absl::OkStatus();
  }

  // A host collective: `input` in, `call`, a tensor of `output_shape` out.
  absl::StatusOr<DenseHostTensor> HostCollective(
      const std::string& what, absl::Duration timeout,
      const DenseHostTensor& input, const TensorShape& output_shape,
      std::function<ncclResult_t(const void*, void*, cudaStream_t)> call) {
    absl::StatusOr<DenseHostTensor> output =
        DenseHostTensor::Create(input.dtype(), output_shape, allocator_);
    if (!output.ok()) return Invalid(what, output.status());
    // One host collective at a time: they share the staging memory.
    std::lock_guard<std::mutex> host(host_mu_);
    absl::StatusOr<std::shared_ptr<Staging>> staging =
        StagingFor(input.num_bytes(), output->num_bytes());
    if (!staging.ok()) return Fail(what, staging.status());
    Staging& memory = **staging;
    if (input.num_bytes() > 0) {
      absl::Status copied = CudaStatus(
          *api_,
          api_->MemcpyAsync(memory.in, input.raw_data(), input.num_bytes(),
                            cudaMemcpyHostToDevice, copy_stream_),
          "copying the input to the device");
      if (!copied.ok()) return Fail(what, copied);
    }
    Completion completion;
    absl::Status launched = Launch(
        what, timeout, copy_stream_,
        [call = std::move(call), in = memory.in, out = memory.out](
            cudaStream_t stream) { return call(in, out, stream); },
        *staging, completion.Done());
    if (!launched.ok()) return Invalid(what, launched);
    absl::Status status = completion.Wait();
    if (!status.ok()) return status;
    if (output->num_bytes() > 0) {
      absl::Status copied = CudaStatus(
          *api_,
          api_->MemcpyAsync(output->raw_data(), memory.out, output->num_bytes(),
                            cudaMemcpyDeviceToHost, copy_stream_),
          "copying the result to the host");
      if (copied.ok()) {
        copied = CudaStatus(*api_, api_->StreamSynchronize(copy_stream_),
                            "copying the result to the host");
      }
      if (!copied.ok()) return Fail(what, copied);
    }
    return std::move(*output);
  }

  // A failure outside NCCL (CUDA memory or copies): breaks the group.
  absl::Status Fail(const std::string& what, const absl::Status& cause) {
    watch_->Abort(WithMessagePrefix(cause, what + ": "));
    return watch_->health();
  }

  // With host_mu_ held: staging memory of at least these sizes.
  absl::StatusOr<std::shared_ptr<Staging>> StagingFor(size_t in_bytes,
                                                      size_t out_bytes) {
    if (staging_ && staging_->in_bytes >= in_bytes &&
        staging_->out_bytes >= out_bytes) {
      return staging_;
    }
    // The old one is freed when the collectives that hold it are over.
    auto staging = std::make_shared<Staging>();
    staging->api = api_;
    staging->in_bytes = std::max(in_bytes, staging_ ? staging_->in_bytes : 0);
    staging->out_bytes =
        std::max(out_bytes, staging_ ? staging_->out_bytes : 0);
    absl::Status allocated =
        CudaStatus(*api_, api_->SetDevice(device_ordinal_), "cudaSetDevice");
    if (allocated.ok()) {
      allocated = CudaStatus(
          *api_,
          api_->Malloc(&staging->in, std::max<size_t>(staging->in_bytes, 1)),
          absl::StrCat("cudaMalloc of ", staging->in_bytes, " staging bytes"));
    }
    if (allocated.ok()) {
      allocated = CudaStatus(
          *api_,
          api_->Malloc(&staging->out, std::max<size_t>(staging->out_bytes, 1)),
          absl::StrCat("cudaMalloc of ", staging->out_bytes, " staging bytes"));
    }
    if (!allocated.ok()) return allocated;
    staging_ = staging;
    return staging;
  }

  absl::StatusOr<RCReference<gpu::GpuDevice>> Device() const {
    if (!device_tensors_) {
      return absl::FailedPreconditionError(
          "device tensors need the CUDA runtime's device, which this group "
          "was made without");
    }
    return gpu::GpuDevice::Shared(device_ordinal_);
  }

  // Launches `call` on `input`'s device after the work on its stream.
  absl::Status LaunchOnDevice(const std::string& what, absl::Duration timeout,
                              const gpu::DeviceTensor& input, NcclCall call,
                              std::shared_ptr<void> buffers,
                              std::function<void(absl::Status)> done) {
    if (!device_tensors_) return Device().status();
    if (input.device()->ordinal() != device_ordinal_) {
      return absl::InvalidArgumentError(
          absl::StrCat("the tensor is on ", input.device()->ToString(),
                       " but the group's rank is on gpu:", device_ordinal_));
    }
    return Launch(what, timeout,
                  input.device()->stream(input.buffer()->stream_index()),
                  std::move(call), std::move(buffers), std::move(done));
  }

  // A device collective of `input` into a new tensor of `output_shape`.
  AsyncValueRef<gpu::DeviceTensor> DeviceCollective(
      const std::string& what, absl::Duration timeout,
      const gpu::DeviceTensor& input, const TensorShape& output_shape,
      std::function<ncclResult_t(const void*, void*, cudaStream_t)> call) {
    if (!device_tensors_) {
      return InvalidValue<gpu::DeviceTensor>(what, Device().status());
    }
    absl::StatusOr<gpu::DeviceTensor> output = gpu::DeviceTensor::Allocate(
        input.device().CopyRef(), input.dtype(), output_shape,
        input.buffer()->stream_index());
    if (!output.ok()) {
      return InvalidValue<gpu::DeviceTensor>(what, output.status());
    }
    auto buffers =
        std::make_shared<std::pair<gpu::DeviceTensor, gpu::DeviceTensor>>(
            input, *output);
    return Deliver(
        what, timeout, input, std::move(buffers),
        [call = std::move(call), in = input.data(), out = output->data()](
            cudaStream_t stream) { return call(in, out, stream); },
        *output);
  }

  // Launches `call` after the work on `after`'s stream and returns `result`
  // (by default `after`) once it is done.
  AsyncValueRef<gpu::DeviceTensor> Deliver(
      const std::string& what, absl::Duration timeout,
      const gpu::DeviceTensor& after, std::shared_ptr<void> buffers,
      NcclCall call, std::optional<gpu::DeviceTensor> result = std::nullopt) {
    auto value = std::make_shared<AsyncValueRef<gpu::DeviceTensor>>(
        MakeUnconstructedAsyncValueRef<gpu::DeviceTensor>());
    gpu::DeviceTensor delivered = result ? *result : after;
    absl::Status launched = LaunchOnDevice(
        what, timeout, after, std::move(call), std::move(buffers),
        [value, delivered](absl::Status status) {
          if (status.ok()) {
            value->emplace(delivered);
          } else {
            value->SetError(std::move(status));
          }
        });
    if (!launched.ok()) {
      return InvalidValue<gpu::DeviceTensor>(what, launched);
    }
    return value->CopyRef();
  }

  NcclApi* const api_;
  const int device_ordinal_;
  const bool device_tensors_;
  const absl::Duration default_timeout_;
  HostAllocator* const allocator_;
  const std::shared_ptr<NcclCommWatch> watch_;
  const cudaStream_t copy_stream_;
  const cudaEvent_t order_event_;
  const std::string created_by_;
  std::mutex host_mu_;
  std::shared_ptr<Staging> staging_;
};

absl::Status ValidateOptions(const NcclGroupOptions& options) {
  if (options.store_address.empty() && options.parent == nullptr) {
    return absl::InvalidArgumentError(
        "nccl group: no store address (and no parent group)");
  }
  if (options.size < 1 || options.rank < 0 || options.rank >= options.size) {
    return absl::InvalidArgumentError(
        absl::StrCat("nccl group: rank ", options.rank,
                     " is not in a group of size ", options.size));
  }
  if (options.generation < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "nccl group: generation ", options.generation, " is negative"));
  }
  if (options.connect_timeout <= absl::ZeroDuration() ||
      options.default_timeout <= absl::ZeroDuration() ||
      options.abort_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("nccl group: timeouts must be positive");
  }
  if (options.device < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("nccl group: device ", options.device, " is negative"));
  }
  return absl::OkStatus();
}

// Makes the next generation's communicator from `from`'s into `*slot`
// (written by NCCL when it is done): by shrink when `excluded` names ranks
// that left, by split when none did, when this NCCL has the call. Sets
// `created_by` to which, and leaves it empty when neither applies.
ncclResult_t SplitFrom(NcclApi& api, NcclCommWatch& from,
                       std::vector<int> excluded, int rank,
                       ncclConfig_t* config, ncclComm_t* slot,
                       std::string* created_by) {
  std::unique_lock<std::mutex> nccl = from.LockNccl();
  if (!excluded.empty() && api.HasCommShrink()) {
    *created_by = "shrink";
#ifdef NCCL_SHRINK_ABORT
    // The excluded ranks are gone: the parent's operations in flight
    // cannot finish.
    const int flags = NCCL_SHRINK_ABORT;
#else
    const int flags = 0;
#endif
    return api.CommShrink(from.comm(), excluded.data(),
                          static_cast<int>(excluded.size()), slot, config,
                          flags);
  }
  if (excluded.empty() && api.HasCommSplit()) {
    *created_by = "split";
    return api.CommSplit(from.comm(), /*color=*/0, rank, slot, config);
  }
  return ncclSuccess;
}

// Polls until the communicator being made is ready, fails, or `deadline`
// passes. Until a split is done NCCL reports its progress on the parent
// (`splitting`) and the new communicator is NULL: `comm` is read from
// `slot` once the parent says the split is over, and polled itself after
// (at once, for init).
absl::Status AwaitCommunicator(NcclApi& api, NcclCommWatch* splitting,
                               const ncclComm_t& slot, absl::Time deadline,
                               absl::Duration connect_timeout,
                               ncclComm_t& comm) {
  while (true) {
    ncclResult_t async = ncclSuccess;
    ncclResult_t read = ncclSuccess;
    if (comm != nullptr) {
      read = api.CommGetAsyncError(comm, &async);
    } else {
      std::unique_lock<std::mutex> nccl = splitting->LockNccl();
      read = api.CommGetAsyncError(splitting->comm(), &async);
      if (read == ncclSuccess && async == ncclSuccess) {
        comm = slot;
        if (comm == nullptr) {
          return absl::InternalError(
              "the split finished without a communicator");
        }
        continue;
      }
    }
    if (read != ncclSuccess) async = read;
    if (async == ncclSuccess) return absl::OkStatus();
    if (async != ncclInProgress) {
      return NcclStatus(api, async, "joining the communicator", comm);
    }
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("the ranks did not all join within ",
                       absl::FormatDuration(connect_timeout)));
    }
    absl::SleepFor(kCreatePoll);
  }
}

// The device `options` names exists; `what` names the group for errors.
absl::Status CheckDevice(NcclApi& api, const NcclGroupOptions& options,
                         const std::string& what) {
  int devices = 0;
  cudaError_t counted = api.GetDeviceCount(&devices);
  if (counted != cudaSuccess || devices == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no CUDA device: ", what, ": cudaGetDeviceCount says ",
        counted == cudaSuccess ? "0" : api.CudaErrorString(counted)));
  }
  if (options.device >= devices) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": the machine has ", devices, " CUDA device(s)"));
  }
  return absl::OkStatus();
}

// A communicator asked of NCCL and not yet known to be ready.
struct PendingCommunicator {
  // A split (or shrink) of a non-blocking communicator writes the new one
  // here from NCCL's own thread when it is done, which may be after the
  // group has given up: the slot then lives as long as the parent's
  // communicator.
  std::shared_ptr<ncclComm_t> slot = std::make_shared<ncclComm_t>(nullptr);
  // Known once ready; at once for init, after the split for a split.
  ncclComm_t comm = nullptr;
  // The parent's watch while the communicator is split from it.
  NcclCommWatch* splitting = nullptr;
  ncclResult_t result = ncclSuccess;
  std::string created_by;  // "split", "shrink" or "init"
};

// Asks NCCL for the group's communicator: split (or shrunk) from a healthy
// parent when NCCL can, otherwise made anew from a unique id exchanged
// through the store.
absl::StatusOr<PendingCommunicator> StartCommunicator(
    NcclApi& api, const NcclGroupOptions& options, NcclGroupImpl* parent,
    absl::Time deadline, ncclConfig_t* config) {
  PendingCommunicator pending;
  if (parent != nullptr && parent->health().ok()) {
    pending.result = SplitFrom(api, parent->watch(),
                               options.excluded_parent_ranks, options.rank,
                               config, pending.slot.get(), &pending.created_by);
    if (!pending.created_by.empty()) pending.splitting = &parent->watch();
  }
  if (pending.created_by.empty()) {
    pending.created_by = "init";
    absl::StatusOr<ncclUniqueId> id = ExchangeUniqueId(
        api, options.store_address, options.generation, options.rank, deadline);
    if (!id.ok()) return id.status();
    pending.result = api.CommInitRankConfig(pending.slot.get(), options.size,
                                            *id, options.rank, config);
    // ncclCommInitRankConfig returns the communicator at once, ready or not.
    pending.comm = *pending.slot;
  }
  return pending;
}

NcclCommWatchOptions WatchOptionsFor(const NcclGroupOptions& options,
                                     const NcclGroupEnvironment& environment,
                                     const std::string& name) {
  NcclCommWatchOptions watch_options;
  watch_options.name = name;
  watch_options.generation = options.generation;
  watch_options.abort_timeout = options.abort_timeout;
  watch_options.escalate = environment.escalate;
  watch_options.destroy_stream = true;
  watch_options.device = options.device;
  return watch_options;
}

// Gives up a communicator that failed to come up. One that exists is
// aborted by the watchdog, which escalates when the abort hangs; a split
// that never finished is aborted with its parent, which keeps the slot
// NCCL may still write.
void Abandon(NcclApi& api, const NcclGroupEnvironment& environment,
             const PendingCommunicator& pending, cudaStream_t stream,
             const NcclCommWatchOptions& watch_options,
             const absl::Status& error) {
  if (pending.comm != nullptr) {
    auto watch = std::make_shared<NcclCommWatch>(&api, pending.comm, stream,
                                                 watch_options);
    environment.watchdog->Watch(watch);
    watch->Abort(error);
    return;
  }
  if (stream != nullptr) api.StreamDestroy(stream);
  if (pending.splitting != nullptr) {
    pending.splitting->KeepUntilReleased(pending.slot);
    pending.splitting->Abort(error);
  }
}

// The stream that copies a collective's input and the event that orders
// the collective after it.
absl::Status CreateCopyStream(NcclApi& api, cudaStream_t* copy_stream,
                              cudaEvent_t* order_event) {
  absl::Status created =
      CudaStatus(api, api.StreamCreate(copy_stream), "cudaStreamCreate");
  if (created.ok()) {
    created = CudaStatus(api, api.EventCreate(order_event), "cudaEventCreate");
  }
  if (!created.ok() && *copy_stream != nullptr) {
    api.StreamDestroy(*copy_stream);
  }
  return created;
}

}  // namespace

absl::StatusOr<RCReference<NcclGroup>> CreateNcclGroupIn(
    const NcclGroupOptions& options, const NcclGroupEnvironment& environment) {
  if (absl::Status invalid = ValidateOptions(options); !invalid.ok()) {
    return invalid;
  }
  NcclApi& api = *environment.api;
  const std::string name =
      absl::StrCat("rank ", options.rank, " of ", options.size, " (generation ",
                   options.generation, ")");
  const std::string what = absl::StrCat("creating the nccl communicator of ",
                                        name, " on gpu:", options.device);
  if (absl::Status device = CheckDevice(api, options, what); !device.ok()) {
    return device;
  }
  auto parent = dynamic_cast<NcclGroupImpl*>(options.parent);
  if (options.parent != nullptr && parent == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": the parent group is not an nccl group"));
  }
  ErrorContext origin;
  origin.generation = options.generation;
  auto fail = [&](const absl::Status& cause, FailureClass failure_class) {
    return MarkFailureClass(
        AddErrorContext(WithMessagePrefix(cause, what + " failed: "), origin),
        failure_class);
  };
  absl::Status device_set =
      CudaStatus(api, api.SetDevice(options.device), "cudaSetDevice");
  if (!device_set.ok()) return fail(device_set, FailureClass::kFatal);

  const absl::Time deadline = absl::Now() + options.connect_timeout;
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  // Calls return at once (maybe ncclInProgress), so the watchdog, not a
  // blocked caller, decides when a communicator is hopeless.
  config.blocking = 0;
  absl::StatusOr<PendingCommunicator> pending =
      StartCommunicator(api, options, parent, deadline, &config);
  if (!pending.ok()) return fail(pending.status(), Classify(pending.status()));
  const NcclCommWatchOptions watch_options =
      WatchOptionsFor(options, environment, name);
  cudaStream_t stream = nullptr;
  absl::Status created =
      CudaStatus(api, api.StreamCreate(&stream), "cudaStreamCreate");
  auto abandon = [&](const absl::Status& cause, FailureClass failure_class) {
    absl::Status error = fail(cause, failure_class);
    Abandon(api, environment, *pending, stream, watch_options, error);
    return error;
  };
  if (!created.ok()) return abandon(created, FailureClass::kRetryable);
  if (pending->result != ncclSuccess && pending->result != ncclInProgress) {
    return abandon(NcclStatus(api, pending->result,
                              absl::StrCat("nccl comm ", pending->created_by),
                              pending->comm),
                   pending->result == ncclInvalidArgument ||
                           pending->result == ncclInvalidUsage
                       ? FailureClass::kFatal
                       : FailureClass::kRetryable);
  }
  if (absl::Status joined =
          AwaitCommunicator(api, pending->splitting, *pending->slot, deadline,
                            options.connect_timeout, pending->comm);
      !joined.ok()) {
    return abandon(joined, FailureClass::kRetryable);
  }
  cudaStream_t copy_stream = nullptr;
  cudaEvent_t order_event = nullptr;
  created = CreateCopyStream(api, &copy_stream, &order_event);
  if (!created.ok()) return abandon(created, FailureClass::kRetryable);
  auto watch = std::make_shared<NcclCommWatch>(&api, pending->comm, stream,
                                               watch_options);
  environment.watchdog->Watch(watch);
  if (parent != nullptr) parent->Retire(options.generation);
  SLUICE_LOG(INFO) << "nccl group of " << name << " on gpu:" << options.device
                   << " made by " << pending->created_by << " (nccl "
                   << api.Version() << ")";
  return TakeRef<NcclGroup>(
      new NcclGroupImpl(options, environment, std::move(watch), copy_stream,
                        order_event, pending->created_by));
}

absl::StatusOr<RCReference<NcclGroup>> CreateNcclGroup(
    const NcclGroupOptions& options) {
  NcclGroupEnvironment environment;
  environment.api = RealNcclApi();
  environment.watchdog = NcclWatchdog::Process();
  // A first call into the CUDA runtime, before the drain is registered.
  int devices = 0;
  environment.api->GetDeviceCount(&devices);
  NcclWatchdog::DrainProcessAtExit();
  return CreateNcclGroupIn(options, environment);
}

bool HasCudaDevice() {
  absl::StatusOr<int> devices = gpu::CountDevices();
  return devices.ok() && *devices > 0;
}

}  // namespace sluice::ccl
