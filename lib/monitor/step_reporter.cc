// The training thread only appends to `buffer_` under `buffer_mu_`, which
// nothing ever waits on, and never wakes the sender: the sender wakes on its
// own every interval (or when TrainEnd asks), takes the whole buffer and
// writes it as one batch. Everything that can block (connecting, writing to
// a slow or stopped monitor) happens on the sender thread.
#include "sluice/monitor/step_reporter.h"

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "lib/monitor/monitor_service.grpc.pb.h"
#include "lib/support/grpc_credentials.h"
#include "lib/support/grpc_handshake.h"
#include "lib/support/grpc_liveness.h"
#include "sluice/support/fault_point.h"
#include "sluice/support/liveness.h"
#include "sluice/support/logging.h"

namespace sluice::monitor {
namespace {

// How long a rank's liveness ping waits for the monitor's answer (see
// OpenStream).
constexpr absl::Duration kReporterPingTimeout = absl::Seconds(10);

uint64_t NewIncarnation() {
  std::random_device device;
  uint64_t id = 0;
  while (id == 0) {
    id = (static_cast<uint64_t>(device()) << 32) ^ device();
  }
  return id;
}

}  // namespace

class StepReporter::Impl {
 public:
  Impl(std::string address, int rank, StepReporterOptions options)
      : address_(std::move(address)),
        rank_(rank),
        incarnation_(NewIncarnation()),
        options_(options) {
    sender_ = std::thread([this] { Run(); });
  }

  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(control_mu_);
      stop_ = true;
      if (active_ != nullptr) active_->TryCancel();
    }
    wake_.notify_all();
    sent_.notify_all();
    sender_.join();
  }

  // `name`: a STEP_BEGIN's step kind, or a PHASE_BEGIN's phase.
  void Record(proto::Signal::Kind kind, int64_t value,
              std::string_view name = "") {
    const int64_t time_us = absl::GetCurrentTimeNanos() / 1000;
    std::lock_guard<std::mutex> lock(buffer_mu_);
    if (static_cast<int>(buffer_.size()) >= options_.max_buffered) {
      buffer_.pop_front();
      ++dropped_;
    }
    buffer_.push_back({kind, value, std::string(name), time_us});
    ++recorded_;
  }

  void TrainEnd() {
    Record(proto::Signal::TRAIN_END, 0);
    uint64_t target;
    {
      std::lock_guard<std::mutex> lock(buffer_mu_);
      target = recorded_;
    }
    std::unique_lock<std::mutex> lock(control_mu_);
    flush_ = true;
    wake_.notify_all();
    sent_.wait_for(lock, absl::ToChronoMilliseconds(options_.train_end_wait),
                   [&] { return sent_through_ >= target || stop_; });
  }

  int rank() const { return rank_; }
  uint64_t incarnation() const { return incarnation_; }
  int64_t dropped() const {
    std::lock_guard<std::mutex> lock(buffer_mu_);
    return dropped_;
  }
  int64_t connections() const {
    std::lock_guard<std::mutex> lock(control_mu_);
    return connections_;
  }

 private:
  struct Pending {
    proto::Signal::Kind kind;
    int64_t value;     // the step or the epoch
    std::string name;  // the step kind, or the phase
    int64_t time_us;
  };

  // Sleeps one interval, or less when TrainEnd asks for a flush; returns
  // false once stopping.
  bool Sleep(absl::Duration duration) {
    std::unique_lock<std::mutex> lock(control_mu_);
    wake_.wait_for(lock, absl::ToChronoMicroseconds(duration),
                   [this] { return stop_ || flush_; });
    flush_ = false;
    return !stop_;
  }

  // Opens a report stream; false once stopping.
  bool OpenStream() {
    {
      std::lock_guard<std::mutex> lock(control_mu_);
      if (stop_) return false;
      context_ = std::make_unique<grpc::ClientContext>();
      // Cancelling before the call starts cancels it as it starts.
      active_ = context_.get();
      ++connections_;
    }
    // A fresh channel with a subchannel of its own connects at once: a
    // shared one would wait out gRPC's backoff from the failed attempts,
    // seconds after the monitor is back.
    grpc::ChannelArguments arguments;
    arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    // The monitor finds a silent rank by its own pings, within the
    // liveness bound; the rank needs only to reconnect to a silent
    // monitor some time. So its pings wait longer for their answer: a
    // monitor starved of CPU for a second (three busy ranks on two cores
    // under a sanitizer did it) is not taken for lost, and every rank's
    // stream with it.
    AddLivenessArguments(&arguments, LivenessTimeout(), kReporterPingTimeout);
    stub_ = proto::Monitor::NewStub(grpc::CreateCustomChannel(
        address_, NewChannelCredentials(), arguments));
    writer_ = stub_->Report(context_.get(), &ack_);
    // A new stream may reach a monitor that knows nothing of this rank:
    // tell it the open step and the finished epochs first.
    resend_state_ = true;
    return true;
  }

  // The stream broke; `status` is its end when already finished.
  void Disconnected(std::optional<grpc::Status> status) {
    if (!status) status = writer_->Finish();
    if (!warned_) {
      // A monitor that refuses this rank's certificate is not down, and
      // waiting for it will not help: the warning says what to fix.
      const grpc::Status checked = CheckHandshake(address_, *status);
      SLUICE_LOG(WARNING) << "rank " << rank_ << ": step monitor at "
                          << address_ << " unreachable ("
                          << (HandshakeFailed(checked)
                                  ? HandshakeReason(checked)
                                  : status->error_message())
                          << "); training goes on, retrying in the background";
      warned_ = true;
    }
    ForgetStream();
  }

  void ForgetStream() {
    std::lock_guard<std::mutex> lock(control_mu_);
    writer_.reset();
    active_ = nullptr;
    context_.reset();
  }

  void AddSignal(proto::SignalBatch& batch, const Pending& pending) {
    proto::Signal* signal = batch.add_signals();
    signal->set_kind(pending.kind);
    if (pending.kind == proto::Signal::EPOCH_END) {
      signal->set_epoch(pending.value);
    } else {
      signal->set_step(pending.value);
    }
    if (pending.kind == proto::Signal::PHASE_BEGIN) {
      signal->set_phase(pending.name);
    } else {
      signal->set_step_kind(pending.name);
    }
    signal->set_time_us(pending.time_us);
  }

  // What a monitor meeting this rank anew must know: the finished epochs,
  // the last step ended, the open step and the open phase, as of the
  // signals written so far.
  void Remember(const Pending& pending) {
    switch (pending.kind) {
      case proto::Signal::STEP_BEGIN:
        open_step_ = pending;
        break;
      case proto::Signal::STEP_END:
        open_step_.reset();
        last_step_end_ = pending;
        break;
      case proto::Signal::TRAIN_END:
        open_step_.reset();
        open_phase_.reset();
        break;
      case proto::Signal::PHASE_BEGIN:
        open_phase_ = pending;
        break;
      case proto::Signal::PHASE_END:
        open_phase_.reset();
        break;
      case proto::Signal::EPOCH_END:
        last_epoch_ = pending;
        break;
      default:
        break;
    }
  }

  void Run() {
    absl::Duration backoff = options_.min_backoff;
    bool failed = false;          // the last attempt to write failed
    bool trained = false;         // TRAIN_END reached the monitor
    std::deque<Pending> unsent;   // taken from the buffer, not yet written
    uint64_t unsent_through = 0;  // the sequence number of its last signal
    while (Sleep(failed ? backoff : options_.interval)) {
      {
        std::lock_guard<std::mutex> lock(buffer_mu_);
        for (Pending& pending : buffer_) unsent.push_back(std::move(pending));
        buffer_.clear();
        unsent_through = recorded_;
      }
      while (static_cast<int>(unsent.size()) > options_.max_buffered) {
        unsent.pop_front();
        std::lock_guard<std::mutex> lock(buffer_mu_);
        ++dropped_;
      }
      // Once training is over there is nothing to say, not even heartbeats.
      if (trained && unsent.empty()) continue;
      if (writer_ == nullptr && !OpenStream()) return;
      proto::SignalBatch batch;
      batch.set_rank(rank_);
      batch.set_incarnation(incarnation_);
      if (resend_state_) {
        if (last_epoch_) AddSignal(batch, *last_epoch_);
        if (last_step_end_) AddSignal(batch, *last_step_end_);
        if (open_step_) AddSignal(batch, *open_step_);
        if (open_phase_) AddSignal(batch, *open_phase_);
      }
      bool ends = false;
      for (const Pending& pending : unsent) {
        AddSignal(batch, pending);
        ends = ends || pending.kind == proto::Signal::TRAIN_END;
      }
      bool written = writer_->Write(batch);
      std::optional<grpc::Status> finished;
      // After TRAIN_END the stream is closed: the monitor's answer says it
      // applied everything, which is what TrainEnd waits for.
      if (written && ends) {
        written = writer_->WritesDone();
        finished = writer_->Finish();
        written = written && finished->ok();
      }
      if (!written) {
        Disconnected(finished);
        backoff = failed ? std::min(backoff * 2, options_.max_backoff)
                         : options_.min_backoff;
        failed = true;
        continue;
      }
      if (ends) ForgetStream();
      failed = false;
      trained = ends;
      if (warned_) {
        SLUICE_LOG(INFO) << "rank " << rank_ << ": step monitor at " << address_
                         << " reachable again";
        warned_ = false;
      }
      resend_state_ = false;
      for (const Pending& pending : unsent) Remember(pending);
      unsent.clear();
      {
        std::lock_guard<std::mutex> lock(control_mu_);
        sent_through_ = unsent_through;
      }
      sent_.notify_all();
    }
    if (writer_ != nullptr) {
      writer_->WritesDone();
      writer_->Finish();
    }
  }

  const std::string address_;
  const int rank_;
  const uint64_t incarnation_;
  const StepReporterOptions options_;

  mutable std::mutex buffer_mu_;
  std::deque<Pending> buffer_;
  int64_t dropped_ = 0;
  uint64_t recorded_ = 0;  // signals recorded so far

  // Guards what follows; wake_ wakes the sender early (TrainEnd, stop),
  // sent_ tells TrainEnd that signals were written.
  mutable std::mutex control_mu_;
  std::condition_variable wake_;
  std::condition_variable sent_;
  bool stop_ = false;
  bool flush_ = false;
  uint64_t sent_through_ = 0;  // signals written so far
  int64_t connections_ = 0;
  grpc::ClientContext* active_ = nullptr;  // cancelled when stopping

  // The sender thread's own.
  std::unique_ptr<proto::Monitor::Stub> stub_;
  std::unique_ptr<grpc::ClientContext> context_;
  std::unique_ptr<grpc::ClientWriter<proto::SignalBatch>> writer_;
  proto::ReportAck ack_;
  bool resend_state_ = false;
  bool warned_ = false;
  std::optional<Pending> open_step_;
  std::optional<Pending> last_step_end_;
  std::optional<Pending> open_phase_;
  std::optional<Pending> last_epoch_;

  std::thread sender_;
};

std::unique_ptr<StepReporter> StepReporter::Connect(
    std::string monitor_address, int rank, StepReporterOptions options) {
  return std::unique_ptr<StepReporter>(new StepReporter(
      std::make_unique<Impl>(std::move(monitor_address), rank, options)));
}

StepReporter* StepReporter::FromEnvironment() {
  static StepReporter* const reporter = []() -> StepReporter* {
    const char* address = std::getenv("SLUICE_MONITOR");
    if (address == nullptr || *address == '\0') return nullptr;
    const char* rank_text = std::getenv("SLUICE_RANK");
    int rank = -1;
    if (rank_text == nullptr || !absl::SimpleAtoi(rank_text, &rank) ||
        rank < 0) {
      SLUICE_LOG(WARNING) << "SLUICE_MONITOR is set but SLUICE_RANK ('"
                          << (rank_text ? rank_text : "")
                          << "') is not a rank; not reporting steps";
      return nullptr;
    }
    // Never destroyed: the training may signal until the process exits.
    return Connect(address, rank).release();
  }();
  return reporter;
}

StepReporter::StepReporter(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
StepReporter::~StepReporter() = default;

void StepReporter::StepBegin(int64_t step, std::string_view kind) {
  impl_->Record(proto::Signal::STEP_BEGIN, step, kind);
}
void StepReporter::StepEnd(int64_t step) {
  // Before Record takes the time, so that a delay lengthens the step the
  // monitor measures. A step's end has no error path: an injected error is
  // dropped, and only delay, hang and kill mean something here.
  SLUICE_FAULT_POINT("monitor.step.end").IgnoreError();
  impl_->Record(proto::Signal::STEP_END, step);
}
void StepReporter::EpochEnd(int64_t epoch) {
  impl_->Record(proto::Signal::EPOCH_END, epoch);
}
void StepReporter::PhaseBegin(std::string_view name) {
  impl_->Record(proto::Signal::PHASE_BEGIN, 0, name);
}
void StepReporter::PhaseEnd() { impl_->Record(proto::Signal::PHASE_END, 0); }
void StepReporter::TrainEnd() { impl_->TrainEnd(); }
int StepReporter::rank() const { return impl_->rank(); }
uint64_t StepReporter::incarnation() const { return impl_->incarnation(); }
int64_t StepReporter::dropped() const { return impl_->dropped(); }
int64_t StepReporter::connections() const { return impl_->connections(); }

}  // namespace sluice::monitor
