// Loading: SBF bytes → validated tables → functions whose kernels are
// resolved against the registry, with attribute pointers into the bytes.
#include "sluice/executor/program.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/executor/executable_function.h"
#include "lib/executor/kernel_contract.h"
#include "lib/executor/kernel_debug_infos.h"
#include "lib/executor/region_inlining.h"
#include "lib/executor/split_plan.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/support/error_util.h"
#include "sluice/support/file_reading.h"

namespace sluice {
namespace {

using executor_internal::ExecutableFunction;
using executor_internal::KernelRecord;
using executor_internal::ToKernelLocation;

// The order in which a call of `function` runs its kernels when every
// kernel completes as it runs: the executor's first-in, first-out worklist
// starts with the kernels without operands, then counts the arguments for
// their users, and a kernel joins once its last input is counted.
std::vector<uint32_t> RunOrder(const bef::SbfFunction& function) {
  const size_t num_kernels = function.kernels.size();
  std::vector<uint32_t> waiting(num_kernels);
  std::vector<uint32_t> order;
  order.reserve(num_kernels);
  for (size_t k = 0; k < num_kernels; ++k) {
    waiting[k] = static_cast<uint32_t>(function.kernels[k].operands.size());
    if (waiting[k] == 0) order.push_back(static_cast<uint32_t>(k));
  }
  auto count = [&](absl::Span<const uint32_t> users) {
    for (uint32_t user : users) {
      if (--waiting[user] == 0) {
        order.push_back(user);
      }
    }
  };
  for (const auto& users : function.argument_users) count(users);
  for (size_t next = 0; next < order.size(); ++next) {
    for (absl::Span<const uint32_t> users :
         function.kernels[order[next]].users) {
      count(users);
    }
  }
  // The reader checked that registers are defined before they are read and
  // that users lists name exactly the readers: every kernel joins.
  assert(order.size() == num_kernels);
  return order;
}

// A native function (registered in C++) behind the Function interface.
class NativeFunctionAdapter final : public Function {
 public:
  NativeFunctionAdapter(std::string name, size_t num_arguments,
                        size_t num_results, NativeFunction function)
      : Function(std::move(name), num_arguments, num_results),
        function_(function) {}

  void Execute(const ExecutionContext& context,
               absl::Span<AsyncValue* const> arguments,
               absl::Span<RCReference<AsyncValue>> results) const override {
    function_(context, arguments, results);
  }

 private:
  NativeFunction function_;
};

// The whole of `path`, in a buffer that operator new aligns to 16 (the
// reader needs 8). Only a regular file: a path may come from a peer.
absl::StatusOr<std::vector<uint8_t>> ReadWholeFile(std::string_view path) {
  const std::string name(path);
  absl::StatusOr<std::string> text = ReadRegularFile(name);
  if (!text.ok()) {
    return absl::Status(text.status().code(),
                        absl::StrCat("sbf program: ", text.status().message()));
  }
  return std::vector<uint8_t>(text->begin(), text->end());
}

// One way an op of the program does not fit its kernel.
struct LoadProblem {
  absl::StatusCode code;
  std::string message;
  std::string kernel;
  std::string location;  // "file:line:col", or empty
};

// A hostile program could have millions of bad ops; a message lists this
// many and counts the rest.
constexpr size_t kMaxListedProblems = 100;

// Every problem in one status: the first one's code, kernel and location as
// error context, the others as "location: error: message" lines after it,
// the way compilers list them.
absl::Status CombineProblems(const std::vector<LoadProblem>& problems) {
  const LoadProblem& first = problems.front();
  std::string message = first.message;
  const size_t listed = std::min(problems.size(), kMaxListedProblems);
  for (size_t i = 1; i < listed; ++i) {
    absl::StrAppend(&message, "\n", problems[i].location,
                    problems[i].location.empty() ? "" : ": ",
                    "error: ", problems[i].message);
  }
  if (listed < problems.size()) {
    absl::StrAppend(&message, "\n(and ", problems.size() - listed,
                    " more ops that do not fit their kernels)");
  }
  return AddErrorContext(absl::Status(first.code, message),
                         {first.kernel, first.location, ""});
}

// What LoadBody works out about a function before it writes the kernel
// table: each kernel's registration and how it runs, and each register's
// fate.
struct BodyPlan {
  std::vector<bool> returned;
  // Each kernel's registration, null for unknown names (reported later).
  std::vector<const RegisteredKernel*> registered;
  std::vector<executor_internal::ControlKind> control;
  // Kernels that run through their DirectKernel entry, and the registers
  // kept in place (kInlineRegister): a direct kernel's value that is not
  // returned and that only direct kernels read, as the type it makes, or
  // tfrt.if as its condition. Such a value never becomes an AsyncValue.
  std::vector<const DirectKernel*> direct;
  std::vector<const internal::PayloadTypeInfo*> in_place;
  // How many times each register is read, which are the call's arguments,
  // and which stay until the call ends.
  std::vector<uint32_t> uses;
  std::vector<bool> argument;
  std::vector<bool> kept;
  // The use-count slot of each counted-down register.
  std::vector<uint32_t> use_slot;

  // A register with one reader is dropped by it.
  bool DroppedByReader(uint32_t r) const {
    return uses[r] == 1 && !returned[r] && !argument[r] &&
           in_place[r] == nullptr;
  }
  // The others are dropped by whichever reader runs last, which counts down
  // a per-call use count (a slot) to find out.
  bool CountedDown(uint32_t r) const {
    return uses[r] > 1 && !returned[r] && !kept[r] && in_place[r] == nullptr;
  }
  executor_internal::UserRef UserRef(const bef::SbfFunction& source,
                                     uint32_t user, uint32_t record) const {
    uint32_t flags = 0;
    if (registered[user] != nullptr &&
        registered[user]->strictness == Strictness::kStrict) {
      flags |= executor_internal::kStrictUser;
    }
    if (source.kernels[user].operands.size() == 1) {
      flags |= executor_internal::kSingleInputUser;
    }
    return executor_internal::UserRef{user | flags, record};
  }
};

// A problem of the whole function (no kernel, no location).
LoadProblem FunctionProblem(absl::StatusCode code,
                            const bef::SbfFunction& source,
                            std::string_view what) {
  return {code,
          absl::StrCat("function '", std::string(source.name), "' ",
                       std::string(what)),
          "", ""};
}

}  // namespace

class Program::Impl {
 public:
  // The file's bytes, 8-aligned (operator new aligns to 16). Attributes,
  // names and file names are read in place.
  std::vector<uint8_t> bytes;
  // The tables: after loading, only the functions' signatures and the kernel
  // names are kept (the kernels live on in the loaded functions, which build
  // debug info from the names and the file's Locations section).
  bef::SbfProgram sbf;
  std::vector<std::unique_ptr<Function>> functions;  // by SBF index
  std::vector<const Function*> listed;               // kind kFunction
  std::unordered_map<std::string, const Function*> by_name;
  // Every kernel's attribute and callee pointers, one array each: kernels
  // hold spans into them, so they are sized once, before loading.
  std::vector<const void*> attribute_pointers;
  std::vector<const Function*> callee_pointers;

  // Appends every op that does not fit its kernel to `problems`.
  // Attribute spans get their data from PointAttributes, once every body
  // is loaded.
  void LoadBody(const bef::SbfFunction& source, ExecutableFunction& target,
                const KernelRegistry& registry,
                std::vector<LoadProblem>& problems);
  // LoadBody's phases. The signature's registers and the function's size,
  // false after a problem.
  bool LoadSignature(const bef::SbfFunction& source, ExecutableFunction& target,
                     std::vector<bool>& returned,
                     std::vector<LoadProblem>& problems);
  // Each kernel's registration, and which run directly.
  void PlanKernels(const bef::SbfFunction& source,
                   const KernelRegistry& registry, BodyPlan& plan) const;
  // Who drops each register, and the call's initial counts.
  static void PlanDrops(const bef::SbfFunction& source, BodyPlan& plan,
                        ExecutableFunction& target);
  // Where each kernel's record goes; false after a problem.
  bool LayOutRecords(const bef::SbfFunction& source, const BodyPlan& plan,
                     ExecutableFunction& target,
                     std::vector<LoadProblem>& problems);
  // Kernel k's record, or its problems.
  void WriteRecord(const bef::SbfFunction& source, size_t k,
                   const BodyPlan& plan, ExecutableFunction& target,
                   std::vector<LoadProblem>& problems);
  // Which control-flow kernel the executor may run itself (see
  // executor_internal::ControlKind): one whose functions fit its operands
  // and results.
  executor_internal::ControlKind ControlKindOf(
      std::string_view name, const bef::SbfKernel& kernel) const;
  // Points each kernel's attribute span into `attribute_pointers`, which
  // LoadBody filled kernel by kernel, in the order of `functions`.
  void PointAttributes();
  // The SBF entry of one of `functions`, or nullptr.
  const bef::SbfFunction* Find(const Function& function) const;
  std::vector<std::string_view> TypeNames(
      const std::vector<uint32_t>& types) const;
};

bool Program::Impl::LoadSignature(const bef::SbfFunction& source,
                                  ExecutableFunction& target,
                                  std::vector<bool>& returned,
                                  std::vector<LoadProblem>& problems) {
  const size_t num_kernels = source.kernels.size();
  target.num_registers = source.num_registers;
  target.attribute_section = sbf.attributes_section;
  target.argument_registers = source.argument_registers;
  target.result_registers = source.result_registers;
  returned.assign(source.num_registers, false);
  target.results_move = true;
  for (uint32_t r : source.result_registers) {
    if (returned[r]) target.results_move = false;
    returned[r] = true;
  }
  for (uint32_t r : source.argument_registers) {
    if (returned[r]) target.results_move = false;
  }
  if (num_kernels == 0) {
    // Only arguments have registers then: every result is one of them.
    for (uint32_t r : source.result_registers) {
      const auto argument = std::find(source.argument_registers.begin(),
                                      source.argument_registers.end(), r);
      if (argument == source.argument_registers.end()) {
        problems.push_back(FunctionProblem(absl::StatusCode::kInvalidArgument,
                                           source,
                                           "returns a value it never defines"));
        return false;
      }
      target.returned_arguments.push_back(
          static_cast<uint32_t>(argument - source.argument_registers.begin()));
    }
  }
  if (source.num_registers > executor_internal::kRegisterMask) {
    problems.push_back(FunctionProblem(
        absl::StatusCode::kResourceExhausted, source,
        absl::StrCat("has ", source.num_registers, " registers, more than ",
                     executor_internal::kRegisterMask, " the executor runs")));
    return false;
  }
  if (num_kernels > executor_internal::kMaxKernels) {
    problems.push_back(FunctionProblem(
        absl::StatusCode::kResourceExhausted, source,
        absl::StrCat("has ", num_kernels, " kernels, more than ",
                     executor_internal::kMaxKernels, " the executor runs")));
    return false;
  }
  return true;
}

void Program::Impl::PlanKernels(const bef::SbfFunction& source,
                                const KernelRegistry& registry,
                                BodyPlan& plan) const {
  const size_t num_kernels = source.kernels.size();
  plan.registered.resize(num_kernels);
  plan.control.resize(num_kernels);
  for (size_t k = 0; k < num_kernels; ++k) {
    const std::string_view name =
        sbf.kernel_names[source.kernels[k].name_index];
    plan.registered[k] = registry.GetKernel(name);
    if (plan.registered[k] == nullptr) continue;
    plan.control[k] = ControlKindOf(name, source.kernels[k]);
  }
  plan.direct.assign(num_kernels, nullptr);
  plan.in_place.assign(source.num_registers, nullptr);
  for (size_t k = 0; k < num_kernels; ++k) {
    const bef::SbfKernel& kernel = source.kernels[k];
    const DirectKernel* entry =
        plan.registered[k] != nullptr ? plan.registered[k]->direct : nullptr;
    if (entry == nullptr || kernel.results.size() != 1 ||
        kernel.operands.size() != entry->num_operands ||
        kernel.operands.size() > executor_internal::kMaxDirectOperands) {
      continue;
    }
    plan.direct[k] = entry;
    if (!plan.returned[kernel.results[0]]) {
      plan.in_place[kernel.results[0]] = entry->result_type;
    }
  }
  for (size_t k = 0; k < num_kernels; ++k) {
    const absl::Span<const uint32_t> operands = source.kernels[k].operands;
    for (size_t i = 0; i < operands.size(); ++i) {
      const uint32_t r = operands[i];
      if (plan.in_place[r] == nullptr) continue;
      const bool read_directly =
          plan.direct[k] != nullptr &&
          plan.direct[k]->operand_types[i] == plan.in_place[r];
      const bool branched_on =
          plan.control[k] == executor_internal::ControlKind::kIf && i == 0 &&
          plan.in_place[r] == &ConcreteAsyncValue<bool>::kTypeInfo;
      if (!read_directly && !branched_on) plan.in_place[r] = nullptr;
    }
  }
}

// The call's arguments stay until the call ends: the frame borrows them
// from the caller, and must not drop what it does not own. So do the values
// of kernels without operands (constants, mostly) read more than once: they
// are few, and often read by many kernels, each of which would count.
void Program::Impl::PlanDrops(const bef::SbfFunction& source, BodyPlan& plan,
                              ExecutableFunction& target) {
  const size_t num_kernels = source.kernels.size();
  const uint32_t num_registers = source.num_registers;
  plan.uses.assign(num_registers, 0);
  plan.argument.assign(num_registers, false);
  plan.kept.assign(num_registers, false);
  for (uint32_t r : source.argument_registers) {
    plan.argument[r] = true;
    plan.kept[r] = true;
  }
  for (const bef::SbfKernel& kernel : source.kernels) {
    for (uint32_t r : kernel.operands) ++plan.uses[r];
    if (!kernel.operands.empty()) continue;
    for (uint32_t r : kernel.results) plan.kept[r] = true;
  }
  size_t num_slots = 0;
  for (uint32_t r = 0; r < num_registers; ++r) {
    if (!plan.argument[r] && !plan.DroppedByReader(r) && !plan.CountedDown(r)) {
      target.end_registers.push_back(r);
    }
    if (plan.CountedDown(r)) ++num_slots;
  }
  // A call's counts start as: each kernel's operand count, then each slot's
  // reader count.
  target.initial_counts.resize(num_kernels + num_slots);
  for (size_t k = 0; k < num_kernels; ++k) {
    target.initial_counts[k] =
        static_cast<int32_t>(source.kernels[k].operands.size());
  }
  plan.use_slot.assign(num_registers, ~0u);
  uint32_t next_slot = 0;
  for (uint32_t r = 0; r < num_registers; ++r) {
    if (!plan.CountedDown(r)) continue;
    plan.use_slot[r] = next_slot;
    target.initial_counts[num_kernels + next_slot++] =
        static_cast<int32_t>(plan.uses[r]);
  }
}

// Where each record starts: a record names its users' records. Records
// follow the order a call runs its kernels in when every one completes at
// once (see RunOrder): a wide program reads them front to back, as the
// hardware prefetches, not in strides across the table. Every array is
// sized exactly before it is filled: a large program must not leave growth
// slack behind.
bool Program::Impl::LayOutRecords(const bef::SbfFunction& source,
                                  const BodyPlan& plan,
                                  ExecutableFunction& target,
                                  std::vector<LoadProblem>& problems) {
  const size_t num_kernels = source.kernels.size();
  const std::vector<uint32_t> order = RunOrder(source);
  target.record_offsets.resize(num_kernels);
  size_t num_words = 0;
  size_t num_extras = 1;
  for (uint32_t k : order) {
    const bef::SbfKernel& kernel = source.kernels[k];
    target.record_offsets[k] = static_cast<uint32_t>(num_words);
    size_t words = sizeof(KernelRecord) / 4 + kernel.operands.size() +
                   kernel.results.size();
    for (uint32_t r : kernel.operands) {
      if (plan.DroppedByReader(r)) words += 1;
      if (plan.CountedDown(r)) words += 2;
    }
    for (absl::Span<const uint32_t> users : kernel.users) {
      words += 1 + 2 * users.size();
    }
    num_words += words + (words & 1);
    if (num_words > std::numeric_limits<uint32_t>::max()) {
      problems.push_back(
          FunctionProblem(absl::StatusCode::kResourceExhausted, source,
                          "is too large for the executor's kernel table"));
      return false;
    }
    if (!kernel.attributes.empty() || !kernel.functions.empty()) ++num_extras;
  }
  target.run_order.reserve(num_kernels);
  target.produced_at.assign(source.num_registers, 0);
  for (uint32_t k : order) {
    for (uint32_t r : source.kernels[k].results) {
      target.produced_at[r] =
          static_cast<uint32_t>(target.run_order.size() + 1);
    }
    target.run_order.push_back(target.record_offsets[k]);
  }
  target.code.assign(num_words / 2, 0);
  target.extras.reserve(num_extras);
  target.extras.emplace_back();
  target.debug_infos.Reset(&sbf, num_kernels);

  target.argument_user_offsets.push_back(0);
  size_t num_argument_users = 0;
  for (const auto& users : source.argument_users) {
    num_argument_users += users.size();
  }
  target.argument_users.reserve(num_argument_users);
  for (const auto& users : source.argument_users) {
    for (uint32_t user : users) {
      target.argument_users.push_back(
          plan.UserRef(source, user, target.record_offsets[user]));
    }
    target.argument_user_offsets.push_back(
        static_cast<uint32_t>(target.argument_users.size()));
  }
  return true;
}

void Program::Impl::WriteRecord(const bef::SbfFunction& source, size_t k,
                                const BodyPlan& plan,
                                ExecutableFunction& target,
                                std::vector<LoadProblem>& problems) {
  const bef::SbfKernel& kernel = source.kernels[k];
  const std::string_view name = sbf.kernel_names[kernel.name_index];
  target.debug_infos.Set(static_cast<uint32_t>(k), kernel.name_index,
                         kernel.location_index);
  // Only for the error: loading a program that fits formats no locations.
  auto add_problem = [&](absl::StatusCode code, std::string message) {
    const std::optional<KernelLocation> where =
        ToKernelLocation(sbf.LocationAt(kernel.location_index));
    problems.push_back({code, std::move(message), std::string(name),
                        where ? where->ToString() : ""});
  };
  const RegisteredKernel* registered = plan.registered[k];
  if (registered == nullptr) {
    add_problem(absl::StatusCode::kNotFound,
                absl::StrCat("unknown kernel name '", std::string(name), "'"));
    return;
  }
  std::vector<std::string> misfits;
  std::vector<const void*> bound =
      executor_internal::BindKernel(name, *registered, kernel, sbf, misfits);
  for (std::string& misfit : misfits) {
    add_problem(absl::StatusCode::kInvalidArgument, std::move(misfit));
  }
  if (!misfits.empty()) return;

  uint32_t* word = reinterpret_cast<uint32_t*>(target.code.data()) +
                   target.record_offsets[k];
  auto* record = new (word) KernelRecord{};
  record->implementation = registered->implementation;
  record->direct = plan.direct[k];
  record->kernel = static_cast<uint32_t>(k);
  record->strict = registered->strictness == Strictness::kStrict;
  record->control = static_cast<uint32_t>(plan.control[k]);
  record->num_operands = static_cast<uint32_t>(kernel.operands.size());
  record->num_results = static_cast<uint32_t>(kernel.results.size());
  word += sizeof(KernelRecord) / 4;
  for (uint32_t r : kernel.operands) *word++ = r;
  for (uint32_t r : kernel.results) {
    *word++ =
        r | (plan.returned[r] ? executor_internal::kReturnedRegister : 0) |
        (plan.in_place[r] != nullptr ? executor_internal::kInlineRegister : 0);
  }
  for (uint32_t r : kernel.operands) {
    if (!plan.DroppedByReader(r)) continue;
    *word++ = r;
    ++record->num_drops;
  }
  for (uint32_t r : kernel.operands) {
    if (!plan.CountedDown(r)) continue;
    *word++ = r;
    *word++ = plan.use_slot[r];
    ++record->num_countdowns;
  }
  for (absl::Span<const uint32_t> users : kernel.users) {
    *word++ = static_cast<uint32_t>(users.size());
    for (uint32_t user : users) {
      const executor_internal::UserRef ref =
          plan.UserRef(source, user, target.record_offsets[user]);
      *word++ = ref.kernel_and_flags;
      *word++ = ref.record;
    }
  }

  // The attribute array may still grow (kernels bind optional attributes
  // the op leaves out): PointAttributes sets the data once it is complete.
  if (!bound.empty() || !kernel.functions.empty()) {
    record->extras = static_cast<uint32_t>(target.extras.size());
    attribute_pointers.insert(attribute_pointers.end(), bound.begin(),
                              bound.end());
    const size_t first_callee = callee_pointers.size();
    for (uint32_t f : kernel.functions) {
      callee_pointers.push_back(functions[f].get());
    }
    target.extras.push_back(
        {absl::Span<const void* const>(nullptr, bound.size()),
         absl::MakeConstSpan(callee_pointers.data() + first_callee,
                             kernel.functions.size())});
  }

  if (kernel.operands.empty()) {
    target.initially_ready.push_back(target.record_offsets[k]);
  }
}

void Program::Impl::LoadBody(const bef::SbfFunction& source,
                             ExecutableFunction& target,
                             const KernelRegistry& registry,
                             std::vector<LoadProblem>& problems) {
  const size_t first_problem = problems.size();
  BodyPlan plan;
  if (!LoadSignature(source, target, plan.returned, problems)) return;
  PlanKernels(source, registry, plan);
  PlanDrops(source, plan, target);
  if (!LayOutRecords(source, plan, target, problems)) return;
  for (size_t k = 0; k < source.kernels.size(); ++k) {
    WriteRecord(source, k, plan, target, problems);
  }
  if (problems.size() == first_problem) {
    target.split = executor_internal::PlanSplit(target);
  }
}

executor_internal::ControlKind Program::Impl::ControlKindOf(
    std::string_view name, const bef::SbfKernel& kernel) const {
  using executor_internal::ControlKind;
  const size_t num_operands = kernel.operands.size();
  const size_t num_results = kernel.results.size();
  if (num_operands > executor_internal::kMaxControlValues ||
      num_results > executor_internal::kMaxControlValues) {
    return ControlKind::kNone;
  }
  // Whether function `i` runs on the operands from `first` on and fills
  // every result: what the kernel would check each time it runs.
  auto fits = [&](size_t i, size_t first) {
    if (i >= kernel.functions.size()) return false;
    const Function& f = *functions[kernel.functions[i]];
    return f.num_arguments() <= num_operands - first &&
           f.num_results() == num_results;
  };
  if (name == "tfrt.call") {
    return fits(0, 0) ? ControlKind::kCall : ControlKind::kNone;
  }
  if (name == "tfrt.if" || name == "tfrt.cond") {
    return num_operands >= 1 && fits(0, 1) && fits(1, 1) ? ControlKind::kIf
                                                         : ControlKind::kNone;
  }
  return ControlKind::kNone;
}

void Program::Impl::PointAttributes() {
  const void* const* next = attribute_pointers.data();
  for (size_t f = 0; f < functions.size(); ++f) {
    if (sbf.functions[f].kind == bef::FunctionKind::kNative) continue;
    auto& function = static_cast<ExecutableFunction&>(*functions[f]);
    for (executor_internal::KernelExtras& extras : function.extras) {
      extras.attributes = absl::MakeConstSpan(next, extras.attributes.size());
      next += extras.attributes.size();
    }
  }
}

absl::StatusOr<std::unique_ptr<Program>> Program::Load(
    absl::Span<const uint8_t> bytes, const KernelRegistry& registry) {
  return LoadOwned(std::vector<uint8_t>(bytes.begin(), bytes.end()), "",
                   registry);
}

absl::StatusOr<std::unique_ptr<Program>> Program::LoadFile(
    std::string_view path, const KernelRegistry& registry) {
  absl::StatusOr<std::vector<uint8_t>> bytes = ReadWholeFile(path);
  if (!bytes.ok()) return bytes.status();
  return LoadOwned(*std::move(bytes), path, registry);
}

absl::StatusOr<std::unique_ptr<Program>> Program::LoadOwned(
    std::vector<uint8_t> bytes, std::string_view source,
    const KernelRegistry& registry) {
  auto impl = std::make_unique<Impl>();
  impl->bytes = std::move(bytes);
  absl::StatusOr<bef::SbfProgram> sbf = bef::ReadSbf(impl->bytes);
  if (!sbf.ok()) {
    if (source.empty()) return sbf.status();
    return absl::Status(
        sbf.status().code(),
        absl::StrCat(std::string(source), ": ", sbf.status().message()));
  }
  impl->sbf = *std::move(sbf);

  // Function objects first: kernels refer to any of them (recursion too).
  for (const bef::SbfFunction& function : impl->sbf.functions) {
    std::string name(function.name);
    std::unique_ptr<Function> loaded;
    if (function.kind == bef::FunctionKind::kNative) {
      NativeFunction native = registry.GetNativeFunction(name);
      if (native == nullptr) {
        return absl::NotFoundError(
            absl::StrCat("unknown native function '", name, "'"));
      }
      loaded = std::make_unique<NativeFunctionAdapter>(
          name, function.argument_types.size(), function.result_types.size(),
          native);
    } else {
      loaded = std::make_unique<ExecutableFunction>(
          name, function.argument_types.size(), function.result_types.size());
    }
    if (function.kind != bef::FunctionKind::kRegion) {
      impl->by_name.emplace(name, loaded.get());
    }
    if (function.kind != bef::FunctionKind::kRegion) {
      impl->listed.push_back(loaded.get());
    }
    loaded->set_program_bytes(impl->bytes);
    impl->functions.push_back(std::move(loaded));
  }

  // Spans into the callee array stay valid: sized so it never moves. The
  // attribute array is sized for the ops' own attributes and may grow.
  size_t num_attributes = 0;
  size_t num_callees = 0;
  for (const bef::SbfFunction& function : impl->sbf.functions) {
    for (const bef::SbfKernel& kernel : function.kernels) {
      num_attributes += kernel.attributes.size();
      num_callees += kernel.functions.size();
    }
  }
  impl->attribute_pointers.reserve(num_attributes);
  impl->callee_pointers.reserve(num_callees);

  std::vector<LoadProblem> problems;
  std::vector<ExecutableFunction*> loaded;
  for (size_t f = 0; f < impl->sbf.functions.size(); ++f) {
    const bef::SbfFunction& function = impl->sbf.functions[f];
    if (function.kind == bef::FunctionKind::kNative) continue;
    auto& target = static_cast<ExecutableFunction&>(*impl->functions[f]);
    impl->LoadBody(function, target, registry, problems);
    loaded.push_back(&target);
  }
  if (!problems.empty()) return CombineProblems(problems);
  executor_internal::PlanInlineRegions(loaded);
  impl->PointAttributes();
  // The loaded functions hold all a call needs: the decoded kernels and
  // locations would only double the program's memory.
  for (bef::SbfFunction& function : impl->sbf.functions) {
    std::vector<bef::SbfKernel>().swap(function.kernels);
    std::vector<uint32_t>().swap(function.register_types);
  }
  std::vector<bef::SbfLocation>().swap(impl->sbf.locations);
  return std::unique_ptr<Program>(new Program(std::move(impl)));
}

Program::Program(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Program::~Program() = default;

const Function* Program::GetFunction(std::string_view name) const {
  auto it = impl_->by_name.find(std::string(name));
  return it == impl_->by_name.end() ? nullptr : it->second;
}

std::vector<const Function*> Program::ListFunctions() const {
  return impl_->listed;
}

const bef::SbfFunction* Program::Impl::Find(const Function& function) const {
  for (size_t f = 0; f < functions.size(); ++f) {
    if (functions[f].get() == &function) return &sbf.functions[f];
  }
  return nullptr;
}

std::vector<std::string_view> Program::Impl::TypeNames(
    const std::vector<uint32_t>& types) const {
  std::vector<std::string_view> names;
  for (uint32_t type : types) names.push_back(sbf.types[type]);
  return names;
}

std::vector<std::string_view> Program::ResultTypes(
    const Function& function) const {
  const bef::SbfFunction* found = impl_->Find(function);
  if (found == nullptr) return {};
  return impl_->TypeNames(found->result_types);
}

std::vector<std::string_view> Program::ArgumentTypes(
    const Function& function) const {
  const bef::SbfFunction* found = impl_->Find(function);
  if (found == nullptr) return {};
  return impl_->TypeNames(found->argument_types);
}

absl::Span<const uint8_t> Program::bytes() const { return impl_->bytes; }

std::vector<RCReference<AsyncValue>> CallFunction(
    const Function& function, const ExecutionContext& context,
    absl::Span<AsyncValue* const> arguments) {
  std::vector<RCReference<AsyncValue>> results(function.num_results());
  function.Execute(context, arguments, absl::MakeSpan(results));
  return results;
}

}  // namespace sluice
