// Decoding and validation of one function body of FunctionBodies: register
// discipline and users lists.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "lib/bef/byte_reader.h"
#include "lib/bef/reader_internal.h"
#include "sluice/bef/format.h"
#include "sluice/bef/sbf_reader.h"

namespace sluice {
namespace bef {
namespace internal {
namespace {

// Who defined a register: a kernel index, or one of these.
constexpr int64_t kUndefined = -1;
constexpr int64_t kArgument = -2;

// Fixed part of a kernel entry: six u32 counts and indices.
constexpr uint32_t kKernelHeaderSize = 24;

class BodyDecoder {
 public:
  BodyDecoder(const ReaderContext& context, uint32_t index,
              uint32_t body_offset, uint32_t body_size, SbfFunction* function)
      : context_(context),
        function_(function),
        name_(DescribeFunction(index, function->name)),
        reader_(context.file, "FunctionBodies",
                context.bodies.offset + body_offset,
                context.bodies.offset + body_offset + body_size,
                absl::StrFormat("body of function %s", name_)) {}

  absl::Status Decode();

 private:
  // A users list as found in the file, to be compared with the operands
  // once every kernel has been read.
  struct UsersList {
    uint32_t reg;
    uint32_t offset;
    int64_t kernel;  // kArgument for an argument's list
    uint32_t slot;   // argument or result position
  };

  absl::Status CheckInRange(uint32_t offset, uint32_t reg,
                            std::string_view role);
  absl::Status Define(uint32_t offset, uint32_t reg, int64_t definer,
                      const char* role);
  absl::Status ReadUsers(uint32_t reg, int64_t kernel, uint32_t slot,
                         absl::Span<const uint32_t>* users);
  absl::Status ReadKernel(uint32_t k);
  absl::Status CheckUsers() const;

  const ReaderContext& context_;
  SbfFunction* function_;
  std::string name_;
  ByteReader reader_;
  std::vector<int64_t> definer_;
  std::vector<UsersList> users_lists_;
};

absl::Status BodyDecoder::Decode() {
  const uint32_t body_start = reader_.offset();
  uint32_t num_kernels = 0;
  SLUICE_BEF_RETURN_IF_ERROR(
      reader_.ReadU32("register count", &function_->num_registers));
  SLUICE_BEF_RETURN_IF_ERROR(reader_.ReadU32("kernel count", &num_kernels));
  // Each register is defined by a 4-byte argument or result field, so a
  // count the body cannot hold is rejected before anything is allocated.
  if (uint64_t{function_->num_registers} * 4 > reader_.remaining()) {
    return reader_.Error(body_start,
                         "register count %d is more than the body of "
                         "function %s can define (%d bytes left)",
                         function_->num_registers, name_, reader_.remaining());
  }
  SLUICE_BEF_RETURN_IF_ERROR(
      reader_.CheckCountFits("kernels", num_kernels, kKernelHeaderSize));
  definer_.assign(function_->num_registers, kUndefined);

  const uint32_t num_arguments =
      static_cast<uint32_t>(function_->argument_types.size());
  uint32_t at = reader_.offset();
  SLUICE_BEF_RETURN_IF_ERROR(reader_.ReadU32Array(
      "argument registers", num_arguments, &function_->argument_registers));
  for (uint32_t i = 0; i < num_arguments; ++i) {
    SLUICE_BEF_RETURN_IF_ERROR(Define(
        at + 4 * i, function_->argument_registers[i], kArgument, "argument"));
  }
  at = reader_.offset();
  SLUICE_BEF_RETURN_IF_ERROR(reader_.ReadU32Array(
      "result registers", static_cast<uint32_t>(function_->result_types.size()),
      &function_->result_registers));
  for (uint32_t i = 0; i < function_->result_registers.size(); ++i) {
    // Whether it is defined is known only after the kernels; every register
    // must be defined by then anyway.
    SLUICE_BEF_RETURN_IF_ERROR(CheckInRange(
        at + 4 * i, function_->result_registers[i], "returned register"));
  }
  function_->argument_users.resize(num_arguments);
  for (uint32_t i = 0; i < num_arguments; ++i) {
    absl::Span<const uint32_t> users;
    SLUICE_BEF_RETURN_IF_ERROR(
        ReadUsers(function_->argument_registers[i], kArgument, i, &users));
    function_->argument_users[i].assign(users.begin(), users.end());
  }
  function_->kernels.reserve(num_kernels);
  for (uint32_t k = 0; k < num_kernels; ++k) {
    SLUICE_BEF_RETURN_IF_ERROR(ReadKernel(k));
  }
  SLUICE_BEF_RETURN_IF_ERROR(reader_.CheckAtEnd("the last kernel"));
  for (uint32_t reg = 0; reg < function_->num_registers; ++reg) {
    if (definer_[reg] == kUndefined) {
      return reader_.Error(body_start,
                           "register %d of function %s is never defined", reg,
                           name_);
    }
  }
  return CheckUsers();
}

absl::Status BodyDecoder::CheckInRange(uint32_t offset, uint32_t reg,
                                       std::string_view role) {
  if (reg >= function_->num_registers) {
    return reader_.Error(offset,
                         "%s %d out of range (function %s has %d registers)",
                         role, reg, name_, function_->num_registers);
  }
  return absl::OkStatus();
}

absl::Status BodyDecoder::Define(uint32_t offset, uint32_t reg, int64_t definer,
                                 const char* role) {
  SLUICE_BEF_RETURN_IF_ERROR(
      CheckInRange(offset, reg, absl::StrFormat("%s register", role)));
  const int64_t previous = definer_[reg];
  if (previous != kUndefined) {
    return reader_.Error(
        offset, "register %d of function %s is defined twice (first by %s)",
        reg, name_,
        previous == kArgument ? std::string("an argument")
                              : absl::StrFormat("kernel %d", previous));
  }
  definer_[reg] = definer;
  return absl::OkStatus();
}

absl::Status BodyDecoder::ReadUsers(uint32_t reg, int64_t kernel, uint32_t slot,
                                    absl::Span<const uint32_t>* users) {
  const uint32_t offset = reader_.offset();
  uint32_t count = 0;
  SLUICE_BEF_RETURN_IF_ERROR(reader_.ReadU32("user count", &count));
  SLUICE_BEF_RETURN_IF_ERROR(reader_.ReadU32Span("users", count, users));
  users_lists_.push_back({reg, offset, kernel, slot});
  return absl::OkStatus();
}

absl::Status BodyDecoder::ReadKernel(uint32_t k) {
  const uint32_t kernel_offset = reader_.offset();
  SbfKernel& kernel = function_->kernels.emplace_back();
  uint32_t num_operands = 0;
  uint32_t num_results = 0;
  uint32_t num_attributes = 0;
  uint32_t num_functions = 0;
  SLUICE_BEF_RETURN_IF_ERROR(
      reader_.ReadU32("kernel name index", &kernel.name_index));
  SLUICE_BEF_RETURN_IF_ERROR(
      reader_.ReadU32("location index", &kernel.location_index));
  SLUICE_BEF_RETURN_IF_ERROR(reader_.ReadU32("operand count", &num_operands));
  SLUICE_BEF_RETURN_IF_ERROR(reader_.ReadU32("result count", &num_results));
  SLUICE_BEF_RETURN_IF_ERROR(
      reader_.ReadU32("attribute count", &num_attributes));
  SLUICE_BEF_RETURN_IF_ERROR(reader_.ReadU32("function count", &num_functions));
  if (kernel.name_index >= context_.num_kernel_names) {
    return reader_.Error(kernel_offset,
                         "kernel %d of function %s has kernel name index %d "
                         "but KernelNames has %d entries",
                         k, name_, kernel.name_index,
                         context_.num_kernel_names);
  }
  if (kernel.location_index >= context_.num_locations) {
    return reader_.Error(kernel_offset + 4,
                         "kernel %d of function %s has location index %d but "
                         "Locations has %d entries",
                         k, name_, kernel.location_index,
                         context_.num_locations);
  }
  const uint64_t num_words = uint64_t{num_operands} + num_results +
                             2 * uint64_t{num_attributes} + num_functions;
  SLUICE_BEF_RETURN_IF_ERROR(reader_.CheckCountFits(
      "operand, result, attribute and function words", num_words, 4));

  uint32_t at = reader_.offset();
  SLUICE_BEF_RETURN_IF_ERROR(
      reader_.ReadU32Span("operands", num_operands, &kernel.operands));
  for (uint32_t i = 0; i < num_operands; ++i) {
    const uint32_t reg = kernel.operands[i];
    SLUICE_BEF_RETURN_IF_ERROR(
        CheckInRange(at + 4 * i, reg, "operand register"));
    if (definer_[reg] == kUndefined) {
      return reader_.Error(at + 4 * i,
                           "kernel %d of function %s uses register %d before "
                           "it is defined",
                           k, name_, reg);
    }
  }
  at = reader_.offset();
  SLUICE_BEF_RETURN_IF_ERROR(
      reader_.ReadU32Span("results", num_results, &kernel.results));
  for (uint32_t i = 0; i < num_results; ++i) {
    SLUICE_BEF_RETURN_IF_ERROR(
        Define(at + 4 * i, kernel.results[i], k, "result"));
  }
  at = reader_.offset();
  SLUICE_BEF_RETURN_IF_ERROR(
      reader_.ReadU32Span("attributes", num_attributes, &kernel.attributes));
  for (uint32_t i = 0; i < num_attributes; ++i) {
    SLUICE_BEF_RETURN_IF_ERROR(context_.attributes.CheckReference(
        reader_, at + 4 * i, kernel.attributes[i]));
  }
  at = reader_.offset();
  std::vector<uint32_t> names;
  SLUICE_BEF_RETURN_IF_ERROR(
      reader_.ReadU32Array("attribute names", num_attributes, &names));
  kernel.attribute_names.resize(num_attributes);
  for (uint32_t i = 0; i < num_attributes; ++i) {
    SLUICE_BEF_RETURN_IF_ERROR(context_.strings.Resolve(
        reader_, at + 4 * i, names[i], &kernel.attribute_names[i]));
  }
  at = reader_.offset();
  SLUICE_BEF_RETURN_IF_ERROR(
      reader_.ReadU32Span("functions", num_functions, &kernel.functions));
  for (uint32_t i = 0; i < num_functions; ++i) {
    if (kernel.functions[i] >= context_.num_functions) {
      return reader_.Error(at + 4 * i,
                           "kernel %d of function %s refers to function %d "
                           "but there are %d functions",
                           k, name_, kernel.functions[i],
                           context_.num_functions);
    }
  }
  const uint32_t users_at = reader_.offset();
  for (uint32_t i = 0; i < num_results; ++i) {
    absl::Span<const uint32_t> users;
    SLUICE_BEF_RETURN_IF_ERROR(ReadUsers(kernel.results[i], k, i, &users));
  }
  kernel.users = SbfUsers(
      absl::MakeConstSpan(
          reinterpret_cast<const uint32_t*>(context_.file.data() + users_at),
          (reader_.offset() - users_at) / 4),
      num_results);
  return absl::OkStatus();
}

absl::Status BodyDecoder::CheckUsers() const {
  // Built the way the writer builds them: ascending kernel index, once per
  // use. One flat array, register by register, so that checking a large
  // body allocates twice, not once per register.
  const uint32_t num_registers = function_->num_registers;
  std::vector<uint32_t> start(num_registers + 1, 0);
  for (const SbfKernel& kernel : function_->kernels) {
    for (uint32_t reg : kernel.operands) ++start[reg + 1];
  }
  for (uint32_t reg = 0; reg < num_registers; ++reg) {
    start[reg + 1] += start[reg];
  }
  std::vector<uint32_t> expected(start.back());
  std::vector<uint32_t> next(start.begin(), start.end() - 1);
  for (uint32_t k = 0; k < function_->kernels.size(); ++k) {
    for (uint32_t reg : function_->kernels[k].operands) {
      expected[next[reg]++] = k;
    }
  }
  for (const UsersList& list : users_lists_) {
    const absl::Span<const uint32_t> users =
        list.kernel == kArgument
            ? absl::MakeConstSpan(function_->argument_users[list.slot])
            : function_->kernels[list.kernel].users[list.slot];
    const absl::Span<const uint32_t> uses =
        absl::MakeConstSpan(expected.data() + start[list.reg],
                            start[list.reg + 1] - start[list.reg]);
    if (users != uses) {
      return reader_.Error(list.offset,
                           "users of register %d of function %s are %s but "
                           "its operand uses are %s",
                           list.reg, name_, FormatList(users),
                           FormatList(uses));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string DescribeFunction(uint32_t index, std::string_view name) {
  if (name.empty()) return absl::StrFormat("#%d", index);
  // Names come from the file: escape them so that a hostile one cannot
  // forge lines in a log, and keep long ones from drowning the message.
  constexpr size_t kMaxShown = 64;
  const std::string_view shown = name.substr(0, kMaxShown);
  return absl::StrFormat(
      "'%s%s'", absl::CHexEscape(absl::string_view(shown.data(), shown.size())),
      name.size() > kMaxShown ? "..." : "");
}

absl::Status ReadFunctionBody(const ReaderContext& context, uint32_t index,
                              uint32_t body_offset, uint32_t body_size,
                              SbfFunction* function) {
  return BodyDecoder(context, index, body_offset, body_size, function).Decode();
}

}  // namespace internal
}  // namespace bef
}  // namespace sluice
