// ProgramBuilder: one-block SBF functions built register by register, for
// executor tests.
#ifndef SLUICE_TEST_UNIT_EXECUTOR_PROGRAM_BUILDER_H_
#define SLUICE_TEST_UNIT_EXECUTOR_PROGRAM_BUILDER_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/bef/sbf_writer.h"

namespace sluice {
namespace testing_util {

// Builds one-block functions register by register.
class ProgramBuilder {
 public:
  ProgramBuilder() { i32_ = writer_.AddType("i32"); }

  uint32_t Declare(std::string_view name, int num_arguments, int num_results) {
    return writer_.DeclareFunction(name, bef::FunctionKind::kFunction,
                                   std::vector<uint32_t>(num_arguments, i32_),
                                   std::vector<uint32_t>(num_results, i32_));
  }

  // Starts a body with `num_arguments` argument registers (0..n-1).
  void Begin(int num_arguments) {
    body_ = bef::BodyDescription();
    for (int i = 0; i < num_arguments; ++i) {
      body_.argument_registers.push_back(body_.num_registers++);
    }
  }

  // Adds a kernel; returns its first result register.
  uint32_t Kernel(std::string_view name, std::vector<uint32_t> operands,
                  int num_results = 1, std::vector<uint32_t> attributes = {},
                  std::vector<uint32_t> functions = {}) {
    bef::KernelDescription kernel;
    kernel.name_index = writer_.AddKernelName(name);
    kernel.location_index =
        writer_.AddLocation("prog.mlir", ++line_, 5, std::nullopt);
    kernel.operands = std::move(operands);
    const uint32_t first = body_.num_registers;
    for (int i = 0; i < num_results; ++i) {
      kernel.results.push_back(body_.num_registers++);
    }
    for (size_t i = 0; i < attributes.size(); ++i) {
      kernel.attribute_names.push_back(writer_.AddString("value"));
    }
    kernel.attributes = std::move(attributes);
    kernel.functions = std::move(functions);
    body_.kernels.push_back(std::move(kernel));
    return first;
  }

  uint32_t Constant(int32_t value) {
    return Kernel(
        "test.constant.i32", {}, 1,
        {writer_.AddScalar<int32_t>(bef::AttributeType::kI32, value)});
  }

  void End(uint32_t function, std::vector<uint32_t> results) {
    body_.result_registers = std::move(results);
    writer_.DefineFunction(function, std::move(body_));
  }

  std::vector<uint8_t> Finish() { return writer_.Finish(); }

 private:
  bef::SbfWriter writer_;
  uint32_t i32_;
  uint32_t line_ = 0;
  bef::BodyDescription body_;
};

}  // namespace testing_util
}  // namespace sluice

#endif  // SLUICE_TEST_UNIT_EXECUTOR_PROGRAM_BUILDER_H_
