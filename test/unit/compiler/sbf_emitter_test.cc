// The structure CompileModuleToSbf writes: functions and their kinds,
// registers, kernels, region and symbol functions, locations.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compiler_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "sluice/bef/format.h"
#include "sluice/bef/sbf_reader.h"

namespace sluice {
namespace {

using ::sluice::testing::Compile;
using ::sluice::testing::Compiled;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(SbfEmitterTest, FunctionsInFileOrderWithTheirKinds) {
  std::unique_ptr<Compiled> compiled = Compile(R"mlir(
    func.func @first(%a: i32, %c: !tfrt.chain) -> (i32, !tfrt.chain) {
      %b = "tfrt.add.i32"(%a, %a) : (i32, i32) -> i32
      "tfrt.return"(%b, %c) : (i32, !tfrt.chain) -> ()
    }
    func.func private @native(i32, i32) -> i32 attributes {tfrt.native}
    func.func @second() {
      "tfrt.return"() : () -> ()
    }
  )mlir");
  ASSERT_NE(compiled, nullptr);
  const bef::SbfProgram& program = compiled->program;
  ASSERT_EQ(program.functions.size(), 3u);

  const bef::SbfFunction& first = program.functions[0];
  EXPECT_EQ(first.name, "first");
  EXPECT_EQ(first.kind, bef::FunctionKind::kFunction);
  ASSERT_EQ(first.argument_types.size(), 2u);
  EXPECT_EQ(compiled->Type(first.argument_types[0]), "i32");
  EXPECT_EQ(compiled->Type(first.argument_types[1]), "!tfrt.chain");
  ASSERT_EQ(first.result_types.size(), 2u);
  EXPECT_EQ(compiled->Type(first.result_types[0]), "i32");
  EXPECT_EQ(compiled->Type(first.result_types[1]), "!tfrt.chain");
  // Arguments first, then kernel results, in definition order.
  EXPECT_EQ(first.num_registers, 3u);
  EXPECT_THAT(first.argument_registers, ElementsAre(0u, 1u));
  EXPECT_THAT(first.result_registers, ElementsAre(2u, 1u));
  ASSERT_EQ(first.kernels.size(), 1u);
  const bef::SbfKernel& add = first.kernels[0];
  EXPECT_EQ(compiled->KernelName(add), "tfrt.add.i32");
  EXPECT_THAT(add.operands, ElementsAre(0u, 0u));
  EXPECT_THAT(add.results, ElementsAre(2u));
  EXPECT_THAT(add.attributes, IsEmpty());
  EXPECT_THAT(add.functions, IsEmpty());
  // A kernel that takes a value twice is its user twice.
  EXPECT_THAT(first.argument_users[0], ElementsAre(0u, 0u));
  EXPECT_THAT(first.argument_users[1], IsEmpty());
  ASSERT_EQ(first.register_types.size(), 3u);
  EXPECT_EQ(compiled->Type(first.register_types[0]), "i32");
  EXPECT_EQ(compiled->Type(first.register_types[1]), "!tfrt.chain");
  EXPECT_EQ(compiled->Type(first.register_types[2]), "i32");

  const bef::SbfFunction& native = program.functions[1];
  EXPECT_EQ(native.name, "native");
  EXPECT_EQ(native.kind, bef::FunctionKind::kNative);
  EXPECT_EQ(native.argument_types.size(), 2u);
  EXPECT_EQ(native.result_types.size(), 1u);
  EXPECT_THAT(native.kernels, IsEmpty());

  const bef::SbfFunction& second = program.functions[2];
  EXPECT_EQ(second.name, "second");
  EXPECT_EQ(second.kind, bef::FunctionKind::kFunction);
  EXPECT_EQ(second.num_registers, 0u);
  EXPECT_THAT(second.kernels, IsEmpty());
  EXPECT_THAT(second.result_registers, IsEmpty());
}

TEST(SbfEmitterTest, TypesAndKernelNamesAreShared) {
  std::unique_ptr<Compiled> compiled = Compile(R"mlir(
    func.func @f(%a: i32) -> i32 {
      %b = "tfrt.add.i32"(%a, %a) : (i32, i32) -> i32
      %c = "tfrt.add.i32"(%b, %a) : (i32, i32) -> i32
      "tfrt.return"(%c) : (i32) -> ()
    }
  )mlir");
  ASSERT_NE(compiled, nullptr);
  EXPECT_THAT(compiled->program.types, ElementsAre("i32"));
  EXPECT_THAT(compiled->program.kernel_names, ElementsAre("tfrt.add.i32"));
  const bef::SbfFunction& f = compiled->Function("f");
  ASSERT_EQ(f.kernels.size(), 2u);
  EXPECT_THAT(f.kernels[1].operands, ElementsAre(1u, 0u));
  EXPECT_THAT(f.kernels[0].users, ElementsAre(ElementsAre(1u)));
  EXPECT_THAT(f.argument_users[0], ElementsAre(0u, 0u, 1u));
}

TEST(SbfEmitterTest, ARegisterMayBeReturnedTwice) {
  std::unique_ptr<Compiled> compiled = Compile(R"mlir(
    func.func @twice(%a: i32) -> (i32, i32) {
      "tfrt.return"(%a, %a) : (i32, i32) -> ()
    }
  )mlir");
  ASSERT_NE(compiled, nullptr);
  EXPECT_THAT(compiled->Function("twice").result_registers,
              ElementsAre(0u, 0u));
}

TEST(SbfEmitterTest, KernelsWithSeveralOrNoResults) {
  std::unique_ptr<Compiled> compiled = Compile(R"mlir(
    func.func @f(%a: i32) -> i32 {
      %q:2 = "tfrt.div.i32"(%a, %a) : (i32, i32) -> (i32, i32)
      "t.sink"(%q#1) : (i32) -> ()
      "tfrt.return"(%q#0) : (i32) -> ()
    }
  )mlir");
  ASSERT_NE(compiled, nullptr);
  const bef::SbfFunction& f = compiled->Function("f");
  ASSERT_EQ(f.kernels.size(), 2u);
  EXPECT_THAT(f.kernels[0].results, ElementsAre(1u, 2u));
  EXPECT_THAT(f.kernels[1].operands, ElementsAre(2u));
  EXPECT_THAT(f.kernels[1].results, IsEmpty());
  EXPECT_THAT(f.result_registers, ElementsAre(1u));
}

TEST(SbfEmitterTest, RegionsBecomeRegionFunctions) {
  std::unique_ptr<Compiled> compiled = Compile(R"mlir(
    func.func @main(%c: i1, %x: i32) -> i32 {
      %r = "tfrt.if"(%c, %x) ({
      ^bb0(%a: i32):
        %y = "tfrt.add.i32"(%a, %a) : (i32, i32) -> i32
        "tfrt.return"(%y) : (i32) -> ()
      }, {
      ^bb0(%a: i32):
        "tfrt.return"(%a) : (i32) -> ()
      }) : (i1, i32) -> i32
      "tfrt.return"(%r) : (i32) -> ()
    }
  )mlir");
  ASSERT_NE(compiled, nullptr);
  const bef::SbfProgram& program = compiled->program;
  ASSERT_EQ(program.functions.size(), 3u);
  const bef::SbfFunction& main = program.functions[0];
  ASSERT_EQ(main.kernels.size(), 1u);
  const bef::SbfKernel& if_kernel = main.kernels[0];
  EXPECT_EQ(compiled->KernelName(if_kernel), "tfrt.if");
  // The operands go to the kernel; it passes them to the region it runs.
  EXPECT_THAT(if_kernel.operands, ElementsAre(0u, 1u));
  EXPECT_THAT(if_kernel.functions, ElementsAre(1u, 2u));

  const bef::SbfFunction& then_region = program.functions[1];
  EXPECT_EQ(then_region.kind, bef::FunctionKind::kRegion);
  EXPECT_EQ(then_region.name, "");
  ASSERT_EQ(then_region.argument_types.size(), 1u);
  EXPECT_EQ(compiled->Type(then_region.argument_types[0]), "i32");
  ASSERT_EQ(then_region.result_types.size(), 1u);
  EXPECT_EQ(compiled->Type(then_region.result_types[0]), "i32");
  ASSERT_EQ(then_region.kernels.size(), 1u);
  EXPECT_THAT(then_region.kernels[0].operands, ElementsAre(0u, 0u));
  EXPECT_THAT(then_region.result_registers, ElementsAre(1u));

  const bef::SbfFunction& else_region = program.functions[2];
  EXPECT_EQ(else_region.kind, bef::FunctionKind::kRegion);
  EXPECT_THAT(else_region.kernels, IsEmpty());
  EXPECT_THAT(else_region.result_registers, ElementsAre(0u));
}

TEST(SbfEmitterTest, NestedRegionsAreDeclaredOuterFirst) {
  std::unique_ptr<Compiled> compiled = Compile(R"mlir(
    func.func @main(%n: i32) {
      "tfrt.repeat.i32"(%n) ({
        "t.inner"() ({
          "t.leaf"() : () -> ()
          "tfrt.return"() : () -> ()
        }) : () -> ()
        "tfrt.return"() : () -> ()
      }) : (i32) -> ()
      "tfrt.return"() : () -> ()
    }
  )mlir");
  ASSERT_NE(compiled, nullptr);
  const bef::SbfProgram& program = compiled->program;
  ASSERT_EQ(program.functions.size(), 3u);
  EXPECT_THAT(program.functions[0].kernels[0].functions, ElementsAre(1u));
  ASSERT_EQ(program.functions[1].kernels.size(), 1u);
  EXPECT_EQ(compiled->KernelName(program.functions[1].kernels[0]), "t.inner");
  EXPECT_THAT(program.functions[1].kernels[0].functions, ElementsAre(2u));
  ASSERT_EQ(program.functions[2].kernels.size(), 1u);
  EXPECT_EQ(compiled->KernelName(program.functions[2].kernels[0]), "t.leaf");
  EXPECT_EQ(program.functions[2].kind, bef::FunctionKind::kRegion);
}

TEST(SbfEmitterTest, SymbolReferencesAddFunctionsAfterRegions) {
  std::unique_ptr<Compiled> compiled = Compile(R"mlir(
    func.func @b0(%x: i32) -> i32 {
      "tfrt.return"(%x) : (i32) -> ()
    }
    func.func @b1(%x: i32) -> i32 {
      "tfrt.return"(%x) : (i32) -> ()
    }
    func.func @main(%i: i32, %x: i32) -> i32 {
      %r = "tfrt.case"(%i, %x) {branches = [@b0, @b1]} : (i32, i32) -> i32
      %s = "tfrt.call"(%x) {callee = @later} : (i32) -> i32
      %t = "t.both"(%x) ({
      ^bb0(%a: i32):
        "tfrt.return"(%a) : (i32) -> ()
      }) {z = @b0, a = @b1} : (i32) -> i32
      "tfrt.return"(%r) : (i32) -> ()
    }
    func.func @later(%x: i32) -> i32 {
      "tfrt.return"(%x) : (i32) -> ()
    }
  )mlir");
  ASSERT_NE(compiled, nullptr);
  const bef::SbfProgram& program = compiled->program;
  // Listed functions keep file order; the region comes after them all.
  ASSERT_EQ(program.functions.size(), 5u);
  EXPECT_EQ(program.functions[3].name, "later");
  EXPECT_EQ(program.functions[4].kind, bef::FunctionKind::kRegion);

  const bef::SbfFunction& main = compiled->Function("main");
  ASSERT_EQ(main.kernels.size(), 3u);
  const bef::SbfKernel& case_kernel = main.kernels[0];
  EXPECT_THAT(case_kernel.functions, ElementsAre(0u, 1u));
  const bef::SbfAttribute branches =
      compiled->Attribute(case_kernel, "branches");
  ASSERT_EQ(branches.type, bef::AttributeType::kArray);
  ASSERT_EQ(branches.count, 2u);
  for (uint32_t i = 0; i < 2; ++i) {
    const bef::SbfAttribute branch =
        program.GetAttribute(testing::Scalar<uint32_t>(branches, i));
    EXPECT_EQ(branch.type, bef::AttributeType::kSymbol);
    EXPECT_EQ(testing::Scalar<uint32_t>(branch), i);
  }

  const bef::SbfKernel& call = main.kernels[1];
  EXPECT_THAT(call.functions, ElementsAre(3u));
  const bef::SbfAttribute callee = compiled->Attribute(call, "callee");
  EXPECT_EQ(callee.type, bef::AttributeType::kSymbol);
  EXPECT_EQ(testing::Scalar<uint32_t>(callee), 3u);

  // Regions first, then symbols in attribute (name) order: a, then z.
  EXPECT_THAT(main.kernels[2].functions, ElementsAre(4u, 1u, 0u));
}

TEST(SbfEmitterTest, AttributesSortedByNameWithoutHints) {
  std::unique_ptr<Compiled> compiled = Compile(R"mlir(
    func.func @f() {
      "t.op"() {zeta = 1 : i32, alpha = "s", _tfrt_cost = 3 : i64,
                mid, _hint = "x"} : () -> ()
      "tfrt.return"() : () -> ()
    }
  )mlir");
  ASSERT_NE(compiled, nullptr);
  const bef::SbfKernel& kernel = compiled->Function("f").kernels[0];
  EXPECT_THAT(kernel.attribute_names, ElementsAre("alpha", "mid", "zeta"));
  ASSERT_EQ(kernel.attributes.size(), 3u);
  EXPECT_EQ(compiled->program.GetAttribute(kernel.attributes[0]).type,
            bef::AttributeType::kString);
  EXPECT_EQ(compiled->program.GetAttribute(kernel.attributes[1]).type,
            bef::AttributeType::kUnit);
  EXPECT_EQ(compiled->program.GetAttribute(kernel.attributes[2]).type,
            bef::AttributeType::kI32);
}

TEST(SbfEmitterTest, LocationsAndDebugNames) {
  std::unique_ptr<Compiled> compiled = Compile(R"mlir(
    func.func @f() {
      "t.file"() : () -> () loc("prog.mlir":3:7)
      "t.named"() : () -> () loc("adder"("prog.mlir":4:9))
      "t.bare_name"() : () -> () loc("alone")
      "t.fused"() : () -> () loc(fused["x", "prog.mlir":9:9, "y"("f.mlir":5:1)])
      "t.callsite"() : () -> () loc(callsite("callee"("a.mlir":1:2) at "b.mlir":3:4))
      "t.callsite_plain"() : () -> () loc(callsite("a.mlir":6:2 at "caller"("b.mlir":3:4)))
      "t.unknown"() : () -> () loc(unknown)
      "t.parsed"() : () -> ()
      "tfrt.return"() : () -> ()
    }
  )mlir");
  ASSERT_NE(compiled, nullptr);
  const bef::SbfProgram& program = compiled->program;
  const bef::SbfFunction& f = compiled->Function("f");
  ASSERT_EQ(f.kernels.size(), 8u);
  auto location = [&](int kernel) -> const bef::SbfLocation& {
    return program.locations[f.kernels[kernel].location_index];
  };

  EXPECT_EQ(location(0).file, "prog.mlir");
  EXPECT_EQ(location(0).line, 3u);
  EXPECT_EQ(location(0).column, 7u);
  EXPECT_FALSE(location(0).has_debug_name);

  EXPECT_EQ(location(1).file, "prog.mlir");
  EXPECT_EQ(location(1).line, 4u);
  EXPECT_EQ(location(1).column, 9u);
  EXPECT_TRUE(location(1).has_debug_name);
  EXPECT_EQ(location(1).debug_name, "adder");

  EXPECT_EQ(location(2).file, "");
  EXPECT_EQ(location(2).line, 0u);
  EXPECT_EQ(location(2).debug_name, "alone");

  // A fusion's names are concatenated; its position is its first part's.
  EXPECT_EQ(location(3).debug_name, "xy");
  EXPECT_EQ(location(3).file, "prog.mlir");
  EXPECT_EQ(location(3).line, 9u);

  // A call site is named after, and placed at, its callee.
  EXPECT_EQ(location(4).debug_name, "callee");
  EXPECT_EQ(location(4).file, "a.mlir");
  EXPECT_EQ(location(4).line, 1u);
  EXPECT_EQ(location(4).column, 2u);
  // The caller's name is not the op's.
  EXPECT_FALSE(location(5).has_debug_name);
  EXPECT_EQ(location(5).file, "a.mlir");
  EXPECT_EQ(location(5).line, 6u);

  EXPECT_EQ(location(6).file, "");
  EXPECT_FALSE(location(6).has_debug_name);

  EXPECT_EQ(location(7).file, "test.mlir");
  EXPECT_EQ(location(7).line, 10u);
  EXPECT_EQ(location(7).column, 7u);
  EXPECT_FALSE(location(7).has_debug_name);
}

TEST(SbfEmitterTest, EveryKernelHasItsOwnLocationRecord) {
  std::unique_ptr<Compiled> compiled = Compile(R"mlir(
    func.func @f() {
      "t.a"() : () -> () loc("same.mlir":1:1)
      "t.b"() : () -> () loc("same.mlir":1:1)
      "tfrt.return"() : () -> ()
    }
  )mlir");
  ASSERT_NE(compiled, nullptr);
  const bef::SbfFunction& f = compiled->Function("f");
  EXPECT_NE(f.kernels[0].location_index, f.kernels[1].location_index);
}

TEST(SbfEmitterTest, OptionalSectionsCanBeLeftOut) {
  constexpr std::string_view kProgram = R"mlir(
    func.func @f(%a: i32) -> i32 {
      %b = "tfrt.add.i32"(%a, %a) : (i32, i32) -> i32
      "tfrt.return"(%b) : (i32) -> ()
    }
  )mlir";
  std::unique_ptr<Compiled> with = Compile(kProgram, true);
  std::unique_ptr<Compiled> without = Compile(kProgram, false);
  ASSERT_NE(with, nullptr);
  ASSERT_NE(without, nullptr);
  EXPECT_TRUE(with->program.has_register_types);
  EXPECT_FALSE(without->program.has_register_types);
  EXPECT_THAT(without->Function("f").register_types, IsEmpty());
  EXPECT_LT(without->bytes.size(), with->bytes.size());
  EXPECT_EQ(without->Function("f").kernels.size(), 1u);
}

TEST(SbfEmitterTest, ModuleAndFunctionAttributesAreAccepted) {
  std::unique_ptr<Compiled> compiled = Compile(R"mlir(
    module attributes {tfrt.cost_threshold = 10 : i64} {
      func.func @f() attributes {tfrt.cost_threshold = 5 : i64} {
        "tfrt.return"() : () -> ()
      }
    }
  )mlir");
  ASSERT_NE(compiled, nullptr);
  EXPECT_EQ(compiled->program.functions.size(), 1u);
}

// An op whose attribute `deep` nests `depth` arrays, built in memory: text
// that deep is refused before parsing, so only a module built by code can
// reach the emitter with one.
mlir::LogicalResult EmitNestedArrays(uint32_t depth, std::string* error) {
  std::unique_ptr<mlir::MLIRContext> context = testing::MakeContext();
  // The op's attribute shares its elements: printed with the error, it
  // would spell out 2^depth leaves.
  context->printOpOnDiagnostic(false);
  mlir::OwningOpRef<mlir::ModuleOp> module = testing::Parse(
      context.get(),
      "func.func @main() {\n  \"t.op\"() : () -> ()\n  \"tfrt.return\"() : "
      "() -> ()\n}\n");
  mlir::Operation* op = nullptr;
  module->walk([&](mlir::Operation* candidate) {
    if (candidate->getName().getStringRef() == "t.op") op = candidate;
  });
  mlir::Builder builder(context.get());
  mlir::Attribute attribute = builder.getI32IntegerAttr(7);
  for (uint32_t level = 0; level < depth; ++level) {
    // Shared elements: the check must not walk them once per path.
    attribute = builder.getArrayAttr({attribute, attribute});
  }
  op->setAttr("deep", attribute);
  mlir::ScopedDiagnosticHandler handler(
      context.get(), [&](mlir::Diagnostic& diagnostic) {
        auto position =
            diagnostic.getLocation()->findInstanceOf<mlir::FileLineColLoc>();
        *error = std::to_string(position.getLine()) + ":" +
                 std::to_string(position.getColumn()) + ": " + diagnostic.str();
        return mlir::success();
      });
  mlir::FailureOr<std::vector<uint8_t>> bytes = CompileModuleToSbf(*module);
  if (mlir::failed(bytes)) return mlir::failure();
  absl::StatusOr<bef::SbfProgram> program = bef::ReadSbf(*bytes);
  EXPECT_TRUE(program.ok()) << program.status();
  return mlir::success();
}

TEST(SbfEmitterTest, ArrayNestingLimit) {
  std::string error;
  EXPECT_TRUE(mlir::succeeded(EmitNestedArrays(bef::kMaxArrayNesting, &error)));
  EXPECT_EQ(error, "");
  EXPECT_TRUE(
      mlir::failed(EmitNestedArrays(bef::kMaxArrayNesting + 1, &error)));
  EXPECT_EQ(error,
            "2:3: attribute 'deep' nests arrays more than 256 levels deep; "
            "sbf files allow at most 256");
  // Deep enough that a recursive walk would overflow the stack.
  error.clear();
  EXPECT_TRUE(mlir::failed(EmitNestedArrays(100000, &error)));
  EXPECT_THAT(error, ::testing::HasSubstr("more than 256 levels deep"));
}

}  // namespace
}  // namespace sluice
