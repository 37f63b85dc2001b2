// Programs that fit MLIR's verifier but not their kernels, and programs that
// recurse without end, sent to a real worker process: the worker refuses or
// fails them with an error that says why, and goes on serving.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/bef/sbf_writer.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/distributed/remote_client.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_fixture.h"

namespace sluice::dist::testing {
namespace {

using ::testing::HasSubstr;

std::vector<uint8_t> Compile(const std::string& text) {
  absl::StatusOr<std::vector<uint8_t>> compiled =
      CompileProgram(text, "hostile.mlir");
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  return compiled.ok() ? *std::move(compiled) : std::vector<uint8_t>();
}

class HostileProgramTest : public WorkerFixture {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(StartCluster(1, RpcOptions(),
                                         /*start_workers=*/true,
                                         {"--work_queue_type=mstd:2"}));
    absl::StatusOr<RemoteFunction> add = RegisterTestFunction(task(0), "add");
    ASSERT_TRUE(add.ok()) << add.status();
    add_ = *add;
  }

  void ExpectStillServing() {
    ASSERT_TRUE(worker(0).IsRunning());
    auto sum = CallNow(task(0), add_, Args(I32(3), I32(4)));
    ASSERT_FALSE(sum[0]->IsError()) << sum[0]->GetError();
    EXPECT_EQ(sum[0]->get<int32_t>(), 7);
  }

  // Registers `text` and expects the worker to refuse it with `error`.
  void ExpectRefused(const std::string& text, const std::string& error) {
    SCOPED_TRACE(text);
    absl::StatusOr<RemoteProgram> program = RegisterNow(task(0), Compile(text));
    ASSERT_FALSE(program.ok());
    EXPECT_EQ(program.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(program.status().message(), HasSubstr(error));
    EXPECT_THAT(program.status().message(), HasSubstr(Name(0)));
    ExpectStillServing();
  }

  RemoteFunction add_;
};

TEST_F(HostileProgramTest, OpsThatDoNotFitTheirKernelsAreRefused) {
  ExpectRefused(R"mlir(
func.func @f() -> !tfrt.string {
  %s = "tfrt_test.get_string"() : () -> !tfrt.string
  tfrt.return %s : !tfrt.string
})mlir",
                "hostile.mlir:3:8: kernel 'tfrt_test.get_string' needs "
                "attribute 'value' (string); the op has none");
  ExpectRefused(R"mlir(
func.func @f() -> i32 {
  %x = "tfrt.constant.i32"() {value = 1 : i32, a = "hello"} : () -> i32
  tfrt.return %x : i32
})mlir",
                "kernel 'tfrt.constant.i32' takes no attribute 'a'");
  ExpectRefused(R"mlir(
func.func @f() -> i32 {
  %x = "tfrt_test.async_constant.i32"() {value = 7 : i64} : () -> i32
  tfrt.return %x : i32
})mlir",
                "kernel 'tfrt_test.async_constant.i32' needs attribute "
                "'value' as i32; the op's is i64");
  ExpectRefused(R"mlir(
func.func @f() -> i32 {
  %x = "tfrt_test.flat"() {value = "not an array"} : () -> i32
  tfrt.return %x : i32
})mlir",
                "kernel 'tfrt_test.flat' needs attribute 'value' as array; "
                "the op's is string");
}

TEST_F(HostileProgramTest, EndlessRecursionIsAnErrorValueNamingTheFunction) {
  absl::StatusOr<RemoteProgram> program = RegisterNow(task(0), Compile(R"mlir(
func.func @forever(%x: i32) -> i32 {
  %y = tfrt.call @forever(%x) : (i32) -> i32
  tfrt.return %y : i32
})mlir"));
  ASSERT_TRUE(program.ok()) << program.status();
  absl::StatusOr<RemoteFunction> forever = program->GetFunction("forever");
  ASSERT_TRUE(forever.ok()) << forever.status();
  for (int i = 0; i < 3; ++i) {
    auto result = CallNow(task(0), *forever, Args(I32(1)));
    ASSERT_TRUE(result[0]->IsError());
    EXPECT_EQ(result[0]->GetError().code(),
              absl::StatusCode::kResourceExhausted);
    EXPECT_THAT(result[0]->GetError().message(),
                HasSubstr("calls nested deeper than 1000 at a call of "
                          "'forever'"));
    ExpectStillServing();
  }
}

TEST_F(HostileProgramTest, OperandsOfTheWrongTypeAreAnErrorValue) {
  absl::StatusOr<RemoteProgram> program = RegisterNow(task(0), Compile(R"mlir(
func.func @confused(%x: i32) -> !tfrt.string {
  %s = "tfrt_test.append_string"(%x, %x) : (i32, i32) -> !tfrt.string
  tfrt.return %s : !tfrt.string
})mlir"));
  ASSERT_TRUE(program.ok()) << program.status();
  absl::StatusOr<RemoteFunction> confused = program->GetFunction("confused");
  ASSERT_TRUE(confused.ok()) << confused.status();
  auto result = CallNow(task(0), *confused, Args(I32(1)));
  ASSERT_TRUE(result[0]->IsError());
  EXPECT_THAT(result[0]->GetError().message(),
              HasSubstr("operand #0 does not hold a value of the type the "
                        "kernel takes"));
  ExpectStillServing();
}

// The compiler refuses such nesting, so the program is written by hand, as a
// hostile client would: a kernel whose attribute nests arrays 100,000 deep.
TEST_F(HostileProgramTest, DeeplyNestedAttributesAreRefused) {
  bef::SbfWriter writer;
  uint32_t attribute = writer.AddScalar<int32_t>(bef::AttributeType::kI32, 1);
  for (int level = 0; level < 100000; ++level) {
    attribute = writer.AddArrayAttribute({attribute});
  }
  const uint32_t function =
      writer.DeclareFunction("deep", bef::FunctionKind::kFunction, {}, {});
  bef::BodyDescription body;
  body.kernels.push_back({writer.AddKernelName("tfrt_test.flat"),
                          writer.AddLocation("deep.mlir", 1, 1, std::nullopt),
                          {},
                          {},
                          {attribute},
                          {writer.AddString("value")},
                          {}});
  writer.DefineFunction(function, body);
  absl::StatusOr<RemoteProgram> program = RegisterNow(task(0), writer.Finish());
  ASSERT_FALSE(program.ok());
  EXPECT_THAT(program.status().message(),
              HasSubstr("array attribute nests 257 levels deep"));
  ExpectStillServing();
}

TEST_F(HostileProgramTest, AFlippedByteIsRefusedAsCorrupt) {
  std::vector<uint8_t> program = TestProgram();
  program[program.size() / 2] ^= 0x01;
  absl::StatusOr<RemoteProgram> registered = RegisterNow(task(0), program);
  ASSERT_FALSE(registered.ok());
  EXPECT_THAT(registered.status().message(), HasSubstr("checksum mismatch"));
  ExpectStillServing();
}

}  // namespace
}  // namespace sluice::dist::testing
