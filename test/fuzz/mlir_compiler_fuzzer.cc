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
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
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

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)); }

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         c == '.' || c == '-';
}

// MLIR 19's parser has a heap-use-after-free (crash-on-invalid, the class
// of llvm-project#107121 and #127778): a use of an SSA name before its
// definition becomes a forward reference; when a later definition of the
// name (in a nested region, or even in a later function) resolves it and
// then fails to parse, the error cleanup frees the definition before the
// use is dropped. mlir-opt-19 shows it on
//
//   func.func @a() { "t.r"(%x) : (i32) -> () }
//   func.func @b() { %x = "t.c"() : () -> i32  "t.a"( }
//
// The fuzzer would find it at once, so inputs where a name is used before
// it is defined in an enclosing `{` scope are left out. Sluice's programs
// never need that (their functions are single blocks). Definitions are told
// apart lexically, erring towards "use": `%a, %b:2 =` before an op, and
// `%a:` followed by a type in argument lists, which belong to the `{` that
// comes next.
bool MayHitMlirForwardReferenceBug(std::string_view text) {
  std::vector<std::set<std::string_view>> scopes(1);
  std::set<std::string_view> arguments;
  const size_t size = text.size();
  for (size_t i = 0; i < size; ++i) {
    const char c = text[i];
    if (text.substr(i, 2) == "//") {  // a comment: `%s` in RUN lines
      while (i < size && text[i] != '\n') ++i;
      continue;
    }
    if (c == '"') {  // a string
      for (++i; i < size && text[i] != '"' && text[i] != '\n'; ++i) {
        if (text[i] == '\\') ++i;
      }
      continue;
    }
    if (c == '{') {
      scopes.emplace_back(std::move(arguments));
      arguments.clear();
      continue;
    }
    if (c == '}') {
      if (scopes.size() > 1) scopes.pop_back();
      continue;
    }
    if (c != '%') continue;
    size_t j = i + 1;
    while (j < size && IsNameChar(text[j])) ++j;
    const std::string_view name = text.substr(i + 1, j - i - 1);
    // `%r:2` names two results; `%a: i32` is an argument.
    size_t k = j;
    bool argument = false;
    if (k < size && text[k] == ':') {
      ++k;
      if (k < size && IsDigit(text[k])) {
        while (k < size && IsDigit(text[k])) ++k;
      } else {
        argument = true;
      }
    }
    // A result list: names and commas up to an `=`.
    size_t m = k;
    while (m < size) {
      while (m < size && text[m] == ' ') ++m;
      if (m + 1 < size && text[m] == ',') {
        ++m;
        while (m < size && text[m] == ' ') ++m;
        if (m < size && text[m] == '%') {
          ++m;
          while (m < size && (IsNameChar(text[m]) || text[m] == ':')) ++m;
          continue;
        }
      }
      break;
    }
    if (argument) {
      arguments.insert(name);
    } else if (m < size && text[m] == '=') {
      scopes.back().insert(name);
    } else {
      bool defined = false;
      for (const std::set<std::string_view>& scope : scopes) {
        defined = defined || scope.count(name) != 0;
      }
      if (!defined) return true;
    }
    i = j - 1;
  }
  return false;
}

void CheckOneInput(std::string_view text) {
  if (MayHitMlirForwardReferenceBug(text)) return;
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
