// Turns a plain C++ function into a kernel.
//
//   int32_t AddI32(int32_t a, int32_t b) { return a + b; }
//   registry->AddKernel("tfrt.add.i32", SLUICE_KERNEL(AddI32));
//
// Parameters, in any order, each take the next item of their kind:
//   T, const T&, T&        the next argument's payload
//   Argument<T>            the next argument (payload and AsyncValue)
//   RemainingArguments     every argument not yet taken
//   Attribute<T>, OptionalAttribute<T>, StringAttribute,
//   OptionalStringAttribute, ArrayAttribute<T>,
//   AggregateAttribute, OptionalAggregateAttribute
//                          the next attribute, or the one named at
//                          registration (KernelDefinition::WithAttributeNames)
//   Result<T>              the next result slot
//   RemainingResults       every result slot not yet taken
//   RemainingFunctions     the functions the kernel runs (regions, callees)
//   const ExecutionContext&, HostContext*, KernelFrame*, AsyncKernelFrame*
//                          the context and the frame itself
// The return value fills the result slots after those the parameters took:
//   void                   nothing
//   T                      one available result
//   AsyncValueRef<T>, RCReference<AsyncValue>
//                          one result, possibly still unavailable
//   std::tuple<...>        one result per element, each as above
//   absl::Status           no result; an error is reported (ReportError)
//   absl::StatusOr<X>      X as above, or the error reported
//   llvm::Error, llvm::Expected<X>
//                          as absl::Status and absl::StatusOr<X>, in a file
//                          that includes sluice/kernel/llvm_kernel_binding.h
// The parameters and the return type make the kernel's signature
// (kernel_signature.h), which loading checks every op against.
#ifndef SLUICE_KERNEL_KERNEL_BINDING_H_
#define SLUICE_KERNEL_KERNEL_BINDING_H_

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "absl/base/attributes.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/kernel/async_kernel_frame.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/direct_kernel.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/kernel/kernel_signature.h"
#include "sluice/support/error_util.h"

// Declared only, so that the binding recognizes LLVM's error types without
// LLVM's headers: their bindings are in sluice/kernel/llvm_kernel_binding.h.
namespace llvm {
class Error;
template <class T>
class Expected;
}  // namespace llvm

namespace sluice {

// One argument: its payload, and the AsyncValue that holds it.
template <typename T>
class Argument {
 public:
  explicit Argument(AsyncValue* value) : value_(value) {}
  T& get() const { return value_->get<T>(); }
  T& operator*() const { return get(); }
  T* operator->() const { return &get(); }
  AsyncValue* value() const { return value_; }
  // A new reference to the value, e.g. to forward it to a result.
  RCReference<AsyncValue> ValueRef() const { return FormRef(value_); }

 private:
  AsyncValue* value_;
};

// One result slot.
template <typename T>
class Result {
 public:
  Result(KernelFrame* frame, size_t index) : frame_(frame), index_(index) {}

  template <typename... Args>
  void Emplace(Args&&... args) const {
    frame_->EmplaceResultAt<T>(index_, std::forward<Args>(args)...);
  }
  void Set(AsyncValueRef<T> value) const {
    frame_->SetResultAt(index_, value.ReleaseRCRef());
  }
  // Forwards an existing value (an argument, say) without copying it.
  void Set(RCReference<AsyncValue> value) const {
    frame_->SetResultAt(index_, std::move(value));
  }
  // Sets the result to an unavailable value to fill later.
  AsyncValueRef<T> Allocate() const {
    return frame_->AllocateResultAt<T>(index_);
  }
  RCReference<IndirectAsyncValue> AllocateIndirect() const {
    return frame_->AllocateIndirectResultAt(index_);
  }

 private:
  KernelFrame* frame_;
  size_t index_;
};

// The arguments a kernel did not take one by one.
class RemainingArguments {
 public:
  explicit RemainingArguments(absl::Span<AsyncValue* const> values)
      : values_(values) {}
  size_t size() const { return values_.size(); }
  AsyncValue* operator[](size_t i) const { return values_[i]; }
  absl::Span<AsyncValue* const> values() const { return values_; }

 private:
  absl::Span<AsyncValue* const> values_;
};

// The result slots a kernel did not take one by one (those its return value
// fills excepted).
class RemainingResults {
 public:
  RemainingResults(KernelFrame* frame, size_t first, size_t count)
      : frame_(frame), first_(first), count_(count) {}
  size_t size() const { return count_; }

  void SetAt(size_t i, RCReference<AsyncValue> value) const {
    frame_->SetResultAt(first_ + i, std::move(value));
  }
  template <typename T, typename... Args>
  void EmplaceAt(size_t i, Args&&... args) const {
    frame_->EmplaceResultAt<T>(first_ + i, std::forward<Args>(args)...);
  }
  template <typename T>
  AsyncValueRef<T> AllocateAt(size_t i) const {
    return frame_->AllocateResultAt<T>(first_ + i);
  }
  RCReference<IndirectAsyncValue> AllocateIndirectAt(size_t i) const {
    return frame_->AllocateIndirectResultAt(first_ + i);
  }

 private:
  KernelFrame* frame_;
  size_t first_;
  size_t count_;
};

// The functions a kernel runs (its regions, then those its symbol
// attributes name), see KernelFrame::GetFunctionAt.
class RemainingFunctions {
 public:
  explicit RemainingFunctions(const KernelFrame* frame) : frame_(frame) {}
  size_t size() const { return frame_->GetNumFunctions(); }
  const Function* operator[](size_t i) const {
    return frame_->GetFunctionAt(i);
  }

 private:
  const KernelFrame* frame_;
};

namespace internal {

// Where the next argument, attribute and result come from while a kernel's
// parameters are bound left to right.
struct BindCursor {
  KernelFrame* frame;
  // The results the return value fills: the last `returned` slots.
  size_t returned = 0;
  size_t argument = 0;
  size_t attribute = 0;
  size_t result = 0;
};

// Whether R is llvm::Error or an llvm::Expected. Without the specializations
// of sluice/kernel/llvm_kernel_binding.h the primary templates below would
// take one for a plain payload: an error would become a result, unreported.
template <typename R>
struct IsLlvmErrorType : std::false_type {};
template <>
struct IsLlvmErrorType<llvm::Error> : std::true_type {};
template <typename T>
struct IsLlvmErrorType<llvm::Expected<T>> : std::true_type {};

// How many results a return type fills.
template <typename R>
struct ReturnCount : std::integral_constant<size_t, 1> {
  static_assert(!IsLlvmErrorType<R>::value,
                "a kernel that returns llvm::Error or llvm::Expected<T> needs "
                "#include \"sluice/kernel/llvm_kernel_binding.h\"");
};
template <>
struct ReturnCount<void> : std::integral_constant<size_t, 0> {};
template <>
struct ReturnCount<absl::Status> : std::integral_constant<size_t, 0> {};
template <typename... Ts>
struct ReturnCount<std::tuple<Ts...>>
    : std::integral_constant<size_t, sizeof...(Ts)> {};
template <typename T>
struct ReturnCount<absl::StatusOr<T>> : ReturnCount<T> {};

// How a parameter reaches a DirectKernel, if it can.
enum class DirectUse : uint8_t { kNone, kOperand, kAttribute };

// What a parameter takes from the op, for the kernel's signature. Binders
// derive from it and override what they take.
struct TakesNothing {
  static constexpr DirectUse kDirectUse = DirectUse::kNone;
  static constexpr bool kPayload = false;
  static constexpr uint32_t kOperands = 0;
  static constexpr uint32_t kResults = 0;
  static constexpr bool kVariadicOperands = false;
  static constexpr bool kVariadicResults = false;
  static constexpr bool kFunctions = false;
  static constexpr bool kReadsFrame = false;
  static constexpr bool kIsAttribute = false;
  static constexpr AttributeRequirement kAttribute{};
};

struct TakesOperand : TakesNothing {
  static constexpr uint32_t kOperands = 1;
};

struct TakesResult : TakesNothing {
  static constexpr uint32_t kResults = 1;
};

struct ReadsFrame : TakesNothing {
  static constexpr bool kReadsFrame = true;
};

// How a parameter of (decayed) type D is bound: Make() builds a holder from
// the frame, Pass() turns the holder into what the function takes. The
// primary template marks the types that are not special: payloads.
template <typename D>
struct ParamBinder {
  static constexpr bool kPayload = true;
};

// A payload parameter (T, const T&, T&): the next argument's payload.
template <typename P>
struct PayloadBinder : TakesOperand {
  static constexpr DirectUse kDirectUse = DirectUse::kOperand;
  using Payload = std::remove_cv_t<std::remove_reference_t<P>>;
  using Holder = Argument<Payload>;
  // The kernel reads the payload as a `Payload`: the argument must hold one.
  ABSL_ATTRIBUTE_ALWAYS_INLINE static bool Fits(const AsyncValue* value) {
    return value->IsType<Payload>();
  }
  static Holder Make(BindCursor& c) {
    return Holder(c.frame->GetArgAt(c.argument++));
  }
  static P Pass(Holder& h) { return h.get(); }
};

template <typename T>
struct ParamBinder<Argument<T>> : TakesOperand {
  // A non-strict kernel may get it unavailable or as an error; once it holds
  // a payload, that must be a `T`.
  static bool Fits(const AsyncValue* value) {
    return !value->IsAvailable() || value->IsError() || value->IsType<T>();
  }
  using Holder = Argument<T>;
  static Holder Make(BindCursor& c) {
    return Holder(c.frame->GetArgAt(c.argument++));
  }
  static Holder Pass(Holder& h) { return h; }
};

template <typename T>
struct ParamBinder<Result<T>> : TakesResult {
  using Holder = Result<T>;
  static Holder Make(BindCursor& c) { return Holder(c.frame, c.result++); }
  static Holder Pass(Holder& h) { return h; }
};

// Attribute views take the next attribute.
template <typename View, AttributeShape shape,
          AttributeElement element = AttributeElement::kNone>
struct AttributeBinder : TakesNothing {
  static constexpr DirectUse kDirectUse = DirectUse::kAttribute;
  static constexpr bool kIsAttribute = true;
  static constexpr AttributeRequirement kAttribute{shape, element, false};
  using Holder = View;
  static Holder Make(BindCursor& c) {
    return Holder(c.frame->GetAttributeAt(c.attribute++));
  }
  static Holder Pass(Holder& h) { return h; }
};

template <typename T>
struct ParamBinder<Attribute<T>>
    : AttributeBinder<Attribute<T>, AttributeShape::kScalar,
                      AttributeElementOf<T>::value> {};

template <>
struct ParamBinder<StringAttribute>
    : AttributeBinder<StringAttribute, AttributeShape::kString> {};

template <typename T>
struct ParamBinder<ArrayAttribute<T>>
    : AttributeBinder<ArrayAttribute<T>, AttributeShape::kDense,
                      AttributeElementOf<T>::value> {};

// Loading puts a null attribute where the op leaves an optional one out; a
// frame built by hand may simply have fewer attributes.
template <typename View, AttributeShape shape,
          AttributeElement element = AttributeElement::kNone>
struct OptionalAttributeBinder : TakesNothing {
  static constexpr bool kIsAttribute = true;
  static constexpr AttributeRequirement kAttribute{shape, element, true};
  using Holder = View;
  static Holder Make(BindCursor& c) {
    const size_t index = c.attribute++;
    return Holder(index < c.frame->GetNumAttributes()
                      ? c.frame->GetAttributeAt(index)
                      : nullptr);
  }
  static Holder Pass(Holder& h) { return h; }
};

template <typename T>
struct ParamBinder<OptionalAttribute<T>>
    : OptionalAttributeBinder<OptionalAttribute<T>, AttributeShape::kScalar,
                              AttributeElementOf<T>::value> {};

template <>
struct ParamBinder<OptionalStringAttribute>
    : OptionalAttributeBinder<OptionalStringAttribute,
                              AttributeShape::kString> {};

template <>
struct ParamBinder<AggregateAttribute> : TakesNothing {
  static constexpr bool kIsAttribute = true;
  static constexpr AttributeRequirement kAttribute{
      AttributeShape::kAggregate, AttributeElement::kNone, false};
  using Holder = AggregateAttribute;
  static Holder Make(BindCursor& c) {
    return Holder(c.frame->GetAttributeAt(c.attribute++),
                  c.frame->attribute_section());
  }
  static Holder Pass(Holder& h) { return h; }
};

template <>
struct ParamBinder<OptionalAggregateAttribute> : TakesNothing {
  static constexpr bool kIsAttribute = true;
  static constexpr AttributeRequirement kAttribute{
      AttributeShape::kAggregate, AttributeElement::kNone, true};
  using Holder = OptionalAggregateAttribute;
  static Holder Make(BindCursor& c) {
    const size_t index = c.attribute++;
    return Holder(index < c.frame->GetNumAttributes()
                      ? c.frame->GetAttributeAt(index)
                      : nullptr,
                  c.frame->attribute_section());
  }
  static Holder Pass(Holder& h) { return h; }
};

template <>
struct ParamBinder<RemainingArguments> : TakesNothing {
  static constexpr bool kVariadicOperands = true;
  using Holder = RemainingArguments;
  static Holder Make(BindCursor& c) {
    absl::Span<AsyncValue* const> rest =
        c.frame->GetArguments().subspan(c.argument);
    c.argument = c.frame->GetNumArgs();
    return Holder(rest);
  }
  static Holder Pass(Holder& h) { return h; }
};

template <>
struct ParamBinder<RemainingResults> : TakesNothing {
  static constexpr bool kVariadicResults = true;
  using Holder = RemainingResults;
  static Holder Make(BindCursor& c) {
    const size_t end = c.frame->GetNumResults() - c.returned;
    Holder holder(c.frame, c.result, end - c.result);
    c.result = end;
    return holder;
  }
  static Holder Pass(Holder& h) { return h; }
};

template <>
struct ParamBinder<RemainingFunctions> : TakesNothing {
  static constexpr bool kFunctions = true;
  using Holder = RemainingFunctions;
  static Holder Make(BindCursor& c) { return Holder(c.frame); }
  static Holder Pass(Holder& h) { return h; }
};

template <>
struct ParamBinder<ExecutionContext> : TakesNothing {
  using Holder = const ExecutionContext*;
  static Holder Make(BindCursor& c) { return &c.frame->exec_ctx(); }
  static const ExecutionContext& Pass(Holder& h) { return *h; }
};

template <>
struct ParamBinder<HostContext*> : TakesNothing {
  using Holder = HostContext*;
  static Holder Make(BindCursor& c) { return c.frame->host(); }
  static Holder Pass(Holder& h) { return h; }
};

template <>
struct ParamBinder<KernelFrame*> : ReadsFrame {
  using Holder = KernelFrame*;
  static Holder Make(BindCursor& c) { return c.frame; }
  static Holder Pass(Holder& h) { return h; }
};

template <>
struct ParamBinder<AsyncKernelFrame*> : ReadsFrame {
  using Holder = AsyncKernelFrame;
  static Holder Make(BindCursor& c) { return AsyncKernelFrame(c.frame); }
  static AsyncKernelFrame* Pass(Holder& h) { return &h; }
};

// --- Return values ----------------------------------------------------------

template <typename R>
struct ReturnHandler {
  static_assert(!IsLlvmErrorType<R>::value,
                "a kernel that returns llvm::Error or llvm::Expected<T> needs "
                "#include \"sluice/kernel/llvm_kernel_binding.h\"");
  // A plain value: one available result.
  ABSL_ATTRIBUTE_ALWAYS_INLINE static void Handle(KernelFrame* frame,
                                                  size_t index, R&& value) {
    frame->EmplaceResultAt<R>(index, std::move(value));
  }
};

template <typename T>
struct ReturnHandler<AsyncValueRef<T>> {
  static void Handle(KernelFrame* frame, size_t index,
                     AsyncValueRef<T>&& value) {
    frame->SetResultAt(index, value.ReleaseRCRef());
  }
};

template <typename T>
struct ReturnHandler<RCReference<T>> {
  static_assert(std::is_base_of_v<AsyncValue, T>,
                "a kernel may return RCReference<AsyncValue> only");
  static void Handle(KernelFrame* frame, size_t index, RCReference<T>&& value) {
    frame->SetResultAt(index, RCReference<AsyncValue>(std::move(value)));
  }
};

template <typename... Ts>
struct ReturnHandler<std::tuple<Ts...>> {
  static void Handle(KernelFrame* frame, size_t index,
                     std::tuple<Ts...>&& values) {
    HandleEach(frame, index, std::move(values),
               std::index_sequence_for<Ts...>{});
  }
  template <size_t... I>
  static void HandleEach(KernelFrame* frame, size_t index,
                         std::tuple<Ts...>&& values,
                         std::index_sequence<I...>) {
    (ReturnHandler<Ts>::Handle(frame, index + I,
                               std::get<I>(std::move(values))),
     ...);
  }
};

template <>
struct ReturnHandler<absl::Status> {
  static void Handle(KernelFrame* frame, size_t, absl::Status&& status) {
    if (!status.ok()) frame->ReportError(std::move(status));
  }
};

template <typename T>
struct ReturnHandler<absl::StatusOr<T>> {
  static void Handle(KernelFrame* frame, size_t index,
                     absl::StatusOr<T>&& value) {
    if (value.ok()) {
      ReturnHandler<T>::Handle(frame, index, *std::move(value));
    } else {
      frame->ReportError(std::move(value).status());
    }
  }
};

template <typename P>
using BinderFor = std::conditional_t<
    ParamBinder<std::remove_cv_t<std::remove_reference_t<P>>>::kPayload,
    PayloadBinder<P>,
    ParamBinder<std::remove_cv_t<std::remove_reference_t<P>>>>;

template <typename F, F function>
struct KernelInvoker;

// The attribute requirements of `Params`, in order.
template <typename... Params>
constexpr auto AttributeRequirementsOf() {
  constexpr size_t kCount = (size_t{0} + ... + BinderFor<Params>::kIsAttribute);
  std::array<AttributeRequirement, kCount> requirements{};
  size_t next = 0;
  ((BinderFor<Params>::kIsAttribute
        ? (void)(requirements[next++] = BinderFor<Params>::kAttribute)
        : (void)0),
   ...);
  (void)next;
  return requirements;
}

// Whether the argument a parameter reads fits it; advances `argument` past
// the operands the parameter takes.
template <typename Param>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool ArgumentFits(
    AsyncValue* const* arguments, int& argument) {
  if constexpr (BinderFor<Param>::kOperands == 1) {
    return BinderFor<Param>::Fits(arguments[argument++]);
  } else {
    (void)arguments;
    (void)argument;
    return true;
  }
}

// The index of the first argument that a payload or Argument<T> parameter
// cannot read as its type, or -1. The executor checks counts at load time,
// but not types: MLIR does not type-check the operands of ops it does not
// know, and a worker runs programs its clients compiled. Every argument is
// checked before the first misfit is looked for, so the common case is one
// short-circuit chain of inline tests.
template <typename... Params>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline int FirstMisfitArgument(
    KernelFrame* frame) {
  AsyncValue* const* arguments = frame->GetArguments().data();
  int argument = 0;
  if ((ArgumentFits<Params>(arguments, argument) && ...)) return -1;
  return argument - 1;
}

// --- The frameless entry (DirectKernel) ------------------------------------

template <typename T>
constexpr bool IsInlinePayload() {
  if constexpr (std::is_void_v<T>) {
    return false;
  } else {
    return kInlinePayload<T>;
  }
}

template <typename T>
RCReference<AsyncValue> MakeValueFromPayload(const void* payload) {
  return MakeAvailableAsyncValueRef<T>(*static_cast<const T*>(payload))
      .ReleaseRCRef();
}

using PayloadMaker = RCReference<AsyncValue> (*)(const void* payload);

template <typename P>
constexpr bool IsDirectOperand() {
  return BinderFor<P>::kDirectUse == DirectUse::kOperand;
}

// Where each parameter reads from in DirectKernel::run's arrays: its index
// among the operands or among the attributes.
template <typename... Params>
constexpr std::array<uint32_t, sizeof...(Params)> DirectIndicesOf() {
  std::array<uint32_t, sizeof...(Params)> indices{};
  uint32_t operand = 0;
  uint32_t attribute = 0;
  size_t next = 0;
  ((indices[next++] = IsDirectOperand<Params>() ? operand++ : attribute++),
   ...);
  (void)operand;
  (void)attribute;
  (void)next;
  return indices;
}

// What a DirectKernel keeps per operand parameter P: the payload type it
// reads, and how to make an AsyncValue of such a payload (null for types
// never kept in place). Null for parameters that are not operands.
template <typename P>
struct DirectOperandType {
  static constexpr const PayloadTypeInfo* Get() {
    if constexpr (IsDirectOperand<P>()) {
      return &ConcreteAsyncValue<typename BinderFor<P>::Payload>::kTypeInfo;
    }
    return nullptr;
  }
};
template <typename P>
struct DirectOperandMaker {
  static constexpr PayloadMaker Get() {
    if constexpr (IsDirectOperand<P>()) {
      using Payload = typename BinderFor<P>::Payload;
      if constexpr (IsInlinePayload<Payload>()) {
        return &MakeValueFromPayload<Payload>;
      }
    }
    return nullptr;
  }
};

// Entry<P>::Get() for each operand parameter P of Params, in order.
template <typename T, template <typename> class Entry, typename... Params>
constexpr auto DirectOperandArray() {
  constexpr size_t kCount = (size_t{0} + ... + IsDirectOperand<Params>());
  std::array<T, kCount> entries{};
  size_t next = 0;
  ((IsDirectOperand<Params>() ? (void)(entries[next++] = Entry<Params>::Get())
                              : (void)0),
   ...);
  (void)next;
  return entries;
}

// What parameter P gets from the operand or attribute at kIndex.
template <typename P, uint32_t kIndex>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline decltype(auto) DirectArgument(
    void* const* operands, const void* const* attributes) {
  if constexpr (IsDirectOperand<P>()) {
    (void)attributes;
    return *static_cast<typename BinderFor<P>::Payload*>(operands[kIndex]);
  } else {
    (void)operands;
    return typename BinderFor<P>::Holder(attributes[kIndex]);
  }
}

template <typename R, typename... Params, R (*function)(Params...)>
struct KernelInvoker<R (*)(Params...), function> {
  static constexpr auto kAttributes = AttributeRequirementsOf<Params...>();
  static constexpr KernelSignature kSignature{
      (uint32_t{0} + ... + BinderFor<Params>::kOperands),
      (false || ... || BinderFor<Params>::kVariadicOperands),
      static_cast<uint32_t>(ReturnCount<R>::value +
                            (size_t{0} + ... + BinderFor<Params>::kResults)),
      (false || ... || BinderFor<Params>::kVariadicResults),
      (false || ... || BinderFor<Params>::kFunctions),
      (false || ... || BinderFor<Params>::kReadsFrame),
      absl::Span<const AttributeRequirement>(kAttributes.data(),
                                             kAttributes.size())};

  static void Invoke(KernelFrame* frame) {
    constexpr size_t kReturned = ReturnCount<R>::value;
    assert(frame->GetNumResults() >= kReturned &&
           "the frame has fewer results than the kernel returns");
    if (const int misfit = FirstMisfitArgument<Params...>(frame); misfit >= 0) {
      frame->ReportError(absl::InvalidArgumentError(
          absl::StrCat("operand #", misfit,
                       " does not hold a value of the type the kernel takes")));
      return;
    }
    BindCursor cursor{frame, kReturned};
    // Braced initialization evaluates the Make() calls left to right, so
    // parameters take arguments, attributes and results in their order.
    std::tuple<typename BinderFor<Params>::Holder...> holders{
        BinderFor<Params>::Make(cursor)...};
    Call(frame, frame->GetNumResults() - kReturned, holders,
         std::index_sequence_for<Params...>{});
  }

  // A DirectKernel exists for kernels that only compute: every parameter a
  // payload or an attribute, one small trivially copyable result.
  static constexpr bool kHasDirect =
      IsInlinePayload<R>() &&
      ((BinderFor<Params>::kDirectUse != DirectUse::kNone) && ...);

  struct Direct {
    static constexpr auto kIndices = DirectIndicesOf<Params...>();
    static constexpr auto kOperandTypes =
        DirectOperandArray<const PayloadTypeInfo*, DirectOperandType,
                           Params...>();
    static constexpr auto kOperandMakers =
        DirectOperandArray<PayloadMaker, DirectOperandMaker, Params...>();

    template <size_t... I>
    ABSL_ATTRIBUTE_ALWAYS_INLINE static void Call(void* const* operands,
                                                  const void* const* attributes,
                                                  void* result,
                                                  std::index_sequence<I...>) {
      new (result) R(function(
          DirectArgument<Params, kIndices[I]>(operands, attributes)...));
    }
    static void Run(void* const* operands, const void* const* attributes,
                    void* result) {
      Call(operands, attributes, result, std::index_sequence_for<Params...>{});
    }

    static constexpr DirectKernel kKernel{
        &Run,
        static_cast<uint32_t>(kOperandTypes.size()),
        kOperandTypes.data(),
        &ConcreteAsyncValue<R>::kTypeInfo,
        &MakeValueFromPayload<R>,
        kOperandMakers.data()};
  };

  static constexpr const DirectKernel* DirectEntry() {
    if constexpr (kHasDirect) {
      return &Direct::kKernel;
    } else {
      return nullptr;
    }
  }

  template <size_t... I>
  static void Call(KernelFrame* frame, size_t first_returned,
                   std::tuple<typename BinderFor<Params>::Holder...>& holders,
                   std::index_sequence<I...>) {
    if constexpr (std::is_void_v<R>) {
      function(BinderFor<Params>::Pass(std::get<I>(holders))...);
      (void)frame;
      (void)first_returned;
    } else {
      ReturnHandler<R>::Handle(
          frame, first_returned,
          function(BinderFor<Params>::Pass(std::get<I>(holders))...));
    }
  }
};

}  // namespace internal
}  // namespace sluice

// The kernel for the function `fn`, with its signature (see the top of this
// file): what KernelRegistry::AddKernel takes.
#define SLUICE_KERNEL(fn)                                                     \
  (::sluice::KernelDefinition(                                                \
      &::sluice::internal::KernelInvoker<decltype(&(fn)), &(fn)>::Invoke,     \
      &::sluice::internal::KernelInvoker<decltype(&(fn)), &(fn)>::kSignature, \
      ::sluice::internal::KernelInvoker<decltype(&(fn)),                      \
                                        &(fn)>::DirectEntry()))

#endif  // SLUICE_KERNEL_KERNEL_BINDING_H_
