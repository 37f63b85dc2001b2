#include "sluice/gpu/gpu_device.h"

#include <map>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sluice/gpu/cuda_status.h"

namespace sluice {
namespace gpu {
namespace {

// An event recorded on a stream; completes when the work before it has.
class CudaEvent : public PolledEvent {
 public:
  CudaEvent(cudaEvent_t event, std::string where)
      : event_(event), where_(std::move(where)) {}
  ~CudaEvent() override { cudaEventDestroy(event_); }

  absl::StatusOr<State> Query() override {
    cudaError_t error = cudaEventQuery(event_);
    if (error == cudaErrorNotReady) return State::kPending;
    if (error == cudaSuccess) return State::kComplete;
    return CudaStatus(error, absl::StrCat("work on ", where_, " failed"));
  }

 private:
  cudaEvent_t event_;
  std::string where_;
};

}  // namespace

absl::StatusOr<int> CountDevices() {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    return absl::FailedPreconditionError(
        absl::StrCat("no CUDA device: cudaGetDeviceCount returned ",
                     DescribeCudaError(error)));
  }
  if (count == 0) {
    return absl::FailedPreconditionError(
        "no CUDA device: cudaGetDeviceCount found none");
  }
  return count;
}

absl::StatusOr<RCReference<GpuDevice>> GpuDevice::Open(int ordinal,
                                                       int num_streams) {
  absl::StatusOr<int> count = CountDevices();
  if (!count.ok()) return count.status();
  if (ordinal < 0 || ordinal >= *count) {
    return absl::InvalidArgumentError(
        absl::StrCat("no CUDA device ", ordinal, ": the machine has ", *count,
                     *count == 1 ? " device" : " devices"));
  }
  if (num_streams < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gpu:", ordinal, " needs at least one stream, got ", num_streams));
  }
  const std::string device = absl::StrCat("gpu:", ordinal);
  if (absl::Status status =
          CudaStatus(cudaSetDevice(ordinal), "cudaSetDevice for " + device);
      !status.ok()) {
    return status;
  }
  cudaDeviceProp properties;
  if (absl::Status status =
          CudaStatus(cudaGetDeviceProperties(&properties, ordinal),
                     "cudaGetDeviceProperties of " + device);
      !status.ok()) {
    return status;
  }
  std::vector<cudaStream_t> streams;
  for (int i = 0; i < num_streams; ++i) {
    cudaStream_t stream = nullptr;
    absl::Status status =
        CudaStatus(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
                   absl::StrCat("cudaStreamCreateWithFlags for stream ", i,
                                " of ", device));
    if (!status.ok()) {
      for (cudaStream_t created : streams) cudaStreamDestroy(created);
      return status;
    }
    streams.push_back(stream);
  }
  return TakeRef(
      new GpuDevice(ordinal, std::string(properties.name), std::move(streams)));
}

absl::StatusOr<RCReference<GpuDevice>> GpuDevice::Shared(int ordinal) {
  static std::mutex mutex;
  // Destroyed at exit, which destroys the streams. Should that come after
  // the CUDA runtime's own teardown, the calls return
  // cudaErrorCudartUnloading, which the destructor ignores.
  static std::map<int, RCReference<GpuDevice>> devices;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = devices.find(ordinal);
  if (it != devices.end()) return it->second.CopyRef();
  absl::StatusOr<RCReference<GpuDevice>> device = Open(ordinal);
  if (!device.ok()) return device.status();
  devices.emplace(ordinal, device->CopyRef());
  return device;
}

GpuDevice::~GpuDevice() {
  cudaSetDevice(ordinal_);
  for (cudaStream_t stream : streams_) cudaStreamDestroy(stream);
}

absl::Status GpuDevice::Activate() const {
  return CudaStatus(cudaSetDevice(ordinal_),
                    absl::StrCat("cudaSetDevice for ", ToString()));
}

absl::Status GpuDevice::CheckStream(int index) const {
  if (index >= 0 && index < num_streams()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      ToString(), " has no stream ", index, "; it has ", num_streams()));
}

std::string GpuDevice::ToString() const {
  return absl::StrCat("gpu:", ordinal_);
}

absl::StatusOr<std::unique_ptr<PolledEvent>> RecordEvent(
    const GpuDevice& device, int stream_index) {
  if (absl::Status status = device.CheckStream(stream_index); !status.ok()) {
    return status;
  }
  if (absl::Status active = device.Activate(); !active.ok()) return active;
  const std::string where =
      absl::StrCat(device.ToString(), " stream ", stream_index);
  cudaEvent_t event = nullptr;
  if (absl::Status status =
          CudaStatus(cudaEventCreateWithFlags(&event, cudaEventDisableTiming),
                     "cudaEventCreateWithFlags on " + where);
      !status.ok()) {
    return status;
  }
  auto polled = std::make_unique<CudaEvent>(event, where);
  if (absl::Status status =
          CudaStatus(cudaEventRecord(event, device.stream(stream_index)),
                     "cudaEventRecord on " + where);
      !status.ok()) {
    return status;
  }
  return polled;
}

AsyncValueRef<Chain> GpuDevice::OnStreamDone(int index, HostContext* host,
                                             EventPoller& poller) const {
  absl::StatusOr<std::unique_ptr<PolledEvent>> event =
      RecordEvent(*this, index);
  if (!event.ok()) {
    return AsyncValueRef<Chain>(MakeErrorAsyncValueRef(event.status()));
  }
  return poller.WatchOnHost(
      *std::move(event), host,
      absl::StrCat("synchronizing ", ToString(), " stream ", index));
}

}  // namespace gpu
}  // namespace sluice
