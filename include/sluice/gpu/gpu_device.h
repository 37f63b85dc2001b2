// A CUDA device and the streams Sluice enqueues work on.
#ifndef SLUICE_GPU_GPU_DEVICE_H_
#define SLUICE_GPU_GPU_DEVICE_H_

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sluice/gpu/event_poller.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"
#include "sluice/support/ref_count.h"

namespace sluice {
namespace gpu {

// The number of CUDA devices. FailedPrecondition "no CUDA device:
// cudaGetDeviceCount returned <error>" when there is none or no usable
// driver, which is how every GPU operation fails on a machine without one.
absl::StatusOr<int> CountDevices();

class GpuDevice : public ReferenceCounted<GpuDevice> {
 public:
  // Opens device `ordinal` with `num_streams` non-blocking streams (they do
  // not synchronize with the legacy default stream). FailedPrecondition
  // when there is no device, InvalidArgument for an ordinal the machine
  // does not have or num_streams < 1.
  static absl::StatusOr<RCReference<GpuDevice>> Open(int ordinal,
                                                     int num_streams = 1);

  // The process's device `ordinal` with one stream, opened on first use and
  // shared by every caller (kernels of every program), so that their work
  // is ordered on the same stream.
  static absl::StatusOr<RCReference<GpuDevice>> Shared(int ordinal);

  int ordinal() const { return ordinal_; }
  int num_streams() const { return static_cast<int>(streams_.size()); }
  cudaStream_t stream(int index = 0) const { return streams_[index]; }
  // The device's name, e.g. "NVIDIA H100 80GB HBM3".
  const std::string& name() const { return name_; }

  // Makes this the current device of the calling thread; every CUDA call
  // on behalf of this device is preceded by it.
  absl::Status Activate() const;

  // InvalidArgument ("gpu:0 has no stream 2; it has 1") unless the device
  // has stream `index`.
  absl::Status CheckStream(int index) const;

  // A chain that becomes available once all work enqueued on stream `index`
  // so far has completed, or an error when the stream failed: an event
  // recorded on the stream, watched by `poller`. Set on `host`'s work queue.
  AsyncValueRef<Chain> OnStreamDone(
      int index, HostContext* host,
      EventPoller& poller = EventPoller::Process()) const;

  // "gpu:0".
  std::string ToString() const;

 private:
  friend class ReferenceCounted<GpuDevice>;
  GpuDevice(int ordinal, std::string name, std::vector<cudaStream_t> streams)
      : ordinal_(ordinal),
        name_(std::move(name)),
        streams_(std::move(streams)) {}
  ~GpuDevice();

  const int ordinal_;
  const std::string name_;
  const std::vector<cudaStream_t> streams_;
};

// Records an event on stream `stream_index` of `device`, after the work
// enqueued there so far, for an EventPoller to watch. Its Query reports the
// stream's error, prefixed with the device and stream, when that work
// failed. Makes `device` the calling thread's current device.
absl::StatusOr<std::unique_ptr<PolledEvent>> RecordEvent(
    const GpuDevice& device, int stream_index);

}  // namespace gpu
}  // namespace sluice

#endif  // SLUICE_GPU_GPU_DEVICE_H_
