// Fuzz target for ReadSbf: any input either fails with an "invalid sbf
// file" error or decodes into a program whose every index, string and
// attribute lies inside the input. Each input is read twice: as given, which
// exercises the checksum check, and with its checksum recomputed, which lets
// mutations reach the checks behind it.
//
// In the test suite, fuzz_driver.cc runs this target on seeds and
// deterministic mutations (gcc has no libFuzzer). To fuzz for real with
// clang-14's libFuzzer (Debian's libclang-rt-14-dev), from the repository
// root: write the driver's seeds as a starting corpus, build, and run.
//
// clang-format off
//   bazel run //test/fuzz:sbf_reader_fuzz_test -- --runs=0 --corpus_out=/tmp/sbf_corpus
//   clang++-14 -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -I. -Iinclude -I/usr/lib/llvm-19/include test/fuzz/sbf_reader_fuzzer.cc lib/bef/*.cc lib/support/logging.cc /usr/lib/x86_64-linux-gnu/libabsl_*.so -L/usr/lib/llvm-19/lib -Wl,-rpath,/usr/lib/llvm-19/lib -lLLVM-19 -o /tmp/sbf_reader_fuzzer
//   /tmp/sbf_reader_fuzzer -max_total_time=60 /tmp/sbf_corpus
// clang-format on
//
// A crash leaves crash-<hash> in the working directory; replay it under the
// sanitizers with the driver: `bazel run --config=asan
// //test/fuzz:sbf_reader_fuzz_test -- --runs=0 $PWD/crash-<hash>`.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sluice/bef/checksum.h"
#include "sluice/bef/format.h"
#include "sluice/bef/sbf_reader.h"

namespace sluice {
namespace bef {
namespace {

// Writing through a volatile keeps the compiler from dropping the reads
// that prove the views are in bounds.
volatile uint64_t sink;

// A broken promise of the reader: crash so the fuzzer reports the input.
void Require(bool condition) {
  if (!condition) __builtin_trap();
}

uint64_t Touch(const void* data, size_t size) {
  const uint8_t* bytes = static_cast<const uint8_t*>(data);
  uint64_t sum = 0;
  for (size_t i = 0; i < size; ++i) sum = sum * 31 + bytes[i];
  return sum;
}

uint64_t Touch(std::string_view value) {
  return Touch(value.data(), value.size());
}

// Visits every attribute reachable from `reference` once. Arrays may share
// elements, so without the visited set a chain of arrays could take
// exponential time.
uint64_t WalkAttributes(const SbfProgram& program, uint32_t reference,
                        std::unordered_set<uint32_t>* visited) {
  uint64_t sum = 0;
  std::vector<uint32_t> pending = {reference};
  while (!pending.empty()) {
    const uint32_t current = pending.back();
    pending.pop_back();
    if (!visited->insert(current).second) continue;
    const SbfAttribute attribute = program.GetAttribute(current);
    Require(attribute.data == program.AttributeData(current));
    const uint32_t element_size = AttributeElementSize(attribute.type);
    Require(element_size != 0);
    const size_t size = attribute.type == AttributeType::kUnit
                            ? 0
                            : size_t{attribute.count} * element_size;
    const uint8_t* begin = program.attributes_section.data();
    const uint8_t* data = static_cast<const uint8_t*>(attribute.data);
    Require(data >= begin &&
            data + size <= begin + program.attributes_section.size());
    sum += Touch(data, size);
    if (attribute.type == AttributeType::kType ||
        attribute.type == AttributeType::kSymbol ||
        attribute.type == AttributeType::kArray) {
      for (uint32_t i = 0; i < attribute.count; ++i) {
        uint32_t value;
        std::memcpy(&value, data + 4 * i, sizeof(value));
        if (attribute.type == AttributeType::kType) {
          Require(value < program.types.size());
        } else if (attribute.type == AttributeType::kSymbol) {
          Require(value < program.functions.size());
        } else {
          // Elements point backwards, so nesting ends.
          Require(value < current);
          pending.push_back(value);
        }
      }
    }
  }
  return sum;
}

uint64_t WalkFunction(const SbfProgram& program, const SbfFunction& function,
                      std::unordered_set<uint32_t>* visited) {
  uint64_t sum = Touch(function.name);
  for (uint32_t type : function.argument_types) {
    Require(type < program.types.size());
  }
  for (uint32_t type : function.result_types) {
    Require(type < program.types.size());
  }
  for (uint32_t type : function.register_types) {
    Require(type == kNone || type < program.types.size());
  }
  const uint32_t num_registers = function.num_registers;
  const size_t num_kernels = function.kernels.size();
  for (uint32_t reg : function.argument_registers) {
    Require(reg < num_registers);
  }
  for (uint32_t reg : function.result_registers) {
    Require(reg < num_registers);
  }
  for (const std::vector<uint32_t>& users : function.argument_users) {
    for (uint32_t user : users) Require(user < num_kernels);
  }
  for (const SbfKernel& kernel : function.kernels) {
    Require(kernel.name_index < program.kernel_names.size());
    Require(kernel.location_index < program.locations.size());
    for (uint32_t reg : kernel.operands) Require(reg < num_registers);
    for (uint32_t reg : kernel.results) Require(reg < num_registers);
    for (uint32_t callee : kernel.functions) {
      Require(callee < program.functions.size());
    }
    Require(kernel.attribute_names.size() == kernel.attributes.size());
    for (std::string_view name : kernel.attribute_names) sum += Touch(name);
    for (uint32_t reference : kernel.attributes) {
      sum += WalkAttributes(program, reference, visited);
    }
    Require(kernel.users.size() == kernel.results.size());
    for (absl::Span<const uint32_t> users : kernel.users) {
      for (uint32_t user : users) Require(user < num_kernels);
    }
  }
  return sum;
}

void CheckBuffer(absl::Span<const uint8_t> bytes) {
  absl::StatusOr<SbfProgram> program = ReadSbf(bytes);
  if (!program.ok()) {
    Require(program.status().code() == absl::StatusCode::kInvalidArgument);
    return;
  }
  uint64_t sum = 0;
  for (std::string_view type : program->types) sum += Touch(type);
  for (std::string_view name : program->kernel_names) sum += Touch(name);
  for (const SbfLocation& location : program->locations) {
    sum += Touch(location.file) + Touch(location.debug_name);
  }
  std::unordered_set<uint32_t> visited;
  for (const SbfFunction& function : program->functions) {
    sum += WalkFunction(*program, function, &visited);
  }
  sink = sink + sum;
}

void CheckOneInput(const uint8_t* data, size_t size) {
  // new[] returns memory aligned for any scalar (at least the 8 bytes
  // ReadSbf needs) and exactly `size` long, so AddressSanitizer flags any
  // read past the end.
  std::unique_ptr<uint8_t[]> buffer(new uint8_t[size]);
  if (size != 0) std::memcpy(buffer.get(), data, size);
  const absl::Span<uint8_t> bytes(buffer.get(), size);
  // As given: a mutated file nearly always fails the checksum, which is
  // the check this path fuzzes.
  CheckBuffer(bytes);
  // With the checksum made right, so that mutations reach every check
  // behind it.
  if (size >= kHeaderSize) {
    const uint32_t stored = StoredSbfChecksum(bytes);
    UpdateSbfChecksum(bytes);
    if (StoredSbfChecksum(bytes) != stored) CheckBuffer(bytes);
  }
}

}  // namespace
}  // namespace bef
}  // namespace sluice

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sluice::bef::CheckOneInput(data, size);
  return 0;
}
