// Programs the format cannot hold: each is rejected with a diagnostic on the
// op at fault, which -verify-diagnostics tests rely on.
#include <string>
#include <vector>

#include "compiler_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::sluice::testing::CompileErrors;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(CompileErrorsTest, ExternalFunctions) {
  EXPECT_THAT(CompileErrors("func.func private @ext(i32) -> i32\n"),
              ElementsAre("1:1: external functions are not allowed"));
}

TEST(CompileErrorsTest, EveryExternalFunctionIsReportedAndNothingMore) {
  EXPECT_THAT(CompileErrors(R"mlir(func.func private @a()
func.func private @b()
func.func @main() {
  "tfrt.call"() {callee = @a} : () -> ()
  "tfrt.return"() : () -> ()
}
)mlir"),
              ElementsAre("1:1: external functions are not allowed",
                          "2:1: external functions are not allowed"));
}

TEST(CompileErrorsTest, NativeFunctionsAreDeclarations) {
  EXPECT_THAT(CompileErrors("func.func private @n() attributes {tfrt.native}"),
              IsEmpty());
  EXPECT_THAT(CompileErrors(R"mlir(func.func @n() attributes {tfrt.native} {
  "tfrt.return"() : () -> ()
}
)mlir"),
              ElementsAre("1:1: native functions must not have a body"));
}

TEST(CompileErrorsTest, FunctionsNeedATfrtReturn) {
  EXPECT_THAT(CompileErrors(R"mlir(func.func @f() {
  "t.op"() : () -> ()
}
)mlir"),
              ElementsAre("2:3: all functions need to have a tfrt.return"));
  EXPECT_THAT(CompileErrors(R"mlir(func.func @f() {
  func.return
}
)mlir"),
              ElementsAre("2:3: all functions need to have a tfrt.return"));
}

TEST(CompileErrorsTest, RegionsNeedATfrtReturn) {
  EXPECT_THAT(CompileErrors(R"mlir(func.func @f() {
  "t.region"() ({
    "t.op"() : () -> ()
  }) : () -> ()
  "tfrt.return"() : () -> ()
}
)mlir"),
              ElementsAre("3:5: all functions need to have a tfrt.return"));
}

TEST(CompileErrorsTest, TfrtReturnMustBeLast) {
  EXPECT_THAT(
      CompileErrors(R"mlir(func.func @f() {
  "tfrt.return"() : () -> ()
  "tfrt.return"() : () -> ()
}
)mlir"),
      ElementsAre("2:3: 'tfrt.return' must be the last op of its block"));
}

TEST(CompileErrorsTest, MultiBlockFunctions) {
  EXPECT_THAT(
      CompileErrors(R"mlir(func.func @f() {
  "t.br"()[^bb1] : () -> ()
^bb1:
  "tfrt.return"() : () -> ()
}
)mlir"),
      ElementsAre("1:1: multi-block regions cannot be emitted to SBF files"));
}

TEST(CompileErrorsTest, MultiBlockRegions) {
  EXPECT_THAT(
      CompileErrors(R"mlir(func.func @f() {
  "t.region"() ({
    "t.br"()[^bb1] : () -> ()
  ^bb1:
    "tfrt.return"() : () -> ()
  }) : () -> ()
  "tfrt.return"() : () -> ()
}
)mlir"),
      ElementsAre("2:3: multi-block regions cannot be emitted to SBF files"));
}

TEST(CompileErrorsTest, EmptyRegions) {
  EXPECT_THAT(CompileErrors(R"mlir(func.func @f() {
  "t.region"() ({
  }) : () -> ()
  "tfrt.return"() : () -> ()
}
)mlir"),
              ElementsAre("2:3: empty regions cannot be emitted to SBF files"));
}

TEST(CompileErrorsTest, RegionsCannotCaptureValues) {
  constexpr char kMessage[] =
      "SBF executor only supports references to kernels within the current "
      "region";
  EXPECT_THAT(CompileErrors(R"mlir(func.func @f(%x: i32) {
  "t.region"() ({
    %y = "tfrt.add.i32"(%x, %x) : (i32, i32) -> i32
    "tfrt.return"() : () -> ()
  }) : () -> ()
  "tfrt.return"() : () -> ()
}
)mlir"),
              ElementsAre(std::string("3:10: ") + kMessage));
  EXPECT_THAT(CompileErrors(R"mlir(func.func @f(%x: i32) {
  %r = "t.region"() ({
    "tfrt.return"(%x) : (i32) -> ()
  }) : () -> i32
  "tfrt.return"() : () -> ()
}
)mlir"),
              ElementsAre(std::string("3:5: ") + kMessage));
}

TEST(CompileErrorsTest, ReturnMustMatchTheFunctionType) {
  EXPECT_THAT(CompileErrors(R"mlir(func.func @f() -> i32 {
  "tfrt.return"() : () -> ()
}
)mlir"),
              ElementsAre("2:3: 'tfrt.return' op has 0 operands, but "
                          "enclosing function returns 1"));
  EXPECT_THAT(CompileErrors(R"mlir(func.func @f(%c: !tfrt.chain) -> i32 {
  "tfrt.return"(%c) : (!tfrt.chain) -> ()
}
)mlir"),
              ElementsAre("2:3: type of return operand 0 ('!tfrt.chain') "
                          "doesn't match function result type ('i32')"));
}

TEST(CompileErrorsTest, SymbolsMustNameFunctions) {
  EXPECT_THAT(CompileErrors(R"mlir(func.func @f() {
  "t.op"() {f = @nope} : () -> ()
  "tfrt.return"() : () -> ()
}
)mlir"),
              ElementsAre("2:3: function @nope not defined"));
  EXPECT_THAT(CompileErrors(R"mlir(func.func @f() {
  "t.op"() {branches = [@f, @nope]} : () -> ()
  "tfrt.return"() : () -> ()
}
)mlir"),
              ElementsAre("2:3: function @nope not defined"));
  EXPECT_THAT(CompileErrors(R"mlir(func.func @f() {
  "t.op"() {f = @a::@b} : () -> ()
  "tfrt.return"() : () -> ()
}
)mlir"),
              ElementsAre("2:3: function @a::@b not defined"));
}

TEST(CompileErrorsTest, HintsAreNotChecked) {
  // `_` attributes reach no kernel (the file keeps their text for the
  // decompiler), so any value is fine.
  EXPECT_THAT(CompileErrors(R"mlir(func.func @f() {
  "t.op"() {_hint = dense<1> : tensor<2xi32>, _f = @nope} : () -> ()
  "tfrt.return"() : () -> ()
}
)mlir"),
              IsEmpty());
}

TEST(CompileErrorsTest, UnsupportedAttributes) {
  auto error_for = [](const std::string& attribute) {
    return CompileErrors("func.func @f() {\n  \"t.op\"() {a = " + attribute +
                         "} : () -> ()\n  \"tfrt.return\"() : () -> ()\n}\n");
  };
  EXPECT_THAT(error_for("dense<1> : vector<2xi32>"),
              ElementsAre("2:3: BEF files cannot encode the 'a' attribute "
                          "(dense<1> : vector<2xi32>)"));
  EXPECT_THAT(error_for("dense<1> : tensor<2xindex>"),
              ElementsAre("2:3: BEF files cannot encode the 'a' attribute "
                          "(dense<1> : tensor<2xindex>)"));
  EXPECT_THAT(error_for("dense<1> : tensor<2xi4>"),
              ElementsAre("2:3: BEF files cannot encode the 'a' attribute "
                          "(dense<1> : tensor<2xi4>)"));
  EXPECT_THAT(error_for("dense<\"x\"> : tensor<1x!tfrt.string>"),
              ElementsAre("2:3: BEF files cannot encode the 'a' attribute "
                          "(dense<\"x\"> : tensor<1x!tfrt.string>)"));
  EXPECT_THAT(error_for("{b = 1 : i32}"),
              ElementsAre("2:3: BEF files cannot encode the 'a' attribute "
                          "({b = 1 : i32})"));
  EXPECT_THAT(error_for("3 : i3"),
              ElementsAre("2:3: BEF files cannot encode the 'a' attribute "
                          "(3 : i3)"));
  EXPECT_THAT(error_for("1.0 : f80"),
              ElementsAre("2:3: BEF files cannot encode the 'a' attribute "
                          "(1.000000e+00 : f80)"));
  // A splat is written out in full: past what a tool reads back.
  EXPECT_THAT(error_for("dense<0.0> : tensor<100000000xf32>"),
              ElementsAre("2:3: the 'a' attribute holds 100000000 elements, "
                          "more than the 256 MiB a tool reads a program up "
                          "to"));
  // A type attribute holds what a tensor's elements may be.
  for (const char* type :
       {"tensor<1xf32>", "!tfrt.chain", "index", "i4", "(i32) -> f32"}) {
    EXPECT_THAT(error_for(type),
                ElementsAre(std::string("2:3: BEF files cannot encode the "
                                        "'a' attribute (") +
                            type + ")"));
  }
  // Inside an array the error still names the attribute.
  EXPECT_THAT(error_for("[1 : i32, 5 : i128]"),
              ElementsAre("2:3: BEF files cannot encode the 'a' attribute "
                          "(5 : i128)"));
}

TEST(CompileErrorsTest, OnlyFunctionsAtTheTopLevel) {
  EXPECT_THAT(CompileErrors("\"t.global\"() : () -> ()\n"),
              ElementsAre("1:1: 't.global' cannot be emitted to SBF files: "
                          "only func.func ops and modules marked "
                          "tfrt.compiled may appear at the top level of a "
                          "module"));
}

TEST(CompileErrorsTest, NulBytesInNames) {
  EXPECT_THAT(CompileErrors(R"mlir(func.func @f() {
  "t.op"() {"a\00b" = 1 : i32} : () -> ()
  "tfrt.return"() : () -> ()
}
)mlir"),
              ElementsAre("2:3: attribute name contains a NUL byte, which "
                          "SBF files cannot hold"));
}

// MLIR takes the escape \FF in a quoted symbol as the byte 0xFF, which no
// UTF-8 text holds; a worker could not send the name to its clients.
TEST(CompileErrorsTest, FunctionNamesMustBeUtf8) {
  EXPECT_THAT(CompileErrors(R"mlir(func.func @"f\FF"() {
  "tfrt.return"() : () -> ()
}
func.func @"caf\C3\A9"() {
  "tfrt.return"() : () -> ()
}
)mlir"),
              ElementsAre("1:1: function name \"f\\xff\" is not valid UTF-8 "
                          "(byte 0xff at offset 1)"));
}

TEST(CompileErrorsTest, ErrorsInSeveralFunctionsAreAllReported) {
  EXPECT_THAT(CompileErrors(R"mlir(func.func @f() {
  "t.op"() : () -> ()
}
func.func @g() {
  "t.op"() : () -> ()
}
)mlir"),
              ElementsAre("2:3: all functions need to have a tfrt.return",
                          "5:3: all functions need to have a tfrt.return"));
}

}  // namespace
}  // namespace sluice
