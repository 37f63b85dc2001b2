// Tracer: records a timeline of what a process ran (kernels, function calls,
// remote calls) and writes it as Chrome trace-event JSON, which Perfetto
// (ui.perfetto.dev) and chrome://tracing open. See docs/tracing.md.
//
// Each thread appends to a buffer of its own, so tracing never makes threads
// wait for each other; the buffers are merged when the trace is written.
#ifndef SLUICE_HOST_CONTEXT_TRACER_H_
#define SLUICE_HOST_CONTEXT_TRACER_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace sluice {

// The clock of every trace event: nanoseconds since the Unix epoch, so
// that the traces of two processes (a client and its workers) line up when
// loaded together, as far as their machines' clocks agree. The JSON holds
// microseconds; viewers read them as doubles, exact to a quarter of a
// microsecond at today's dates.
int64_t TraceNowNanos();

// One named argument shown with an event ("args" in the JSON).
struct TraceArg {
  std::string_view key;
  std::string_view value;
};

class Tracer {
 public:
  // `process_name` labels this process's rows in the viewer.
  explicit Tracer(std::string process_name);
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // A span of the calling thread from `start_ns` to `end_ns` ("ph":"X").
  // Spans of one thread nest: a span that starts inside another ends
  // inside it too.
  void AddSpan(std::string_view name, std::string_view category,
               int64_t start_ns, int64_t end_ns,
               std::initializer_list<TraceArg> args = {});

  // The two ends of a span that may begin on one thread and end on another
  // and overlap others freely ("ph":"b" and "ph":"e", matched by `id`).
  void AddAsyncBegin(std::string_view name, std::string_view category,
                     uint64_t id, int64_t time_ns,
                     std::initializer_list<TraceArg> args = {});
  void AddAsyncEnd(std::string_view name, std::string_view category,
                   uint64_t id, int64_t time_ns);

  // The two ends of an arrow ("ph":"s" and "ph":"f", matched by `id`), each
  // bound to the span of the calling thread that encloses `time_ns`. The
  // ends may be recorded by different processes' tracers.
  void AddFlowStart(std::string_view name, uint64_t id, int64_t time_ns);
  void AddFlowEnd(std::string_view name, uint64_t id, int64_t time_ns);

  // The trace: {"traceEvents": [...]}, with the names of the process and
  // of each thread that recorded something.
  std::string ToJson() const;
  absl::Status WriteFile(const std::string& path) const;

  // An id for AddFlowStart/AddAsyncBegin, unique across processes with
  // high probability (a random part per process and a counter) and exact
  // in JSON readers that hold numbers as doubles (under 2^53).
  static uint64_t NewId();

 private:
  struct Event;
  struct ThreadBuffer;

  ThreadBuffer& BufferOfThisThread();
  void Add(Event event);

  const std::string process_name_;
  // Tells this tracer from one destroyed before at the same address, for
  // the threads' cached buffer pointers.
  const uint64_t serial_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<ThreadBuffer>> buffers_;
};

}  // namespace sluice

#endif  // SLUICE_HOST_CONTEXT_TRACER_H_
