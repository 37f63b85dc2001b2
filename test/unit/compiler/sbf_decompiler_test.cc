// Text → SBF → text round trips, and what DecompileSbf restores and rejects.
#include "sluice/compiler/sbf_decompiler.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compiler_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OperationSupport.h"
#include "sluice/bef/sbf_writer.h"
#include "sluice/compiler/sbf_emitter.h"

namespace sluice {
namespace {

using ::sluice::testing::MakeContext;
using ::sluice::testing::Parse;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string PrintGeneric(mlir::Operation* op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os, mlir::OpPrintingFlags().printGenericOpForm());
  return os.str();
}

std::vector<uint8_t> CompileOrDie(mlir::ModuleOp module) {
  mlir::FailureOr<std::vector<uint8_t>> bytes = CompileModuleToSbf(module);
  EXPECT_TRUE(mlir::succeeded(bytes));
  return mlir::succeeded(bytes) ? *bytes : std::vector<uint8_t>();
}

// Compiles `text` and decompiles the bytes in a fresh context; both sides
// print generically so that the comparison does not depend on which
// dialects are loaded.
void ExpectRoundTrip(std::string_view text) {
  std::unique_ptr<mlir::MLIRContext> context = MakeContext();
  mlir::OwningOpRef<mlir::ModuleOp> module = Parse(context.get(), text);
  ASSERT_TRUE(module) << text;
  const std::vector<uint8_t> bytes = CompileOrDie(*module);

  std::unique_ptr<mlir::MLIRContext> other = MakeContext();
  mlir::OwningOpRef<mlir::ModuleOp> decompiled =
      DecompileSbf(bytes, other.get());
  ASSERT_TRUE(decompiled);
  EXPECT_EQ(PrintGeneric(*decompiled), PrintGeneric(*module));

  // Locations are restored too, so compiling the result again gives the
  // same file byte for byte.
  EXPECT_EQ(CompileOrDie(*decompiled), bytes);
}

TEST(SbfRoundTripTest, Kernels) {
  ExpectRoundTrip(R"mlir(
    func.func @main(%a: i32, %ch: !tfrt.chain) -> (i32, !tfrt.chain) {
      %c0 = "tfrt.new.chain"() : () -> !tfrt.chain
      %one = "tfrt.constant.i32"() {value = 1 : i32} : () -> i32
      %sum = "tfrt.add.i32"(%a, %one) : (i32, i32) -> i32
      %q:2 = "tfrt.div.i32"(%sum, %a) : (i32, i32) -> (i32, i32)
      %ch1 = "tfrt.print.i32"(%q#1, %c0) : (i32, !tfrt.chain) -> !tfrt.chain
      "t.sink"(%sum, %sum) : (i32, i32) -> ()
      "tfrt.return"(%q#0, %ch1) : (i32, !tfrt.chain) -> ()
    }
    func.func @unused(%a: i32, %b: f32) -> (i32, i32) {
      "tfrt.return"(%a, %a) : (i32, i32) -> ()
    }
  )mlir");
}

TEST(SbfRoundTripTest, Regions) {
  ExpectRoundTrip(R"mlir(
    func.func @main(%c: i1, %x: i32, %n: i32) -> i32 {
      %r = "tfrt.if"(%c, %x) ({
      ^bb0(%a: i32):
        %y = "tfrt.add.i32"(%a, %a) : (i32, i32) -> i32
        "tfrt.return"(%y) : (i32) -> ()
      }, {
      ^bb0(%a: i32):
        "tfrt.return"(%a) : (i32) -> ()
      }) : (i1, i32) -> i32
      %s = "tfrt.repeat.i32"(%n, %r) ({
      ^bb0(%v: i32):
        %w = "t.outer"(%v) ({
        ^bb0(%u: i32):
          %z = "t.leaf"(%u) {k = 2 : i64} : (i32) -> i32
          "tfrt.return"(%z) : (i32) -> ()
        }) : (i32) -> i32
        "tfrt.return"(%w) : (i32) -> ()
      }) : (i32, i32) -> i32
      "t.no_args"() ({
        "tfrt.return"() : () -> ()
      }) : () -> ()
      "tfrt.return"(%s) : (i32) -> ()
    }
  )mlir");
}

TEST(SbfRoundTripTest, SymbolsAndNativeFunctions) {
  ExpectRoundTrip(R"mlir(
    func.func private @native_add(i32, i32) -> i32 attributes {tfrt.native}
    func.func @b0(%x: i32) -> i32 {
      "tfrt.return"(%x) : (i32) -> ()
    }
    func.func @main(%i: i32, %x: i32) -> i32 {
      %r = "tfrt.case"(%i, %x) {branches = [@b0, @later]} : (i32, i32) -> i32
      %s = "tfrt.call"(%r, %x) {callee = @native_add} : (i32, i32) -> i32
      %t = "func.call"(%s) {callee = @b0} : (i32) -> i32
      "tfrt.return"(%t) : (i32) -> ()
    }
    func.func @later(%x: i32) -> i32 {
      "tfrt.return"(%x) : (i32) -> ()
    }
  )mlir");
}

TEST(SbfRoundTripTest, AttributesKeepTheirTypes) {
  ExpectRoundTrip(R"mlir(
    func.func @main() {
      "t.op"() {
        b = true, bf = false,
        i8 = -3 : i8, i16 = -300 : i16, i32 = 7 : i32, i64 = -9000000000 : i64,
        u8 = 250 : ui8, u16 = 65000 : ui16, u32 = 4000000000 : ui32,
        u64 = 18446744073709551615 : ui64,
        h = 1.5 : f16, bh = -2.0 : bf16, f = 2.5 : f32, d = -0.25 : f64,
        nz = -0.0 : f64, nan = 0x7FC00001 : f32,
        s = "hello \"world\"\n", empty = "",
        t = i64, tc = complex<f64>, ts = !corert.string, tu = ui16,
        u,
        arr = [1 : i32, "x", [2.0 : f32, @main], [], unit, i1],
        di8 = array<i8: 1, -2>, di16 = array<i16: 300>,
        di32 = array<i32: 1, 2, 3>, di64 = array<i64: 4>,
        df32 = array<f32: 1.0, -1.0>, df64 = array<f64: 2.0>,
        dbool = array<i1: true, false, true>, dempty = array<i32>,
        tensor = dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>,
        splat = dense<7> : tensor<3xi64>, scalar = dense<2.5> : tensor<f32>,
        bits = dense<[true, false, true]> : tensor<3xi1>,
        all_true = dense<true> : tensor<1xi1>, none = dense<> : tensor<0x3xi8>,
        halves = dense<[1.5, -0.0]> : tensor<2xf16>,
        brains = dense<[1.5, 2.0]> : tensor<2xbf16>,
        unsigned = dense<[255, 0]> : tensor<2xui8>,
        complex = dense<[(1.0, -2.0), (0.5, 0.0)]> : tensor<2xcomplex<f64>>,
        tensors = [dense<0> : tensor<4xi64>, dense<1> : tensor<4xi64>]
      } : () -> ()
      "tfrt.return"() : () -> ()
    }
  )mlir");
}

TEST(SbfRoundTripTest, SignedAndIndexIntegersComeBackSignless) {
  // The format has one code for signed and signless integers and stores
  // index as i64: kernels read them the same way.
  std::unique_ptr<mlir::MLIRContext> context = MakeContext();
  mlir::OwningOpRef<mlir::ModuleOp> module = Parse(context.get(), R"mlir(
    func.func @main() {
      "t.op"() {a = -5 : si32, b = 7 : index} : () -> ()
      "tfrt.return"() : () -> ()
    }
  )mlir");
  ASSERT_TRUE(module);
  mlir::OwningOpRef<mlir::ModuleOp> decompiled =
      DecompileSbf(CompileOrDie(*module), context.get());
  ASSERT_TRUE(decompiled);
  EXPECT_THAT(PrintGeneric(*decompiled),
              HasSubstr("{a = -5 : i32, b = 7 : i64}"));
}

TEST(SbfDecompilerTest, RestoresLocations) {
  std::unique_ptr<mlir::MLIRContext> context = MakeContext();
  mlir::OwningOpRef<mlir::ModuleOp> module = Parse(context.get(), R"mlir(
    func.func @main() {
      "t.a"() : () -> () loc("prog.mlir":3:7)
      "t.b"() : () -> () loc("adder"("prog.mlir":4:9))
      "t.c"() : () -> () loc(fused["x", "y"("f.mlir":5:1)])
      "t.d"() : () -> () loc("alone")
      "t.e"() : () -> () loc(unknown)
      "tfrt.return"() : () -> ()
    }
  )mlir");
  ASSERT_TRUE(module);
  mlir::OwningOpRef<mlir::ModuleOp> decompiled =
      DecompileSbf(CompileOrDie(*module), context.get());
  ASSERT_TRUE(decompiled);
  std::vector<mlir::Location> locations;
  decompiled->walk([&](mlir::Operation* op) {
    if (op->getName().getStringRef().starts_with("t.")) {
      locations.push_back(op->getLoc());
    }
  });
  mlir::MLIRContext* ctx = context.get();
  auto file = [ctx](const char* name, unsigned line, unsigned column) {
    return mlir::FileLineColLoc::get(ctx, name, line, column);
  };
  auto named = [ctx](const char* name, mlir::Location child) {
    return mlir::NameLoc::get(mlir::StringAttr::get(ctx, name), child);
  };
  const mlir::Location unknown = mlir::UnknownLoc::get(ctx);
  // A fusion comes back as the name and position the kernel saw.
  EXPECT_THAT(locations, ElementsAre(mlir::Location(file("prog.mlir", 3, 7)),
                                     named("adder", file("prog.mlir", 4, 9)),
                                     named("xy", file("f.mlir", 5, 1)),
                                     named("alone", unknown), unknown));
}

TEST(SbfDecompilerTest, AcceptsUnalignedBytes) {
  std::unique_ptr<mlir::MLIRContext> context = MakeContext();
  mlir::OwningOpRef<mlir::ModuleOp> module = Parse(context.get(), R"mlir(
    func.func @main() -> i32 {
      %one = "tfrt.constant.i32"() {value = 1 : i32} : () -> i32
      "tfrt.return"(%one) : (i32) -> ()
    }
  )mlir");
  ASSERT_TRUE(module);
  const std::vector<uint8_t> bytes = CompileOrDie(*module);
  std::vector<uint8_t> shifted(bytes.size() + 1);
  std::memcpy(shifted.data() + 1, bytes.data(), bytes.size());
  mlir::OwningOpRef<mlir::ModuleOp> decompiled =
      DecompileSbf(absl::Span<const uint8_t>(shifted.data() + 1, bytes.size()),
                   context.get());
  ASSERT_TRUE(decompiled);
  EXPECT_EQ(PrintGeneric(*decompiled), PrintGeneric(*module));
}

// The errors DecompileSbf emits while decompiling `bytes` in `context`.
std::vector<std::string> DecompileErrors(absl::Span<const uint8_t> bytes,
                                         mlir::MLIRContext* context) {
  std::vector<std::string> errors;
  mlir::ScopedDiagnosticHandler handler(context,
                                        [&](mlir::Diagnostic& diagnostic) {
                                          errors.push_back(diagnostic.str());
                                          return mlir::success();
                                        });
  EXPECT_FALSE(DecompileSbf(bytes, context, "in.sbf"));
  return errors;
}

constexpr std::string_view kChainProgram = R"mlir(
  func.func @main(%c: !tfrt.chain) -> !tfrt.chain {
    "tfrt.return"(%c) : (!tfrt.chain) -> ()
  }
)mlir";

TEST(SbfDecompilerTest, WithoutRegisterTypesWarnsAndRecoversSignatures) {
  std::unique_ptr<mlir::MLIRContext> context = MakeContext();
  mlir::OwningOpRef<mlir::ModuleOp> module = Parse(context.get(), R"mlir(
    func.func @main(%c: !tfrt.chain) -> (!tfrt.chain, i32) {
      %one = "tfrt.constant.i32"() {value = 1 : i32} : () -> i32
      %two = "tfrt.add.i32"(%one, %one) : (i32, i32) -> i32
      "tfrt.return"(%c, %two) : (!tfrt.chain, i32) -> ()
    }
  )mlir");
  ASSERT_TRUE(module);
  mlir::FailureOr<std::vector<uint8_t>> bytes =
      CompileModuleToSbf(*module, /*include_optional_sections=*/false);
  ASSERT_TRUE(mlir::succeeded(bytes));
  std::vector<std::string> warnings;
  mlir::ScopedDiagnosticHandler handler(
      context.get(), [&](mlir::Diagnostic& diagnostic) {
        EXPECT_EQ(diagnostic.getSeverity(), mlir::DiagnosticSeverity::Warning);
        warnings.push_back(diagnostic.str());
        return mlir::success();
      });
  bool types_complete = true;
  mlir::OwningOpRef<mlir::ModuleOp> decompiled =
      DecompileSbf(*bytes, context.get(), "in.sbf", &types_complete);
  ASSERT_TRUE(decompiled);
  EXPECT_FALSE(types_complete);
  EXPECT_THAT(warnings, ElementsAre("Missing AttributeTypes, AttributeNames or "
                                    "RegisterTypes sections."));
  // The returned register has the function's result type; the one only
  // used inside the body cannot be known.
  EXPECT_THAT(PrintGeneric(*decompiled),
              AllOf(HasSubstr("\"tfrt.constant.i32\"() {value = 1 : i32} : () "
                              "-> none"),
                    HasSubstr("\"tfrt.add.i32\"(%0, %0) : (none, none) -> i32"),
                    HasSubstr("^bb0(%arg0: !tfrt.chain)")));
}

TEST(SbfDecompilerTest, RejectsInvalidFiles) {
  std::unique_ptr<mlir::MLIRContext> context = MakeContext();
  const std::vector<uint8_t> garbage = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<std::string> errors = DecompileErrors(garbage, context.get());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("invalid sbf file"));
}

TEST(SbfDecompilerTest, TypesMustParse) {
  // Ops and types of any dialect come back (unregistered ones in generic
  // form), but a spelling that is no type at all cannot.
  bef::SbfWriter writer;
  const uint32_t bad = writer.AddType("i32 is not (a type");
  const uint32_t main =
      writer.DeclareFunction("main", bef::FunctionKind::kFunction, {bad}, {});
  bef::BodyDescription body;
  body.num_registers = 1;
  body.argument_registers = {0};
  body.register_types = {bad};
  writer.DefineFunction(main, body);
  std::unique_ptr<mlir::MLIRContext> context = MakeContext();
  std::vector<std::string> errors =
      DecompileErrors(writer.Finish(), context.get());
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors.back(), "cannot parse type 'i32 is not (a type'");
}

// Annotations and module texts go through MLIR's recursive parser, so a
// file nesting them deeper than the compiler would is refused first.
TEST(SbfDecompilerTest, DeepAnnotationsAreRefused) {
  const std::string deep =
      "{a = " + std::string(300, '[') + std::string(300, ']') + "}";
  for (bool in_module : {false, true}) {
    bef::SbfWriter writer;
    const uint32_t main =
        writer.DeclareFunction("main", bef::FunctionKind::kFunction, {}, {});
    writer.DefineFunction(main, bef::BodyDescription());
    if (in_module) {
      writer.AddCompiledModule("m", 0, "module @m attributes " + deep + " {}");
    } else {
      writer.SetFunctionAnnotations(main, deep);
    }
    std::unique_ptr<mlir::MLIRContext> context = MakeContext();
    std::vector<std::string> errors =
        DecompileErrors(writer.Finish(), context.get());
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_THAT(errors[0], HasSubstr("nesting deeper than 256 levels"));
  }
}

TEST(SbfDecompilerTest, UnregisteredDialectsComeBack) {
  std::unique_ptr<mlir::MLIRContext> context = MakeContext();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      Parse(context.get(), kChainProgram);
  ASSERT_TRUE(module);
  const std::vector<uint8_t> bytes = CompileOrDie(*module);
  // The decompiler allows them itself: a tool that did not still gets the
  // chain type back, as an opaque type of an unregistered dialect.
  std::unique_ptr<mlir::MLIRContext> strict = MakeContext();
  strict->allowUnregisteredDialects(false);
  mlir::OwningOpRef<mlir::ModuleOp> decompiled =
      DecompileSbf(bytes, strict.get());
  ASSERT_TRUE(decompiled);
  EXPECT_TRUE(strict->allowsUnregisteredDialects());
  EXPECT_THAT(PrintGeneric(*decompiled), HasSubstr("!tfrt.chain"));
}

}  // namespace
}  // namespace sluice
