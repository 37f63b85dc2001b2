// Loading a program from a file, and what a loaded program keeps: kernels
// read their attributes and debug info from the program's own bytes, so
// those must survive the caller's buffer.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/bef/sbf_writer.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/support/error_util.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

int32_t Constant(Attribute<int32_t> value) { return *value; }
absl::StatusOr<int32_t> Fail(int32_t) {
  return absl::InternalError("always fails");
}

// main() -> (constant 41, fail(41)); the failing op sits at
// `file`:7:3.
std::vector<uint8_t> BuildProgram(const std::string& file) {
  bef::SbfWriter w;
  const uint32_t i32 = w.AddType("i32");
  const uint32_t f =
      w.DeclareFunction("main", bef::FunctionKind::kFunction, {}, {i32, i32});
  bef::BodyDescription body;
  bef::KernelDescription constant;
  constant.name_index = w.AddKernelName("test.constant");
  constant.location_index = w.AddLocation(file, 6, 3, std::nullopt);
  constant.results = {body.num_registers++};
  constant.attributes = {w.AddScalar<int32_t>(bef::AttributeType::kI32, 41)};
  constant.attribute_names = {w.AddString("value")};
  body.kernels.push_back(constant);
  bef::KernelDescription fail;
  fail.name_index = w.AddKernelName("test.fail");
  fail.location_index = w.AddLocation(file, 7, 3, std::nullopt);
  fail.operands = {0};
  fail.results = {body.num_registers++};
  body.kernels.push_back(fail);
  body.result_registers = {0, 1};
  w.DefineFunction(f, std::move(body));
  return w.Finish();
}

class ProgramMemoryTest : public ::testing::Test {
 protected:
  ProgramMemoryTest()
      : host_([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
              CreateSingleThreadedWorkQueue()) {
    EXPECT_TRUE(GetKernelRegistry(&host_)
                    .AddKernels({{"test.constant", SLUICE_KERNEL(Constant)},
                                 {"test.fail", SLUICE_KERNEL(Fail)}})
                    .ok());
  }

  std::string WriteFile(const std::string& name,
                        const std::vector<uint8_t>& bytes) {
    const std::string path = ::testing::TempDir() + "/" + name;
    std::FILE* file = std::fopen(path.c_str(), "wb");
    EXPECT_NE(file, nullptr) << path;
    EXPECT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), file), bytes.size());
    std::fclose(file);
    return path;
  }

  // Runs main and returns its results, awaited.
  std::vector<RCReference<AsyncValue>> RunMain(const Program& program) {
    ExecutionContext context(RequestContext::Create(&host_));
    std::vector<RCReference<AsyncValue>> results =
        CallFunction(*program.GetFunction("main"), context, {});
    host_.Await(results);
    return results;
  }

  HostContext host_;
};

TEST_F(ProgramMemoryTest, LoadFileRunsTheProgramInTheFile) {
  const std::string path =
      WriteFile("prog.sbf", BuildProgram("models/a_rather_long_name.mlir"));
  absl::StatusOr<std::unique_ptr<Program>> program =
      Program::LoadFile(path, GetKernelRegistry(&host_));
  ASSERT_TRUE(program.ok()) << program.status();
  const std::vector<RCReference<AsyncValue>> results = RunMain(**program);
  ASSERT_FALSE(results[0]->IsError());
  EXPECT_EQ(results[0]->get<int32_t>(), 41);
  ASSERT_TRUE(results[1]->IsError());
  const ErrorContext where = GetErrorContext(results[1]->GetError());
  EXPECT_EQ(where.kernel, "test.fail");
  EXPECT_EQ(where.location, "models/a_rather_long_name.mlir:7:3");
}

TEST_F(ProgramMemoryTest, AttributesAndLocationsOutliveTheCallersBytes) {
  std::unique_ptr<Program> program;
  {
    const std::vector<uint8_t> bytes = BuildProgram("kept/in/the/program.mlir");
    absl::StatusOr<std::unique_ptr<Program>> loaded =
        Program::Load(bytes, GetKernelRegistry(&host_));
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    program = *std::move(loaded);
  }
  const std::vector<RCReference<AsyncValue>> results = RunMain(*program);
  ASSERT_FALSE(results[0]->IsError());
  EXPECT_EQ(results[0]->get<int32_t>(), 41);
  ASSERT_TRUE(results[1]->IsError());
  EXPECT_EQ(GetErrorContext(results[1]->GetError()).location,
            "kept/in/the/program.mlir:7:3");
}

TEST_F(ProgramMemoryTest, LoadFileNamesAMissingFile) {
  const std::string path = ::testing::TempDir() + "/no_such_program.sbf";
  absl::StatusOr<std::unique_ptr<Program>> program =
      Program::LoadFile(path, GetKernelRegistry(&host_));
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(program.status().message(),
              HasSubstr("sbf program: cannot open '" + path + "'"));
}

TEST_F(ProgramMemoryTest, LoadFileRefusesAFifoWithoutWaitingForAWriter) {
  const std::string path = ::testing::TempDir() + "/program.fifo";
  ::unlink(path.c_str());
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  absl::StatusOr<std::unique_ptr<Program>> program =
      Program::LoadFile(path, GetKernelRegistry(&host_));
  ::unlink(path.c_str());
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(program.status().message(),
              HasSubstr("'" + path + "' is a FIFO, not a regular file"));
}

TEST_F(ProgramMemoryTest, LoadFileNamesTheFileOfAnInvalidProgram) {
  std::vector<uint8_t> bytes = BuildProgram("x.mlir");
  bytes[0] = 'X';
  const std::string path = WriteFile("bad_magic.sbf", bytes);
  absl::StatusOr<std::unique_ptr<Program>> program =
      Program::LoadFile(path, GetKernelRegistry(&host_));
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(program.status().message(),
              HasSubstr(path + ": invalid sbf file: Header at offset 0: bad "
                               "magic"));
}

}  // namespace
}  // namespace sluice
