// A process that saves or checks a checkpoint of the seeded test tensors,
// for tests that need a second process (or one killed mid-save):
//
//   checkpoint_child save DIR STEP SEED KEEP_LAST
//   checkpoint_child verify DIR STEP SEED
//
// `verify` restores DIR and expects STEP with the tensors of SEED, bit for
// bit. Exit status 0 on success, 1 with the reason on stderr otherwise, 2
// for bad arguments. Fault points are configured by SLUICE_FAULTS.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "sluice/checkpoint/checkpoint.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/support/fault_point.h"
#include "test/util/checkpoint_tensors.h"

namespace sluice::checkpoint {
namespace {

int Fail(const std::string& what) {
  std::fprintf(stderr, "checkpoint_child: %s\n", what.c_str());
  return 1;
}

int Main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  int64_t step = 0;
  uint32_t seed = 0;
  int keep_last = 0;
  const bool save =
      mode == "save" && argc == 6 && absl::SimpleAtoi(argv[5], &keep_last);
  const bool verify = mode == "verify" && argc == 5;
  if (!(save || verify) || !absl::SimpleAtoi(argv[3], &step) ||
      !absl::SimpleAtoi(argv[4], &seed)) {
    std::fprintf(stderr,
                 "usage: checkpoint_child save DIR STEP SEED KEEP_LAST\n"
                 "       checkpoint_child verify DIR STEP SEED\n");
    return 2;
  }
  if (absl::Status faults = FaultInjector::InitFromEnvironment();
      !faults.ok()) {
    return Fail(faults.ToString());
  }
  const std::string directory = argv[2];
  MallocAllocator allocator;
  const test_util::TensorMap expected =
      test_util::CheckpointTestTensors(seed, &allocator);
  if (save) {
    CheckpointOptions options;
    options.keep_last = keep_last;
    absl::Status status =
        SaveCheckpoint(directory, step, /*epoch=*/step + 1, expected, options);
    return status.ok() ? 0 : Fail(status.ToString());
  }
  absl::StatusOr<Checkpoint> restored =
      RestoreCheckpoint(directory, &allocator);
  if (!restored.ok()) return Fail(restored.status().ToString());
  if (restored->step != step || restored->epoch != step + 1) {
    return Fail("restored step " + std::to_string(restored->step) + " epoch " +
                std::to_string(restored->epoch) + ", expected " +
                std::to_string(step));
  }
  ::testing::AssertionResult same =
      test_util::BitIdentical(expected, restored->tensors);
  return same ? 0 : Fail(same.message());
}

}  // namespace
}  // namespace sluice::checkpoint

int main(int argc, char** argv) { return sluice::checkpoint::Main(argc, argv); }
