// The TSan suppressions that every gRPC binary links
// (lib/support/tsan_suppressions.cc) name only uninstrumented system libraries.
// This test keeps them honest: two of Sluice's threads that write one of its
// wire messages without synchronization must still be reported, so a
// suppression that hid the generated message code again would fail here.
// Without TSan there is nothing to observe, and the test says so.
#include <thread>

#include "gtest/gtest.h"
#include "lib/distributed/worker_service.pb.h"

namespace sluice::dist {
namespace {

#if defined(__SANITIZE_THREAD__)
void WriteOneMessageFromTwoThreads() {
  proto::Error error;
  // Neither write happens before the other: no lock, no join in between.
  // A scalar field: its setter is generated code compiled into Sluice.
  // (A string field's setter runs inside libprotobuf, which TSan cannot
  // see, so a race there goes unreported whatever the suppressions say.)
  std::thread first([&] { error.set_code(1); });
  std::thread second([&] { error.set_code(2); });
  first.join();
  second.join();
}

TEST(TsanChecksMessagesTest, RaceOnAWireMessageIsReported) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // The test's TSAN_OPTIONS set halt_on_error=1: the first report ends the
  // child with TSan's exit code.
  EXPECT_EXIT(WriteOneMessageFromTwoThreads(), testing::ExitedWithCode(66),
              "ThreadSanitizer: data race");
}
#else
TEST(TsanChecksMessagesTest, RaceOnAWireMessageIsReported) {
  GTEST_SKIP() << "only meaningful under ThreadSanitizer (--config=tsan)";
}
#endif

}  // namespace
}  // namespace sluice::dist
