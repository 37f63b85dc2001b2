#include "sluice/host_context/tracer.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"

namespace sluice {

int64_t TraceNowNanos() { return absl::GetCurrentTimeNanos(); }

struct Tracer::Event {
  char phase;
  std::string name;
  std::string category;
  int64_t time_ns;
  int64_t duration_ns;  // "X" only
  uint64_t id;          // "b", "e", "s", "f"
  std::string args;     // a JSON object's members, without the braces
};

struct Tracer::ThreadBuffer {
  int64_t tid = 0;
  std::string thread_name;
  // Taken by the owning thread for each event and by ToJson(): never
  // contended while the program runs.
  std::mutex mu;
  std::vector<Event> events;
};

namespace {

std::atomic<uint64_t> next_serial{1};

// The buffer this thread last used, and whose tracer it belongs to.
struct CachedBuffer {
  uint64_t serial = 0;
  void* buffer = nullptr;
};
thread_local CachedBuffer cached_buffer;

void AppendJsonString(std::string* out, std::string_view text) {
  out->push_back('"');
  for (char c : text) {
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppend(out, absl::StrFormat("\\u%04x", c));
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

std::string FormatArgs(std::initializer_list<TraceArg> args) {
  std::string out;
  for (const TraceArg& arg : args) {
    if (!out.empty()) out.push_back(',');
    AppendJsonString(&out, arg.key);
    out.push_back(':');
    AppendJsonString(&out, arg.value);
  }
  return out;
}

// Microseconds with the nanoseconds as decimals, exactly.
std::string FormatMicros(int64_t nanos) {
  const char* sign = nanos < 0 ? "-" : "";
  const uint64_t magnitude =
      nanos < 0 ? -static_cast<uint64_t>(nanos) : static_cast<uint64_t>(nanos);
  return absl::StrFormat("%s%d.%03d", sign, magnitude / 1000, magnitude % 1000);
}

}  // namespace

Tracer::Tracer(std::string process_name)
    : process_name_(std::move(process_name)),
      serial_(next_serial.fetch_add(1, std::memory_order_relaxed)) {}

Tracer::~Tracer() = default;

uint64_t Tracer::NewId() {
  static const uint64_t process_part = [] {
    std::random_device random;
    return (static_cast<uint64_t>(random()) & ((uint64_t{1} << 21) - 1)) << 32;
  }();
  static std::atomic<uint32_t> counter{0};
  return process_part | (counter.fetch_add(1, std::memory_order_relaxed) + 1);
}

Tracer::ThreadBuffer& Tracer::BufferOfThisThread() {
  if (cached_buffer.serial == serial_) {
    return *static_cast<ThreadBuffer*>(cached_buffer.buffer);
  }
  const int64_t tid = static_cast<int64_t>(syscall(SYS_gettid));
  std::lock_guard<std::mutex> lock(mu_);
  ThreadBuffer* found = nullptr;
  for (const auto& buffer : buffers_) {
    if (buffer->tid == tid) found = buffer.get();
  }
  if (found == nullptr) {
    buffers_.push_back(std::make_unique<ThreadBuffer>());
    found = buffers_.back().get();
    found->tid = tid;
    char name[64] = {0};
    if (pthread_getname_np(pthread_self(), name, sizeof(name)) == 0) {
      found->thread_name = name;
    }
  }
  cached_buffer = CachedBuffer{serial_, found};
  return *found;
}

void Tracer::Add(Event event) {
  ThreadBuffer& buffer = BufferOfThisThread();
  std::lock_guard<std::mutex> lock(buffer.mu);
  buffer.events.push_back(std::move(event));
}

void Tracer::AddSpan(std::string_view name, std::string_view category,
                     int64_t start_ns, int64_t end_ns,
                     std::initializer_list<TraceArg> args) {
  Add(Event{'X', std::string(name), std::string(category), start_ns,
            end_ns - start_ns, 0, FormatArgs(args)});
}

void Tracer::AddAsyncBegin(std::string_view name, std::string_view category,
                           uint64_t id, int64_t time_ns,
                           std::initializer_list<TraceArg> args) {
  Add(Event{'b', std::string(name), std::string(category), time_ns, 0, id,
            FormatArgs(args)});
}

void Tracer::AddAsyncEnd(std::string_view name, std::string_view category,
                         uint64_t id, int64_t time_ns) {
  Add(Event{'e', std::string(name), std::string(category), time_ns, 0, id, ""});
}

void Tracer::AddFlowStart(std::string_view name, uint64_t id, int64_t time_ns) {
  Add(Event{'s', std::string(name), "flow", time_ns, 0, id, ""});
}

void Tracer::AddFlowEnd(std::string_view name, uint64_t id, int64_t time_ns) {
  Add(Event{'f', std::string(name), "flow", time_ns, 0, id, ""});
}

std::string Tracer::ToJson() const {
  const int64_t pid = getpid();
  std::string out = "{\"traceEvents\":[\n";
  absl::StrAppend(&out, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":", pid,
                  ",\"tid\":0,\"args\":{\"name\":");
  AppendJsonString(&out, process_name_);
  out.append("}}");
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& buffer : buffers_) {
    std::lock_guard<std::mutex> buffer_lock(buffer->mu);
    const std::string thread =
        absl::StrCat(",\"pid\":", pid, ",\"tid\":", buffer->tid);
    absl::StrAppend(&out, ",\n{\"ph\":\"M\",\"name\":\"thread_name\"", thread,
                    ",\"args\":{\"name\":");
    AppendJsonString(&out, buffer->thread_name.empty()
                               ? absl::StrCat("thread ", buffer->tid)
                               : buffer->thread_name);
    out.append("}}");
    for (const Event& event : buffer->events) {
      absl::StrAppend(&out, ",\n{\"ph\":\"", std::string(1, event.phase), "\"",
                      thread, ",\"ts\":", FormatMicros(event.time_ns),
                      ",\"name\":");
      AppendJsonString(&out, event.name);
      out.append(",\"cat\":");
      AppendJsonString(&out, event.category);
      if (event.phase == 'X') {
        absl::StrAppend(&out, ",\"dur\":", FormatMicros(event.duration_ns));
      } else {
        absl::StrAppend(&out, ",\"id\":", event.id);
      }
      // Both ends of an arrow attach to the span around them.
      if (event.phase == 's' || event.phase == 'f') out.append(",\"bp\":\"e\"");
      if (!event.args.empty())
        absl::StrAppend(&out, ",\"args\":{", event.args, "}");
      out.append("}");
    }
  }
  out.append("\n]}\n");
  return out;
}

absl::Status Tracer::WriteFile(const std::string& path) const {
  const std::string json = ToJson();
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) {
    return absl::NotFoundError(absl::StrCat("couldn't write the trace to '",
                                            path, "': ", std::strerror(errno)));
  }
  const bool written =
      std::fwrite(json.data(), 1, json.size(), file) == json.size();
  if (std::fclose(file) != 0 || !written) {
    return absl::DataLossError(absl::StrCat("couldn't write the trace to '",
                                            path, "': ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace sluice
