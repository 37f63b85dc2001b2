// How a call runs.
//
// A call gets a CallFrame: one register per value of the function and one
// ready count per kernel (its operand count). When a value becomes
// available, each of its strict users' counts drops by one; non-strict users
// (calls, control flow) count a value as soon as it is stored, available or
// not. A kernel whose count reaches zero is pushed on this thread's
// worklist. Ready kernels run in the order they became ready (first in,
// first out): on the single-threaded queue, a program's output order is
// therefore fixed by its dataflow and, among kernels ready at the same
// time, by their order in the program.
//
// Most calls never need the counts: while every kernel completes as it
// runs, the worklist order is known at load time (the function's run
// order), and a call runs its kernels one after another in that order
// (RunInOrder). Only a pending value, or kernels slow enough to hand to
// another thread, make the rest of the call run as dataflow. A branch of
// such a call runs its small regions the same way inside the call's own
// frame (RunRegionInline).
//
// Every loop that pushes work runs it before returning (nested calls run
// their own segment of the worklist on top of the caller's), so a frame is
// kept alive by whoever started the loop: Execute(), or the waiter that an
// unavailable value resolved. Waiters run in constant stack depth (see
// AsyncValue::AndThen), and so does a long chain of synchronous kernels:
// each kernel only pushes its users.
#include "lib/executor/executable_function.h"

#include <atomic>
#include <cassert>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/strings/str_cat.h"
#include "lib/executor/cpu_placement.h"
#include "lib/executor/frame_watch.h"
#include "lib/support/spin_wait.h"
#include "sluice/host_context/async_value_pool.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"

namespace sluice {
namespace executor_internal {
namespace {

class CallFrame;

struct WorkItem {
  CallFrame* frame;
  uint32_t record;  // offset of the kernel's record in its function's code
};

// The kernels ready to run on this thread, oldest first. Plain data, so
// that reaching it costs no initialization guard; the first growth
// registers a thread-exit hook that frees the items.
struct Worklist {
  WorkItem* items;
  size_t size;
  size_t capacity;
  // Kernels to run before the next look for an idle worker to share with.
  int until_share_check;
  // When the last look ran (steady clock, ns); 0 when none ran since this
  // thread's worklist was last empty.
  int64_t last_share_check;
  // Whether the kernels before the last look were slow enough to share.
  bool slow_before;

  void Push(WorkItem item) {
    if (ABSL_PREDICT_FALSE(size == capacity)) Grow();
    items[size++] = item;
  }
  void Grow();
};
thread_local Worklist worklist{};

struct WorklistRelease {
  ~WorklistRelease() {
    std::free(worklist.items);
    worklist = Worklist{};
  }
};

void Worklist::Grow() {
  if (items == nullptr) {
    thread_local WorklistRelease release;
    (void)release;
  }
  capacity = capacity == 0 ? 256 : 2 * capacity;
  void* grown = std::realloc(items, capacity * sizeof(WorkItem));
  if (grown == nullptr) throw std::bad_alloc();
  items = static_cast<WorkItem*>(grown);
}

// Runs the items pushed on this thread from `base` on, until none is left.
void RunWorklist(size_t base);

// Calls (tfrt.call, regions of control flow) that run synchronously nest on
// the native stack; this counts how deep on this thread.
thread_local int call_depth = 0;

// A wide program readies more kernels than one thread runs: every this many
// kernels, a thread with at least 2 * kMinSharedKernels waiting hands the
// newer half to an idle worker of the queue. Kernels of one frame then run
// on several threads at once (the frame's shared mode, as when a waiter
// runs them).
constexpr int kShareCheckInterval = 64;
constexpr size_t kMinSharedKernels = 16;
// Only if the last kShareCheckInterval kernels took at least this long on
// average: waking a worker takes microseconds, and a shared frame counts
// inputs atomically, which doubles the cost of a kernel that only adds.
// Cheap kernels run faster on one thread than handed around.
constexpr int64_t kMinSharedKernelNanos = 500;

// Called every kShareCheckInterval kernels: whether the kernels since the
// call before, and those before that, took kMinSharedKernelNanos or more
// on average. Two slow stretches in a row: one alone may be a pause between
// kernels (the thread preempted, a caller's work between two calls).
ABSL_ATTRIBUTE_NOINLINE bool SlowEnoughToShare() {
  Worklist& ready = worklist;
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  const int64_t last = std::exchange(ready.last_share_check, now);
  const bool slow =
      last != 0 && now - last >= kShareCheckInterval * kMinSharedKernelNanos;
  return std::exchange(ready.slow_before, slow) && slow;
}

// Frames of at least this size are kept for the function's next call (see
// ExecutableFunction::TakeSpareFrame).
constexpr size_t kMinSpareFrameBytes = 64 * 1024;

// Kernels with more operands or results than this use heap storage.
constexpr size_t kInlineValues = 16;

// Constructs `count` empty result slots in raw storage. One slot, the
// common case, goes without the loop that the compiler makes a memset call.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void ConstructResults(
    RCReference<AsyncValue>* results, uint32_t count) {
  if (count == 1) {
    new (&results[0]) RCReference<AsyncValue>();
    return;
  }
  for (uint32_t i = 0; i < count; ++i) {
    new (&results[i]) RCReference<AsyncValue>();
  }
}

// One split call (see SplitPlan): which band is next, how many kernels
// each has run, and whether the helper runs. Each count has a cache line of
// its own: the thread that advances one should not lose it to a reader of
// another. Shared with the helper's task, which may start after the call
// is over.
struct SplitRun {
  enum class Helper { kWaiting, kRunning, kDone, kAbandoned };
  struct alignas(64) Count {
    std::atomic<uint32_t> value{0};
  };
  Count next_band;
  Count ran[kSplitBands];
  std::atomic<Helper> helper{Helper::kWaiting};
};

// One register of a call: the value's AsyncValue, or, in an inline register
// (kInlineRegister) that a direct kernel set, null and the payload itself.
// An inline register holds an AsyncValue only when its kernel was skipped
// (the error) or ran through its KernelFrame (a watched call).
struct Register {
  RCReference<AsyncValue> value;
  alignas(8) unsigned char payload[8];
};

class CallFrame {
 public:
  // The frame and its registers and counts, in one block.
  static size_t SizeOf(const ExecutableFunction* function) {
    return sizeof(CallFrame) + sizeof(Register) * function->frame_registers +
           sizeof(std::atomic<int32_t>) * function->frame_counts;
  }

  static CallFrame* Create(const ExecutableFunction* function,
                           const ExecutionContext& context) {
    const size_t bytes = SizeOf(function);
    void* memory =
        bytes >= kMinSpareFrameBytes ? function->TakeSpareFrame() : nullptr;
    if (memory == nullptr) memory = internal::AllocateSmall(bytes);
    return new (memory) CallFrame(function, context);
  }

  void AddRef(uint32_t count = 1) {
    refs_.fetch_add(count, std::memory_order_relaxed);
  }
  void DropRef(uint32_t count = 1) {
    if (refs_.load(std::memory_order_acquire) == count ||
        refs_.fetch_sub(count, std::memory_order_acq_rel) == count) {
      const ExecutableFunction* function = function_;
      const size_t bytes = SizeOf(function);
      this->~CallFrame();
      if (bytes < kMinSpareFrameBytes || !function->KeepSpareFrame(this)) {
        internal::FreeSmall(this, bytes);
      }
    }
  }

  // Whether the thread asking holds the only reference: then no other thread
  // can run kernels of this frame, count inputs or read results, until this
  // one hands out a reference (registering a waiter), and plain loads and
  // stores do for the ready counts and the returned registers. The acquire
  // load orders this thread after whatever a waiter did before it dropped
  // its reference.
  bool IsExclusive() const {
    return refs_.load(std::memory_order_acquire) == 1;
  }

  ConcurrentWorkQueue& work_queue() const {
    return context_->host()->work_queue();
  }

  // Another thread is about to run `count` kernels of this frame, holding
  // the references taken here. Called on a thread that runs this frame's
  // kernels (see KeepContext()).
  void Share(uint32_t count) {
    KeepContext();
    AddRef(count);
  }

  enum class Which { kAll, kStrict, kNonStrict };

  // Counts one input event for each user of a value (of those `which`
  // selects). Returns whether any user was left out. `exclusive`: see
  // IsExclusive().
  bool NotifyUsers(const UserRef* users_begin, const UserRef* users_end,
                   Which which, bool exclusive) {
    bool skipped = false;
    Worklist& ready = worklist;
    for (const UserRef* user = users_begin; user != users_end; ++user) {
      const uint32_t flags = user->kernel_and_flags;
      const bool strict = (flags & kStrictUser) != 0;
      if ((which == Which::kStrict && !strict) ||
          (which == Which::kNonStrict && strict)) {
        skipped = true;
        continue;
      }
      if ((flags & kSingleInputUser) != 0 ||
          CountInput(flags & kUserKernelMask, exclusive)) {
        ready.Push(WorkItem{this, user->record});
      }
    }
    return skipped;
  }

  // Counts one input of `kernel`; true when it was the last one.
  bool CountInput(uint32_t kernel, bool exclusive) {
    return CountDown(ready_counts_[kernel], exclusive);
  }

  static bool CountDown(std::atomic<int32_t>& count, bool exclusive) {
    if (exclusive) {
      const int32_t left = count.load(std::memory_order_relaxed) - 1;
      count.store(left, std::memory_order_relaxed);
      return left == 0;
    }
    // A count of one is this thread's own last event: no other thread can
    // count it down any more, so the atomic decrement (the costly part of
    // a shared frame) is skipped. The acquire load orders this thread after
    // the decrements that made it one.
    return count.load(std::memory_order_acquire) == 1 ||
           count.fetch_sub(1, std::memory_order_acq_rel) == 1;
  }

  // A value was stored in a register. Non-strict users (calls, control
  // flow) count it now, pending or not; strict users count it once it is
  // available. Clears `exclusive` once a waiter may share the frame.
  ABSL_ATTRIBUTE_ALWAYS_INLINE void NotifyWhenAvailable(
      AsyncValue* value, const UserRef* users_begin, const UserRef* users_end,
      bool& exclusive) {
    if (users_begin == users_end) return;
    if (ABSL_PREDICT_TRUE(value->IsAvailable())) {
      NotifyUsers(users_begin, users_end, Which::kAll, exclusive);
      return;
    }
    if (WaitForValue(value, users_begin, users_end, exclusive)) {
      exclusive = false;
    }
  }

  // Counts one result of a kernel for its users, whose list starts at
  // `users` (a count, then that many UserRefs); `value` is null for a
  // payload kept in place, which is available. Returns where the next
  // result's list starts.
  ABSL_ATTRIBUTE_ALWAYS_INLINE const uint32_t* NotifyResultUsers(
      AsyncValue* value, const uint32_t* users, bool& exclusive) {
    const UserRef* first = reinterpret_cast<const UserRef*>(users + 1);
    const UserRef* last = first + *users;
    if (value == nullptr) {
      NotifyUsers(first, last, Which::kAll, exclusive);
    } else {
      NotifyWhenAvailable(value, first, last, exclusive);
    }
    return users + 1 + 2 * *users;
  }

  // Returns whether it registered a waiter.
  ABSL_ATTRIBUTE_NOINLINE bool WaitForValue(AsyncValue* value,
                                            const UserRef* users_begin,
                                            const UserRef* users_end,
                                            bool exclusive) {
    if (!NotifyUsers(users_begin, users_end, Which::kNonStrict, exclusive)) {
      return false;
    }
    KeepContext();
    AddRef();
    value->AndThen([this, users_begin, users_end] {
      const size_t base = worklist.size;
      NotifyUsers(users_begin, users_end, Which::kStrict, IsExclusive());
      RunWorklist(base);
      DropRef();
    });
    return true;
  }

  // The frame may outlive the call from here on: it needs a context of its
  // own instead of the caller's. Only the thread running Execute() gets here
  // first (a waiter or a shared kernel runs only after this ran), so the
  // switch is made once, before any other thread can read `context_`.
  void KeepContext() {
    if (shared_) return;
    shared_ = std::make_unique<SharedState>(*context_);
    context_ = &shared_->context;
    // Nor may it borrow its arguments any longer (see Start).
    for (uint32_t r : function_->argument_registers) {
      registers_[r].value->AddRef();
    }
  }

  // Arguments are borrowed: the caller holds them until Execute() returns,
  // and a frame that may outlive it takes references then (KeepContext).
  // No reader drops an argument's register, so the borrowed pointers stay
  // until the frame gives them back (~CallFrame).
  void Start(absl::Span<AsyncValue* const> arguments) {
    const ExecutableFunction& fn = *function_;
    const bool available = BorrowArguments(arguments.data());
    const bool in_order = watch_ == nullptr && available;
    InitCounts(/*ready_counts=*/!in_order);
    if (in_order) {
      RunInOrder();
      return;
    }
    if (watch_ != nullptr) watch_->Started(arguments);
    for (uint32_t record : fn.initially_ready) {
      worklist.Push(WorkItem{this, record});
    }
    bool exclusive = IsExclusive();
    for (size_t i = 0; i < arguments.size(); ++i) {
      NotifyWhenAvailable(
          arguments[i], fn.argument_users.data() + fn.argument_user_offsets[i],
          fn.argument_users.data() + fn.argument_user_offsets[i + 1],
          exclusive);
    }
  }

  // Runs the kernels one after another in run order (see
  // ExecutableFunction::run_order) for as long as each one's results are
  // available when it returns: then every kernel's inputs are there when
  // its turn comes, and nothing is counted or queued. A pending result, or
  // kernels slow enough to share with a worker, hand the rest to the
  // dataflow worklist (SwitchToDataflow).
  void RunInOrder();
  // Runs the function's SplitPlan with an idle worker of the queue.
  ABSL_ATTRIBUTE_NOINLINE void RunSplit();
  // Takes bands of the plan and runs them until none is left.
  void RunSplitBands(SplitRun& run);
  // Kernels up to run position `position` ran in order: counts the inputs
  // of the others that are still to come, queues those that have them all,
  // then counts the results of the kernel at `position` for its users.
  ABSL_ATTRIBUTE_NOINLINE void SwitchToDataflow(uint32_t position);
  void RunKernel(uint32_t record);
  // Runs a kernel through its DirectKernel entry: no KernelFrame, and the
  // result written in place into an inline register. False, having done
  // nothing, when the call is cancelled or an operand is an error or a
  // value of another kind (a forwarded one, say): the kernel then runs
  // through its frame, which handles those.
  bool RunDirectKernel(const KernelRecord& kernel);
  // A direct kernel through its frame: its inline operands as AsyncValues.
  ABSL_ATTRIBUTE_NOINLINE void RunDirectKernelInFrame(
      const KernelRecord& kernel);
  ABSL_ATTRIBUTE_NOINLINE void RunFramedKernel(const KernelRecord& kernel);
  ABSL_ATTRIBUTE_NOINLINE void RunWideKernel(const KernelRecord& kernel);
  // Runs a call or branch (KernelRecord::control) without its frame. False,
  // having done nothing, when the condition is not an available i1: the
  // kernel then runs through its frame.
  ABSL_ATTRIBUTE_NOINLINE bool RunControlKernel(const KernelRecord& kernel);
  // A kInlineIf kernel's chosen function, on its arguments: inline if this
  // frame runs in order.
  void RunInlineIf(const ExecutableFunction& region,
                   AsyncValue* const* arguments,
                   RCReference<AsyncValue>* results);
  // Runs `region`, a function with kernels, in this frame's region area
  // (see ExecutableFunction::frame_registers) as a call of it would run in
  // its own frame: this frame runs in order, so no other thread reads it
  // while the region's registers stand in for its own.
  void RunRegionInline(const ExecutableFunction& region,
                       AsyncValue* const* arguments,
                       RCReference<AsyncValue>* results);
  // The region running inline left a pending result at run position
  // `position`: moves its registers to a frame of its own, which runs the
  // rest as dataflow and hands over the results, pending or not.
  ABSL_ATTRIBUTE_NOINLINE void ContinueRegionInOwnFrame(
      uint32_t position, RCReference<AsyncValue>* results);
  void RunKernelWith(const KernelRecord& kernel, AsyncValue** arguments,
                     RCReference<AsyncValue>* results);
  void StoreResults(const KernelRecord& kernel,
                    RCReference<AsyncValue>* results);
  void DropOperands(const KernelRecord& kernel, bool exclusive);
  // Whether `kernel`, which this frame is running, is the last reader of
  // its operand `operand` (KernelFrame::IsArgUnique): the register's value
  // is dropped by this kernel alone, or by whichever reader counts its use
  // down last and every other reader already has. Arguments (the caller
  // holds them), returned values and values kept until the call ends (see
  // PlanDrops) are neither.
  static bool IsLastReader(const void* call, const void* record,
                           size_t operand) {
    const auto* frame = static_cast<const CallFrame*>(call);
    const auto& kernel = *static_cast<const KernelRecord*>(record);
    const uint32_t* operands = kernel.operands();
    const uint32_t r = operands[operand];
    // The other operand reads the same value.
    for (uint32_t i = 0; i < kernel.num_operands; ++i) {
      if (i != operand && operands[i] == r) return false;
    }
    const uint32_t* drops = kernel.drops();
    for (uint32_t i = 0; i < kernel.num_drops; ++i) {
      if (drops[i] == r) return true;
    }
    // A reader counts down once it ran (DropOperands), so a count of one is
    // this kernel's own use.
    const uint32_t* countdowns = kernel.countdowns();
    for (uint32_t i = 0; i < kernel.num_countdowns; ++i) {
      if (countdowns[2 * i] == r) {
        return frame->use_counts_[countdowns[2 * i + 1]].load(
                   std::memory_order_acquire) == 1;
      }
    }
    return false;
  }

  // The kernel's operands as AsyncValues: none is kept in place.
  void GatherArguments(const KernelRecord& kernel, AsyncValue** arguments) {
    const uint32_t* operands = kernel.operands();
    for (uint32_t i = 0; i < kernel.num_operands; ++i) {
      arguments[i] = registers_[operands[i]].value.get();
    }
  }

  FrameWatch* watch() const { return watch_.get(); }

  // Hands the function's results to the caller: values already produced,
  // or placeholders that the producing kernels resolve later.
  void Return(absl::Span<RCReference<AsyncValue>> results) {
    // Nobody else holds the frame: no kernel of it can still run, so every
    // result is in its register and nothing races with reading them.
    if (refs_.load(std::memory_order_acquire) == 1) {
      const ExecutableFunction& fn = *function_;
      for (size_t i = 0; i < results.size(); ++i) {
        Register& reg = registers_[fn.result_registers[i]];
        results[i] =
            fn.results_move ? std::move(reg.value) : reg.value.CopyRef();
      }
      return;
    }
    // Others hold the frame only through waiters, registered after
    // KeepContext() made the shared state.
    SharedState& shared = *shared_;
    std::lock_guard<std::mutex> lock(shared.results_mu);
    for (size_t i = 0; i < results.size(); ++i) {
      const uint32_t r = function_->result_registers[i];
      if (registers_[r].value) {
        results[i] = registers_[r].value.CopyRef();
      } else {
        RCReference<IndirectAsyncValue> placeholder = MakeIndirectAsyncValue();
        shared.pending_results.push_back({r, placeholder.CopyRef()});
        results[i] = std::move(placeholder);
      }
    }
    shared.returned = true;
  }

 private:
  CallFrame(const ExecutableFunction* function, const ExecutionContext& context)
      : function_(function),
        context_(&context),
        request_(context.request_context()),
        watch_(request_->observers() != nullptr
                   ? FrameWatch::Create(*function, context)
                   : nullptr),
        registers_(reinterpret_cast<Register*>(this + 1)),
        ready_counts_(reinterpret_cast<std::atomic<int32_t>*>(
            registers_ + function->frame_registers)),
        use_counts_(ready_counts_ + function->num_kernels()) {
    ConstructRegisters(registers_, function->num_registers);
  }

  // Makes `count` empty registers: the frame's own as it is made, and a
  // region's in the area as the region starts (each region leaves the area
  // empty).
  static void ConstructRegisters(Register* registers, uint32_t count) {
    for (uint32_t i = 0; i < count; ++i) new (&registers[i]) Register;
  }

  // Sets the use counts to their initial values, and the kernels' ready
  // counts if `ready_counts`: those matter only to a frame that runs as
  // dataflow.
  void InitCounts(bool ready_counts) {
    const std::vector<int32_t>& counts = function_->initial_counts;
    const size_t num_kernels = function_->num_kernels();
    if (ready_counts) {
      for (size_t i = 0; i < num_kernels; ++i) {
        new (&ready_counts_[i]) std::atomic<int32_t>(counts[i]);
      }
    }
    for (size_t i = num_kernels; i < counts.size(); ++i) {
      new (&use_counts_[i - num_kernels]) std::atomic<int32_t>(counts[i]);
    }
  }

  // Points the argument registers at `arguments` without taking references
  // (see Start). Returns whether every argument is available.
  bool BorrowArguments(AsyncValue* const* arguments) {
    const std::vector<uint32_t>& registers = function_->argument_registers;
    bool available = true;
    for (size_t i = 0; i < registers.size(); ++i) {
      registers_[registers[i]].value = TakeRef(arguments[i]);
      available = available && arguments[i]->IsAvailable();
    }
    return available;
  }

  // Registers left empty need no destructor: only the arguments and the
  // end registers are dropped.
  ~CallFrame() {
    if (shared_ == nullptr) {
      ReleaseArguments();
    } else {
      for (uint32_t r : function_->argument_registers) {
        registers_[r].value.reset();
      }
    }
    DropEndRegisters();
#ifndef NDEBUG
    for (uint32_t i = 0; i < function_->num_registers; ++i) {
      assert(registers_[i].value == nullptr && "a register no kernel dropped");
    }
#endif
  }

  // Gives the borrowed arguments back (see Start).
  void ReleaseArguments() {
    for (uint32_t r : function_->argument_registers) {
      (void)registers_[r].value.release();
    }
  }
  // Every kernel ran, and each dropped the registers it read last: only
  // these may still hold values.
  void DropEndRegisters() {
    for (uint32_t r : function_->end_registers) registers_[r].value.reset();
  }

  // Stores a kernel's result. Returned registers are stored under the lock
  // that Return() reads them under, and resolve its placeholders, outside
  // the lock: their waiters may run kernels of this very frame.
  void StoreResult(uint32_t result, RCReference<AsyncValue> value,
                   bool exclusive) {
    if ((result & kReturnedRegister) == 0 ||
        (exclusive && (shared_ == nullptr || !shared_->returned))) {
      registers_[result & kRegisterMask].value = std::move(value);
      return;
    }
    StoreReturnedResult(result & kRegisterMask, std::move(value));
  }

  void StoreReturnedResult(uint32_t r, RCReference<AsyncValue> value) {
    SharedState& shared = *shared_;
    std::vector<RCReference<IndirectAsyncValue>> to_resolve;
    RCReference<AsyncValue> stored;
    {
      std::lock_guard<std::mutex> lock(shared.results_mu);
      registers_[r].value = std::move(value);
      if (!shared.returned) return;
      stored = registers_[r].value.CopyRef();
      for (auto& pending : shared.pending_results) {
        if (pending.first == r && pending.second) {
          to_resolve.push_back(std::move(pending.second));
        }
      }
    }
    for (auto& placeholder : to_resolve)
      placeholder->ForwardTo(stored.CopyRef());
  }

  // What a frame needs once other threads may hold it (KeepContext): most
  // calls never get there, and skip making it.
  struct SharedState {
    explicit SharedState(const ExecutionContext& caller) : context(caller) {}
    ExecutionContext context;
    // Guards the returned registers against Return() (see StoreResult).
    std::mutex results_mu;
    bool returned = false;
    std::vector<std::pair<uint32_t, RCReference<IndirectAsyncValue>>>
        pending_results;
  };

  std::atomic<uint32_t> refs_{1};
  // The function whose kernels run, and its registers and use counts: the
  // frame's own, or while a region runs inline, the region's (see
  // RunRegionInline).
  const ExecutableFunction* function_;
  // The caller's context while the call runs synchronously; the frame's own
  // copy once it may outlive the call (KeepContext).
  const ExecutionContext* context_;
  std::unique_ptr<SharedState> shared_;
  // Whether kernels run in order (RunInOrder), and whether the last one
  // left a pending result.
  bool in_order_ = false;
  bool pending_ = false;
  // Both contexts' request: read by every kernel for cancellation.
  RequestContext* const request_;
  const std::unique_ptr<FrameWatch> watch_;  // null unless observed
  Register* registers_;
  std::atomic<int32_t>* const ready_counts_;
  std::atomic<int32_t>* use_counts_;  // see KernelRecord
};

void CallFrame::RunInOrder() {
  const ExecutableFunction& fn = *function_;
  const uint32_t* order = fn.run_order.data();
  const uint32_t num_kernels = static_cast<uint32_t>(fn.run_order.size());
  in_order_ = true;
  if (fn.split != nullptr && work_queue().HasIdleWorker()) {
    RunSplit();
    in_order_ = false;
    return;
  }
  // Counted here, not in the thread's worklist: the calls among these
  // kernels count their own, so a look comes every kShareCheckInterval
  // kernels of one frame.
  int until_share_check = kShareCheckInterval;
  for (uint32_t position = 0; position < num_kernels; ++position) {
    RunKernel(order[position]);
    if (ABSL_PREDICT_FALSE(pending_)) {
      SwitchToDataflow(position);
      return;
    }
    if (ABSL_PREDICT_FALSE(--until_share_check == 0)) {
      until_share_check = kShareCheckInterval;
      if (SlowEnoughToShare() && work_queue().HasIdleWorker()) {
        SwitchToDataflow(position);
        return;
      }
    }
  }
  in_order_ = false;
}

void CallFrame::RunSplit() {
  auto run = std::make_shared<SplitRun>();
  // The helper's kernels count as another thread's (IsExclusive()), and
  // a returned register is stored under the shared state's lock.
  Share(1);
  const int caller_cpu = CurrentCpu();
  work_queue().AddTask([this, run, caller_cpu] {
    SplitRun::Helper waiting = SplitRun::Helper::kWaiting;
    if (!run->helper.compare_exchange_strong(
            waiting, SplitRun::Helper::kRunning, std::memory_order_acquire)) {
      return;  // the call is over, and the frame may be gone
    }
    MoveOffCpu(caller_cpu);
    RunSplitBands(*run);
    run->helper.store(SplitRun::Helper::kDone, std::memory_order_release);
  });
  RunSplitBands(*run);
  // A helper that has not started by now never will; one that has may
  // still be running a band, whose values are this call's. Either way the
  // frame ends with this thread: a frame freed on another thread's heap
  // comes back as fresh pages on this one, and faults them in again.
  SplitRun::Helper waiting = SplitRun::Helper::kWaiting;
  if (!run->helper.compare_exchange_strong(
          waiting, SplitRun::Helper::kAbandoned, std::memory_order_acquire)) {
    internal::SpinUntil([&] {
      return run->helper.load(std::memory_order_acquire) ==
             SplitRun::Helper::kDone;
    });
  }
  DropRef();
}

void CallFrame::RunSplitBands(SplitRun& run) {
  const SplitPlan& plan = *function_->split;
  const uint32_t num_bands = static_cast<uint32_t>(plan.bands.size());
  // How far this thread last saw each band run: most waits are then over
  // without reading another thread's count.
  uint32_t seen[kSplitBands] = {};
  for (;;) {
    const uint32_t b =
        run.next_band.value.fetch_add(1, std::memory_order_relaxed);
    if (b >= num_bands) return;
    const SplitPlan::Band& band = plan.bands[b];
    std::atomic<uint32_t>& ran = run.ran[b].value;
    const SplitPlan::Wait* wait = plan.waits.data() + band.first_wait;
    const SplitPlan::Wait* const last_wait = plan.waits.data() + band.end_wait;
    const uint32_t* const records = plan.records.data() + band.first_record;
    const uint32_t size = band.end_record - band.first_record;
    for (uint32_t i = 0; i < size; ++i) {
      for (; wait != last_wait && wait->position == i; ++wait) {
        if (seen[wait->band] >= wait->count) continue;
        std::atomic<uint32_t>& count = run.ran[wait->band].value;
        internal::SpinUntil([&] {
          seen[wait->band] = count.load(std::memory_order_acquire);
          return seen[wait->band] >= wait->count;
        });
      }
      RunKernel(records[i]);
      // Published every few kernels: a waiter lags a little, but the
      // count's line moves between the threads that much less often.
      if ((i + 1) % 16 == 0) ran.store(i + 1, std::memory_order_release);
    }
    ran.store(size, std::memory_order_release);
  }
}

void CallFrame::SwitchToDataflow(uint32_t position) {
  in_order_ = false;
  pending_ = false;
  const ExecutableFunction& fn = *function_;
  Worklist& ready = worklist;
  for (uint32_t later = position + 1; later < fn.run_order.size(); ++later) {
    const KernelRecord& kernel = fn.record_at(fn.run_order[later]);
    const uint32_t* operands = kernel.operands();
    int32_t waiting = 0;
    for (uint32_t i = 0; i < kernel.num_operands; ++i) {
      waiting += fn.produced_at[operands[i]] > position ? 1 : 0;
    }
    ready_counts_[kernel.kernel].store(waiting, std::memory_order_relaxed);
    if (waiting == 0) ready.Push(WorkItem{this, fn.run_order[later]});
  }
  const KernelRecord& kernel = fn.record_at(fn.run_order[position]);
  bool exclusive = IsExclusive();
  const uint32_t* users = kernel.users();
  for (uint32_t i = 0; i < kernel.num_results; ++i) {
    users = NotifyResultUsers(registers_[kernel.result_register(i)].value.get(),
                              users, exclusive);
  }
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline void CallFrame::RunKernel(uint32_t record) {
  const KernelRecord& kernel = function_->record_at(record);
  // Observed calls run every kernel through its frame, which their watch
  // wraps: their registers all hold AsyncValues.
  if (kernel.direct != nullptr && watch_ == nullptr) {
    if (ABSL_PREDICT_TRUE(RunDirectKernel(kernel))) return;
    RunDirectKernelInFrame(kernel);
    return;
  }
  if (kernel.control != 0 && watch_ == nullptr && RunControlKernel(kernel)) {
    return;
  }
  RunFramedKernel(kernel);
}

bool CallFrame::RunControlKernel(const KernelRecord& kernel) {
  const uint32_t* operands = kernel.operands();
  const absl::Span<const Function* const> functions =
      function_->extras[kernel.extras].functions;
  const Function* callee = functions[0];
  uint32_t first_passed = 0;
  const auto kind = static_cast<ControlKind>(kernel.control);
  if (kind != ControlKind::kCall) {
    // The condition may be kept in place (see the loader): an available i1.
    Register& condition = registers_[operands[0]];
    bool taken;
    if (condition.value == nullptr) {
      taken = *reinterpret_cast<const bool*>(condition.payload);
    } else if (condition.value->IsAvailable() &&
               condition.value->IsType<bool>()) {
      taken = condition.value->get<bool>();
    } else {
      return false;
    }
    callee = functions[taken ? 0 : 1];
    first_passed = 1;
  }
  alignas(RCReference<AsyncValue>) char
      storage[kMaxControlValues * sizeof(RCReference<AsyncValue>)];
  auto* results = reinterpret_cast<RCReference<AsyncValue>*>(storage);
  const uint32_t num_results = kernel.num_results;
  ConstructResults(results, num_results);
  if (AsyncValue* cancelled = request_->GetCancelAsyncValue();
      ABSL_PREDICT_FALSE(cancelled != nullptr)) {
    // As a skipped kernel: every result is the cancellation.
    for (uint32_t i = 0; i < num_results; ++i) results[i] = FormRef(cancelled);
  } else {
    // The values passed on are never kept in place: AsyncValues all.
    AsyncValue* arguments[kMaxControlValues];
    const uint32_t num_passed = static_cast<uint32_t>(callee->num_arguments());
    for (uint32_t i = 0; i < num_passed; ++i) {
      arguments[i] = registers_[operands[first_passed + i]].value.get();
    }
    if (kind == ControlKind::kInlineIf && call_depth < kMaxCallDepth) {
      RunInlineIf(static_cast<const ExecutableFunction&>(*callee), arguments,
                  results);
    } else {
      callee->Execute(*context_, absl::MakeConstSpan(arguments, num_passed),
                      absl::MakeSpan(results, num_results));
    }
  }
  StoreResults(kernel, results);
  return true;
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline void CallFrame::RunInlineIf(
    const ExecutableFunction& region, AsyncValue* const* arguments,
    RCReference<AsyncValue>* results) {
  if (region.num_kernels() == 0) {
    // Only arguments handed back: what Execute() does without a frame.
    for (size_t i = 0; i < region.returned_arguments.size(); ++i) {
      results[i] = FormRef(arguments[region.returned_arguments[i]]);
    }
  } else if (in_order_) {
    ++call_depth;
    RunRegionInline(region, arguments, results);
    --call_depth;
  } else {
    // Kernels of this frame may run on other threads now: the region gets
    // a frame of its own.
    region.Execute(*context_,
                   absl::MakeConstSpan(arguments, region.num_arguments()),
                   absl::MakeSpan(results, region.num_results()));
  }
}

void CallFrame::RunRegionInline(const ExecutableFunction& region,
                                AsyncValue* const* arguments,
                                RCReference<AsyncValue>* results) {
  const ExecutableFunction* const caller = function_;
  Register* const caller_registers = registers_;
  std::atomic<int32_t>* const caller_use_counts = use_counts_;
  function_ = &region;
  registers_ = caller_registers + caller->num_registers;
  use_counts_ = caller_use_counts +
                (caller->initial_counts.size() - caller->num_kernels());
  ConstructRegisters(registers_, region.num_registers);
  // This frame's registers hold the arguments until the region is over, and
  // they are available: the frame runs in order.
  BorrowArguments(arguments);
  InitCounts(/*ready_counts=*/false);
  const uint32_t num_kernels = static_cast<uint32_t>(region.num_kernels());
  const uint32_t* order = region.run_order.data();
  uint32_t position = 0;
  for (; position < num_kernels; ++position) {
    RunKernel(order[position]);
    if (ABSL_PREDICT_FALSE(pending_)) break;
  }
  if (ABSL_PREDICT_TRUE(position == num_kernels)) {
    for (size_t i = 0; i < region.result_registers.size(); ++i) {
      Register& reg = registers_[region.result_registers[i]];
      results[i] =
          region.results_move ? std::move(reg.value) : reg.value.CopyRef();
    }
    // The area is left empty for the next region.
    ReleaseArguments();
    DropEndRegisters();
  } else {
    pending_ = false;
    ContinueRegionInOwnFrame(position, results);
  }
  function_ = caller;
  registers_ = caller_registers;
  use_counts_ = caller_use_counts;
}

void CallFrame::ContinueRegionInOwnFrame(uint32_t position,
                                         RCReference<AsyncValue>* results) {
  const ExecutableFunction& region = *function_;
  CallFrame* frame = Create(&region, *context_);
  for (uint32_t r = 0; r < region.num_registers; ++r) {
    frame->registers_[r] = std::move(registers_[r]);
  }
  const uint32_t num_kernels = static_cast<uint32_t>(region.num_kernels());
  for (uint32_t i = num_kernels; i < region.initial_counts.size(); ++i) {
    new (&frame->use_counts_[i - num_kernels]) std::atomic<int32_t>(
        use_counts_[i - num_kernels].load(std::memory_order_relaxed));
  }
  // The new frame is where the region's own call would be by now: run in
  // order through `position`.
  frame->in_order_ = true;
  Worklist& ready = worklist;
  const size_t base = ready.size;
  frame->SwitchToDataflow(position);
  if (ready.size != base) RunWorklist(base);
  frame->Return(absl::MakeSpan(results, region.num_results()));
  frame->DropRef();
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool CallFrame::RunDirectKernel(
    const KernelRecord& kernel) {
  if (ABSL_PREDICT_FALSE(request_->GetCancelAsyncValue() != nullptr)) {
    return false;
  }
  const DirectKernel& direct = *kernel.direct;
  const uint32_t* operands = kernel.operands();
  void* payloads[kMaxDirectOperands];
  for (uint32_t i = 0; i < kernel.num_operands; ++i) {
    Register& reg = registers_[operands[i]];
    AsyncValue* value = reg.value.get();
    if (value == nullptr) {
      payloads[i] = reg.payload;
    } else if (ABSL_PREDICT_TRUE(
                   value->HoldsConcrete(direct.operand_types[i]))) {
      payloads[i] = value->payload_address();
    } else {
      return false;
    }
  }
  const void* const* attributes =
      function_->extras[kernel.extras].attributes.data();
  const uint32_t result = kernel.results()[0];
  if ((result & kInlineRegister) != 0) {
    direct.run(payloads, attributes,
               registers_[result & kRegisterMask].payload);
    bool exclusive = IsExclusive();
    DropOperands(kernel, exclusive);
    if (!in_order_) NotifyResultUsers(nullptr, kernel.users(), exclusive);
    return true;
  }
  uint64_t payload;
  direct.run(payloads, attributes, &payload);
  RCReference<AsyncValue> value = direct.make_result(&payload);
  AsyncValue* made = value.get();
  bool exclusive = IsExclusive();
  DropOperands(kernel, exclusive);
  StoreResult(result, std::move(value), exclusive);
  if (!in_order_) NotifyResultUsers(made, kernel.users(), exclusive);
  return true;
}

void CallFrame::RunDirectKernelInFrame(const KernelRecord& kernel) {
  RCReference<AsyncValue> made[kMaxDirectOperands];
  AsyncValue* arguments[kInlineValues];
  const uint32_t* operands = kernel.operands();
  for (uint32_t i = 0; i < kernel.num_operands; ++i) {
    Register& reg = registers_[operands[i]];
    if (!reg.value) {
      assert(kernel.direct->make_operand[i] != nullptr &&
             "an inline register read as a type never kept in place");
      made[i] = kernel.direct->make_operand[i](reg.payload);
    }
    arguments[i] = reg.value ? reg.value.get() : made[i].get();
  }
  alignas(RCReference<AsyncValue>) char
      results[kInlineValues * sizeof(RCReference<AsyncValue>)];
  RunKernelWith(kernel, arguments,
                reinterpret_cast<RCReference<AsyncValue>*>(results));
}

void CallFrame::RunFramedKernel(const KernelRecord& kernel) {
  if (ABSL_PREDICT_FALSE(kernel.num_operands > kInlineValues ||
                         kernel.num_results > kInlineValues)) {
    RunWideKernel(kernel);
    return;
  }
  AsyncValue* arguments[kInlineValues];
  GatherArguments(kernel, arguments);
  // Raw storage: only the kernel's own result slots are constructed.
  alignas(RCReference<AsyncValue>) char
      results[kInlineValues * sizeof(RCReference<AsyncValue>)];
  RunKernelWith(kernel, arguments,
                reinterpret_cast<RCReference<AsyncValue>*>(results));
}

void CallFrame::RunWideKernel(const KernelRecord& kernel) {
  std::vector<AsyncValue*> arguments(kernel.num_operands);
  GatherArguments(kernel, arguments.data());
  std::vector<RCReference<AsyncValue>> results(kernel.num_results);
  RunKernelWith(kernel, arguments.data(), results.data());
}

// Drops the operands this kernel is the last reader of.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void CallFrame::DropOperands(
    const KernelRecord& kernel, bool exclusive) {
  const uint32_t* drops = kernel.drops();
  for (uint32_t i = 0; i < kernel.num_drops; ++i) {
    registers_[drops[i]].value.reset();
  }
  if (kernel.num_countdowns != 0) {
    // Every reader read the register before it counted: the last one to
    // count may drop it.
    const uint32_t* countdowns = kernel.countdowns();
    for (uint32_t i = 0; i < kernel.num_countdowns; ++i) {
      if (CountDown(use_counts_[countdowns[2 * i + 1]], exclusive)) {
        registers_[countdowns[2 * i]].value.reset();
      }
    }
  }
}

// Runs `kernel` on `arguments`, its operands. `results` has room for the
// kernel's results, constructed or not: every slot is (re)constructed empty
// here and destroyed again before returning.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void CallFrame::RunKernelWith(
    const KernelRecord& kernel, AsyncValue** arguments,
    RCReference<AsyncValue>* results) {
  const ExecutableFunction& fn = *function_;
  const uint32_t num_operands = kernel.num_operands;
  const uint32_t num_results = kernel.num_results;
  ConstructResults(results, num_results);

  AsyncValue* error = request_->GetCancelAsyncValue();
  if (error == nullptr && kernel.strict) {
    for (uint32_t i = 0; i < num_operands; ++i) {
      if (ABSL_PREDICT_FALSE(arguments[i]->IsError())) {
        error = arguments[i];
        break;
      }
    }
  }

  if (ABSL_PREDICT_FALSE(error != nullptr)) {
    // Skipped: cancelled, or a strict kernel with an error argument. Every
    // result is that same error value; no new diagnostic.
    for (uint32_t i = 0; i < num_results; ++i) results[i] = FormRef(error);
    if (watch_ != nullptr) watch_->Skipped(kernel.kernel, results);
  } else {
    const KernelExtras& extras = fn.extras[kernel.extras];
    KernelFrame frame(context_, &fn.debug_infos, kernel.kernel);
    frame.SetAttributeSection(fn.attribute_section);
    frame.SetLastReaderQuery(&CallFrame::IsLastReader, this, &kernel);
    frame.Reset(absl::MakeConstSpan(arguments, num_operands), extras.attributes,
                absl::MakeSpan(results, num_results), extras.functions);
    // Observed calls run the kernel through their watch: one test per kernel.
    if (ABSL_PREDICT_FALSE(watch_ != nullptr)) {
      watch_->RunKernel(kernel.kernel, &frame, results);
    } else {
      kernel.implementation(&frame);
    }
  }

  StoreResults(kernel, results);
}

// Stores the results of a kernel that ran and counts them for their users.
// Destroys every result slot.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void CallFrame::StoreResults(
    const KernelRecord& kernel, RCReference<AsyncValue>* results) {
  const ExecutableFunction& fn = *function_;
  // Only a thread holding a reference adds one (registering a waiter, below,
  // or sharing kernels between two kernels): while this thread holds the
  // only one, whether it does changes only here.
  bool exclusive = IsExclusive();
  DropOperands(kernel, exclusive);

  const uint32_t* result_registers = kernel.results();
  // A call running in order counts nothing (see RunInOrder).
  const uint32_t* users = in_order_ ? nullptr : kernel.users();
  for (uint32_t i = 0; i < kernel.num_results; ++i) {
    if (ABSL_PREDICT_FALSE(!results[i])) {
      // A kernel bug: say so rather than leave users waiting forever.
      results[i] = MakeErrorAsyncValueRef(absl::InternalError(absl::StrCat(
          "kernel '", std::string(fn.debug_infos.Get(kernel.kernel).name),
          "' did not set result ", i)));
    }
    AsyncValue* value = results[i].get();
    StoreResult(result_registers[i], std::move(results[i]), exclusive);
    results[i].~RCReference<AsyncValue>();
    if (in_order_) {
      if (!value->IsAvailable()) pending_ = true;
    } else {
      users = NotifyResultUsers(value, users, exclusive);
    }
  }
}

// Calls `f(frame, count)` once per run of `count` consecutive items of one
// frame: a shared batch takes and drops its frames' references per run.
template <typename F>
void ForEachFrameRun(const std::vector<WorkItem>& items, F f) {
  for (size_t i = 0; i < items.size();) {
    size_t end = i + 1;
    while (end < items.size() && items[end].frame == items[i].frame) ++end;
    f(items[i].frame, static_cast<uint32_t>(end - i));
    i = end;
  }
}

// Runs `batch`, kernels another thread shared, then lets go of their frames.
void RunSharedKernels(const std::vector<WorkItem>& batch) {
  Worklist& ready = worklist;
  const size_t base = ready.size;
  for (const WorkItem& item : batch) ready.Push(item);
  RunWorklist(base);
  ForEachFrameRun(
      batch, [](CallFrame* frame, uint32_t count) { frame->DropRef(count); });
}

// Hands the newer half of this thread's waiting kernels (from `next` on) to
// an idle worker, if there are enough and one is idle.
ABSL_ATTRIBUTE_NOINLINE void MaybeShareKernels(size_t next) {
  if (!SlowEnoughToShare()) return;
  Worklist& ready = worklist;
  const size_t waiting = ready.size - next;
  if (waiting < 2 * kMinSharedKernels) return;
  ConcurrentWorkQueue& queue = ready.items[next].frame->work_queue();
  if (!queue.HasIdleWorker()) return;
  const size_t middle = next + waiting / 2;
  std::vector<WorkItem> batch(ready.items + middle, ready.items + ready.size);
  // Kernels of another host's frames stay here.
  bool one_queue = true;
  ForEachFrameRun(batch, [&](CallFrame* frame, uint32_t) {
    one_queue = one_queue && &frame->work_queue() == &queue;
  });
  if (!one_queue) return;
  ForEachFrameRun(
      batch, [](CallFrame* frame, uint32_t count) { frame->Share(count); });
  ready.size = middle;
  queue.AddTask([batch = std::move(batch)] { RunSharedKernels(batch); });
}

void RunWorklist(size_t base) {
  Worklist& ready = worklist;
  if (base == 0) ready.last_share_check = 0;
  size_t next = base;
  while (next < ready.size) {
    if (ABSL_PREDICT_FALSE(--ready.until_share_check <= 0)) {
      ready.until_share_check = kShareCheckInterval;
      MaybeShareKernels(next);
    }
    const WorkItem item = ready.items[next++];
    item.frame->RunKernel(item.record);
    // Everything pushed so far has run: reuse the space.
    if (next == ready.size) {
      ready.size = base;
      next = base;
    }
  }
  ready.size = base;
}

}  // namespace

ExecutableFunction::~ExecutableFunction() {
  ::operator delete(spare_frame_.load(std::memory_order_acquire));
}

void ExecutableFunction::FailNestedTooDeep(
    absl::Span<RCReference<AsyncValue>> results) const {
  const absl::Status error = absl::ResourceExhaustedError(
      absl::StrCat("calls nested deeper than ", kMaxCallDepth,
                   " at a call of '", name(), "': unbounded recursion?"));
  for (RCReference<AsyncValue>& result : results) {
    result = MakeErrorAsyncValueRef(error);
  }
}

void ExecutableFunction::Execute(
    const ExecutionContext& context, absl::Span<AsyncValue* const> arguments,
    absl::Span<RCReference<AsyncValue>> results) const {
  assert(arguments.size() == num_arguments());
  assert(results.size() == num_results());
  if (ABSL_PREDICT_FALSE(call_depth >= kMaxCallDepth)) {
    FailNestedTooDeep(results);
    return;
  }
  // A body without kernels only hands arguments back (an identity branch,
  // say): no frame for that, unless observers watch the call.
  if (num_kernels() == 0 && context.request_context()->observers() == nullptr) {
    for (size_t i = 0; i < results.size(); ++i) {
      results[i] = FormRef(arguments[returned_arguments[i]]);
    }
    return;
  }
  ++call_depth;
  Worklist& ready = worklist;
  const size_t base = ready.size;
  // A thread starting afresh times its kernels from its next look on (see
  // SlowEnoughToShare).
  if (base == 0) ready.last_share_check = 0;
  CallFrame* frame = CallFrame::Create(this, context);
  frame->Start(arguments);
  // A call that ran in order left nothing to run.
  if (ready.size != base) RunWorklist(base);
  if (frame->watch() != nullptr) frame->watch()->Returned();
  frame->Return(results);
  frame->DropRef();
  --call_depth;
}

}  // namespace executor_internal
}  // namespace sluice
