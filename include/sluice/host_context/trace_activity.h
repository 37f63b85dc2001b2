// What a request reports while it runs, when someone watches it: a Tracer
// records a timeline, an ActivityRegistry keeps the calls and remote calls
// still live so that a hang can be explained (sluice/executor/
// hang_explainer.h). Both are off unless a RequestObservers is set on the
// request (RequestContext::set_observers); see docs/tracing.md.
#ifndef SLUICE_HOST_CONTEXT_TRACE_ACTIVITY_H_
#define SLUICE_HOST_CONTEXT_TRACE_ACTIVITY_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/host_context/diagnostic.h"

namespace sluice {

class RequestContext;
class Tracer;

// What the calls and remote calls of the observed requests are doing now.
// Registering is one list insertion per call (and per remote call), never
// per kernel.
class ActivityRegistry {
 public:
  // A live call of a function (the executor's kind, see
  // lib/executor/frame_watch.h), linked into the registry while it lives.
  class Frame {
   public:
    virtual ~Frame() = default;

   private:
    friend class ActivityRegistry;
    Frame* previous_ = nullptr;
    Frame* next_ = nullptr;
  };

  // A remote call made by an observed request, from the moment it is made
  // until it is answered.
  struct RemoteCall {
    std::string task;      // "/job:worker/task:1"
    std::string function;  // the function called there
    // The kernel that made the call ("'tfrt_dist.call' at f.mlir:3:8"), and
    // its identity, which the explainer matches against the frames' kernels.
    std::string caller;
    const Frame* caller_frame = nullptr;
    uint32_t caller_kernel = 0;
    const RequestContext* request = nullptr;
    int64_t made_ns = 0;
    // When the request went out (its arguments were all available); 0
    // while it waits for them.
    std::atomic<int64_t> sent_ns{0};
  };

  ActivityRegistry() = default;
  ActivityRegistry(const ActivityRegistry&) = delete;
  ActivityRegistry& operator=(const ActivityRegistry&) = delete;

  void AddFrame(Frame* frame);
  void RemoveFrame(Frame* frame);

  // Registers a remote call; it stays until the returned handle is gone.
  std::shared_ptr<RemoteCall> AddRemoteCall(std::string task,
                                            std::string function,
                                            const RequestContext* request);

  // Calls `inspect` once with every live frame, oldest first, and every
  // remote call not yet answered, with the registry locked: they all stay
  // alive until it returns.
  void Inspect(const std::function<void(const std::vector<const Frame*>& frames,
                                        const std::vector<const RemoteCall*>&
                                            remote_calls)>& inspect) const;

 private:
  mutable std::mutex mu_;
  Frame* first_ = nullptr;
  Frame* last_ = nullptr;
  std::vector<std::weak_ptr<RemoteCall>> remote_calls_;
};

// Where an observed request reports. The pointers may be null; both must
// outlive every request they are set on.
struct RequestObservers {
  Tracer* tracer = nullptr;
  ActivityRegistry* activity = nullptr;
};

// The kernel this thread is running for an observed request: what a remote
// call made from inside a kernel names as its caller.
struct RunningKernel {
  const ActivityRegistry::Frame* frame = nullptr;
  uint32_t kernel = 0;
  std::string_view name;
  const KernelLocation* location = nullptr;
};

// This thread's running kernel, or null outside observed kernels.
const RunningKernel* CurrentRunningKernel();

// Makes `kernel` (may be null) this thread's running kernel; returns the
// previous one, for the caller to restore.
const RunningKernel* SetRunningKernel(const RunningKernel* kernel);

// "'tfrt.add.i32' at f.mlir:3:8", or "'tfrt.add.i32'" without a location.
std::string DescribeKernelAt(std::string_view name,
                             const KernelLocation* location);

}  // namespace sluice

#endif  // SLUICE_HOST_CONTEXT_TRACE_ACTIVITY_H_
