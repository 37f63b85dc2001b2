// Ranks of a Gloo group as threads of the test process, meeting through an
// in-process store.
#ifndef SLUICE_TEST_UNIT_COLLECTIVE_GROUP_THREADS_H_
#define SLUICE_TEST_UNIT_COLLECTIVE_GROUP_THREADS_H_

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "sluice/collective/gloo_group.h"

namespace sluice::ccl {

inline GlooGroupOptions RankOptions(const std::string& store, int rank,
                                    int size, int64_t generation) {
  GlooGroupOptions options;
  options.store_address = store;
  options.rank = rank;
  options.size = size;
  options.generation = generation;
  options.connect_timeout = absl::Seconds(20);
  return options;
}

// Connects `size` ranks (one thread each), with options `adjust` changes,
// and runs `body` on each with its group; every rank must connect.
inline void RunRanks(
    const std::string& store, int size, int64_t generation,
    const std::function<void(CollectiveGroup& group)>& body,
    const std::function<void(GlooGroupOptions&)>& adjust = nullptr) {
  std::vector<std::thread> threads;
  for (int rank = 0; rank < size; ++rank) {
    threads.emplace_back([&, rank] {
      GlooGroupOptions options = RankOptions(store, rank, size, generation);
      if (adjust) adjust(options);
      absl::StatusOr<RCReference<CollectiveGroup>> group =
          CreateGlooGroup(options);
      ASSERT_TRUE(group.ok()) << group.status();
      body(**group);
    });
  }
  for (std::thread& thread : threads) thread.join();
}

}  // namespace sluice::ccl

#endif  // SLUICE_TEST_UNIT_COLLECTIVE_GROUP_THREADS_H_
