// Fuzz target for the compiler's input: `.mlir` text through the nesting
// check, MLIR's parser and verifier with Sluice's dialects, and the emitter.
// Any text either fails with an InvalidArgument status or compiles to a file
// that ReadSbf accepts; a compiled file is then decompiled and printed, as
// `sluice_translate --sbf-to-mlir` would.
//
// In the test suite, mlir_fuzz_driver.cc runs this target on the
// repository's example and lit programs and deterministic mutations of them.
// To fuzz for real with clang-14's libFuzzer, build this file, lib/compiler,
// lib/bef, lib/support and dialects/ (with their generated .inc files from
// `bazel build //dialects:all`) with -fsanitize=fuzzer,address and link
// libMLIR and libLLVM-19; start from the corpus the driver writes with
// `--corpus_out=DIR`.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "dialects/register.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/compiler/compile_source.h"
#include "sluice/compiler/sbf_decompiler.h"

namespace sluice {
namespace {

// A broken promise of the compiler: crash so the fuzzer reports the input.
void Require(bool condition) {
  if (!condition) __builtin_trap();
}

volatile size_t sink;

mlir::DialectRegistry& Registry() {
  static mlir::DialectRegistry* const registry = [] {
    auto* registry = new mlir::DialectRegistry();
    RegisterSluiceDialects(*registry);
    return registry;
  }();
  return *registry;
}

void CheckOneInput(std::string_view text) {
  CompileSourceOptions options;
  options.diagnostics = &llvm::nulls();
  absl::StatusOr<std::vector<uint8_t>> bytes =
      CompileMlirToSbf(text, "fuzz.mlir", Registry(), options);
  if (!bytes.ok()) {
    Require(bytes.status().code() == absl::StatusCode::kInvalidArgument);
    Require(!bytes.status().message().empty());
    return;
  }
  // What the compiler writes, the reader must take.
  absl::StatusOr<bef::SbfProgram> program = bef::ReadSbf(*bytes);
  Require(program.ok());

  mlir::MLIRContext context(Registry(), mlir::MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects(true);
  context.printOpOnDiagnostic(false);
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic&) { return mlir::success(); });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      DecompileSbf(*bytes, &context, "fuzz.sbf");
  if (module) {
    std::string printed;
    llvm::raw_string_ostream os(printed);
    module->print(os);
    sink = sink + os.str().size();
  }
}

}  // namespace
}  // namespace sluice

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sluice::CheckOneInput(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
