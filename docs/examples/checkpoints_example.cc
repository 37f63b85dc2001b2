// The code docs/checkpoints.md quotes: saving named tensors, restoring the
// newest intact checkpoint, and what a damaged one does to a restore.
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "sluice/checkpoint/checkpoint.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice::checkpoint {
namespace {

std::string NewDirectory() {
  std::string pattern = ::testing::TempDir() + "/example.XXXXXX";
  EXPECT_NE(mkdtemp(pattern.data()), nullptr);
  return pattern;
}

TEST(CheckpointsExample, SavesAndRestores) {
  const std::string directory = NewDirectory();
  MallocAllocator allocator;
  std::vector<float> weights = {0.5f, -1.25f, 3.0f};
  std::vector<int64_t> counter = {1000};
  // [START save]
  std::map<std::string, DenseHostTensor> tensors;
  tensors["dense/kernel"] =
      *DenseHostTensor::FromValues<float>(TensorShape{3}, weights, &allocator);
  tensors["global_step"] =
      *DenseHostTensor::FromValues<int64_t>(TensorShape{}, counter, &allocator);

  CheckpointOptions options;
  options.keep_last = 3;  // older complete checkpoints are deleted
  absl::Status saved =
      SaveCheckpoint(directory, /*step=*/1000, /*epoch=*/2, tensors, options);
  // [END save]
  ASSERT_TRUE(saved.ok()) << saved;

  // [START restore]
  absl::StatusOr<Checkpoint> restored =
      RestoreCheckpoint(directory, &allocator);
  // NOT_FOUND when the directory holds no intact checkpoint.
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(restored->step, 1000);
  EXPECT_EQ(restored->epoch, 2);
  EXPECT_EQ(restored->tensors.at("dense/kernel").values<float>()[1], -1.25f);
  // [END restore]

  // A newer checkpoint whose manifest is damaged is skipped with a
  // warning, and the restore returns the one before it.
  ASSERT_TRUE(SaveCheckpoint(directory, 2000, 3, tensors, options).ok());
  const std::string manifest =
      directory + "/ckpt-00000000000000002000.manifest";
  ASSERT_EQ(truncate(manifest.c_str(), 10), 0);
  restored = RestoreCheckpoint(directory, &allocator);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(restored->step, 1000);
}

}  // namespace
}  // namespace sluice::checkpoint
