// Runs the SBF reader fuzz target without libFuzzer: on seed programs built
// with SbfWriter, then on deterministic mutations of them. A crash (the
// target traps on any broken promise of the reader, and the sanitizers on
// any bad access) fails the test; otherwise it exits 0.
//
//   fuzz_driver [--runs=N] [--seed=S] [--corpus_out=DIR] [FILE...]
//
// FILEs (for example a crash input saved by libFuzzer) are run before the
// seeds. --corpus_out writes the seeds to DIR (created if missing) as a
// starting corpus for libFuzzer (see sbf_reader_fuzzer.cc).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "sluice/bef/checksum.h"
#include "sluice/bef/format.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/bef/sbf_writer.h"
#include "test/fuzz/deterministic_fuzzing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace sluice {
namespace bef {
namespace {

using Bytes = std::vector<uint8_t>;

// A program touching every table, attribute kind and function kind.
Bytes FullProgram(bool optional_sections) {
  SbfWriter writer;
  const uint32_t i32 = writer.AddType("i32");
  const uint32_t chain = writer.AddType("!tfrt.chain");
  const uint32_t add = writer.AddKernelName("tfrt.add.i32");
  const uint32_t call = writer.AddKernelName("tfrt.call");
  const uint32_t if_kernel = writer.AddKernelName("tfrt.if");
  const uint32_t loc0 = writer.AddLocation("prog.mlir", 3, 8, "add");
  const uint32_t loc1 = writer.AddLocation("", 0, 0, std::nullopt);
  const uint32_t main = writer.DeclareFunction("main", FunctionKind::kFunction,
                                               {i32, i32, chain}, {i32, chain});
  const uint32_t native =
      writer.DeclareFunction("native", FunctionKind::kNative, {i32}, {i32});
  const uint32_t region =
      writer.DeclareFunction("", FunctionKind::kRegion, {i32}, {i32});

  std::vector<uint32_t> scalars = {
      writer.AddScalar<uint8_t>(AttributeType::kBool, 1),
      writer.AddScalar<int8_t>(AttributeType::kI8, -3),
      writer.AddScalar<int16_t>(AttributeType::kI16, 300),
      writer.AddScalar<int32_t>(AttributeType::kI32, -70000),
      writer.AddScalar<int64_t>(AttributeType::kI64, 1),
      writer.AddScalar<uint8_t>(AttributeType::kUI8, 200),
      writer.AddScalar<uint16_t>(AttributeType::kUI16, 60000),
      writer.AddScalar<uint32_t>(AttributeType::kUI32, 7),
      writer.AddScalar<uint64_t>(AttributeType::kUI64, 9),
      writer.AddScalar<uint16_t>(AttributeType::kF16, 0x3C00),
      writer.AddScalar<uint16_t>(AttributeType::kBF16, 0x3F80),
      writer.AddScalar<float>(AttributeType::kF32, 0.5f),
      writer.AddScalar<double>(AttributeType::kF64, 0.25),
      writer.AddStringAttribute("some text"),
      writer.AddTypeAttribute(chain),
      writer.AddSymbolAttribute(native),
      writer.AddUnitAttribute(),
  };
  const float complex_parts[2] = {1, 2};
  scalars.push_back(writer.AddScalarAttribute(
      AttributeType::kComplex64, complex_parts, sizeof(complex_parts)));
  const int16_t dense[4] = {1, 2, 3, 4};
  scalars.push_back(
      writer.AddDenseArrayAttribute(AttributeType::kI16, dense, 4));
  const int32_t tensor[6] = {1, 2, 3, 4, 5, 6};
  const int64_t shape[2] = {2, 3};
  scalars.push_back(
      writer.AddDenseElementsAttribute(AttributeType::kI32, shape, tensor));
  const uint32_t inner = writer.AddArrayAttribute({scalars[3], scalars[13]});
  const uint32_t outer = writer.AddArrayAttribute({inner, inner, scalars[0]});

  BodyDescription region_body;
  region_body.num_registers = 2;
  region_body.argument_registers = {0};
  region_body.result_registers = {1};
  region_body.kernels.push_back({add, loc0, {0, 0}, {1}, {}, {}, {}});
  writer.DefineFunction(region, region_body);

  KernelDescription attrs{add, loc1, {0, 1}, {3}, {}, {}, {}};
  for (uint32_t reference : scalars) {
    attrs.attributes.push_back(reference);
    attrs.attribute_names.push_back(
        writer.AddString("a" + std::to_string(reference)));
  }
  attrs.attributes.push_back(outer);
  attrs.attribute_names.push_back(writer.AddString("outer"));
  BodyDescription body;
  body.num_registers = 6;
  body.argument_registers = {0, 1, 2};
  body.result_registers = {5, 2};
  body.kernels.push_back(attrs);
  body.kernels.push_back({call,
                          loc0,
                          {3, 0},
                          {4},
                          {scalars[15]},
                          {writer.AddString("callee")},
                          {native}});
  body.kernels.push_back({if_kernel, loc1, {4, 4, 3}, {5}, {}, {}, {region}});
  body.register_types = {i32, i32, chain, i32, i32, i32};
  writer.DefineFunction(main, body);
  return writer.Finish(optional_sections);
}

// Arrays nested deeply and sharing elements, as the walk must handle; at
// the format's limit, a mutation can push them past it.
Bytes NestedArrays(uint32_t levels) {
  SbfWriter writer;
  uint32_t current = writer.AddScalar<int32_t>(AttributeType::kI32, 1);
  for (uint32_t depth = 0; depth < levels; ++depth) {
    current = writer.AddArrayAttribute({current, current});
  }
  const uint32_t k = writer.AddKernelName("test.nested");
  const uint32_t loc = writer.AddLocation("n.mlir", 1, 1, "nested");
  const uint32_t f =
      writer.DeclareFunction("nested", FunctionKind::kFunction, {}, {});
  BodyDescription body;
  body.kernels.push_back(
      {k, loc, {}, {}, {current}, {writer.AddString("deep")}, {}});
  writer.DefineFunction(f, body);
  return writer.Finish();
}

// Many small functions calling each other.
Bytes CallChain() {
  SbfWriter writer;
  const uint32_t t = writer.AddType("i32");
  const uint32_t call = writer.AddKernelName("tfrt.call");
  const uint32_t loc = writer.AddLocation("c.mlir", 2, 3, std::nullopt);
  constexpr uint32_t kCount = 6;
  std::vector<uint32_t> functions;
  for (uint32_t i = 0; i < kCount; ++i) {
    functions.push_back(writer.DeclareFunction(
        "f" + std::to_string(i), FunctionKind::kFunction, {t}, {t}));
  }
  for (uint32_t i = 0; i < kCount; ++i) {
    BodyDescription body;
    body.num_registers = 2;
    body.argument_registers = {0};
    body.result_registers = {i + 1 < kCount ? 1u : 0u};
    if (i + 1 < kCount) {
      body.kernels.push_back({call, loc, {0}, {1}, {}, {}, {functions[i + 1]}});
    } else {
      body.num_registers = 1;
    }
    writer.DefineFunction(functions[i], body);
  }
  return writer.Finish();
}

std::vector<Bytes> Seeds() {
  return {FullProgram(true),
          FullProgram(false),
          SbfWriter().Finish(),
          NestedArrays(24),
          NestedArrays(kMaxArrayNesting),
          CallChain()};
}

// Values that tend to sit on the edges of the reader's checks.
uint32_t InterestingWord(fuzz::Random& random, size_t size) {
  const uint32_t values[] = {
      0,          1,          2,          3,
      4,          7,          8,          16,
      0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFF8,
      0x80000001, 0x100 + 4,  0x3FFFFFFF, static_cast<uint32_t>(size)};
  return values[random.Below(sizeof(values) / sizeof(values[0]))];
}

void MutateOnce(fuzz::Random& random, Bytes& bytes) {
  const size_t size = bytes.size();
  switch (random.Below(8)) {
    case 0:  // flip a bit
      if (size != 0) bytes[random.Below(size)] ^= 1 << random.Below(8);
      break;
    case 1:  // set a byte
      if (size != 0) {
        bytes[random.Below(size)] = static_cast<uint8_t>(random.Next());
      }
      break;
    case 2:    // set an aligned word: most fields are words
    case 3: {  // (twice as likely as the rest)
      if (size < 4) break;
      const size_t at = random.Below(size / 4) * 4;
      const uint32_t value = random.Below(2) == 0
                                 ? InterestingWord(random, size)
                                 : static_cast<uint32_t>(random.Next());
      std::memcpy(&bytes[at], &value, 4);
      break;
    }
    case 4:  // nudge a word up or down
      if (size >= 4) {
        const size_t at = random.Below(size / 4) * 4;
        uint32_t value;
        std::memcpy(&value, &bytes[at], 4);
        value += random.Below(2) == 0 ? 1 : static_cast<uint32_t>(-4);
        std::memcpy(&bytes[at], &value, 4);
      }
      break;
    case 5:  // truncate
      bytes.resize(random.Below(size + 1));
      break;
    case 6: {  // insert bytes
      const size_t at = random.Below(size + 1);
      const size_t count = 1 + random.Below(8);
      Bytes inserted(count);
      for (uint8_t& byte : inserted) byte = static_cast<uint8_t>(random.Next());
      bytes.insert(bytes.begin() + at, inserted.begin(), inserted.end());
      break;
    }
    case 7:  // erase bytes
      if (size != 0) {
        const size_t at = random.Below(size);
        const size_t count = 1 + random.Below(std::min<size_t>(8, size - at));
        bytes.erase(bytes.begin() + at, bytes.begin() + at + count);
      }
      break;
  }
}

// Whether the reader takes `bytes` once their checksum is made right, as
// the fuzz target's second read does.
bool Accepted(Bytes bytes) {
  UpdateSbfChecksum(absl::MakeSpan(bytes));
  // Vector storage comes from operator new, aligned well beyond 8 bytes.
  return ReadSbf(bytes).ok();
}

std::string_view Chars(const Bytes& bytes) {
  return std::string_view(reinterpret_cast<const char*>(bytes.data()),
                          bytes.size());
}

int Main(int argc, char** argv) {
  fuzz::DriverFlags flags;
  flags.seed = 0x5B4F;
  if (!fuzz::ParseDriverFlags(argc, argv, /*takes_input_out=*/false, flags)) {
    return 2;
  }

  for (const std::string& path : flags.files) {
    std::optional<std::string> text = fuzz::ReadFile(path);
    if (!text) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      return 2;
    }
    const Bytes bytes(text->begin(), text->end());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    std::printf("%s: %s\n", path.c_str(),
                Accepted(bytes) ? "accepted" : "rejected");
  }

  const std::vector<Bytes> seeds = Seeds();
  for (size_t i = 0; i < seeds.size(); ++i) {
    if (!Accepted(seeds[i])) {
      std::fprintf(stderr, "seed %zu is not a valid program\n", i);
      return 1;
    }
    LLVMFuzzerTestOneInput(seeds[i].data(), seeds[i].size());
    if (!flags.corpus_out.empty() &&
        !fuzz::WriteCorpusFile(flags.corpus_out,
                               "seed" + std::to_string(i) + ".sbf",
                               Chars(seeds[i]))) {
      std::fprintf(stderr, "cannot write to %s\n", flags.corpus_out.c_str());
      return 2;
    }
  }

  long long accepted = 0;
  fuzz::RunMutations(flags.seed, flags.runs, seeds, MutateOnce,
                     [&](const Bytes& input) {
                       LLVMFuzzerTestOneInput(input.data(), input.size());
                       if (Accepted(input)) ++accepted;
                     });
  std::printf(
      "ran %zu seeds and %lld mutations (seed %llu): %lld accepted, "
      "%lld rejected, no crashes\n",
      seeds.size(), flags.runs, static_cast<unsigned long long>(flags.seed),
      accepted, flags.runs - accepted);
  return 0;
}

}  // namespace
}  // namespace bef
}  // namespace sluice

int main(int argc, char** argv) { return sluice::bef::Main(argc, argv); }
