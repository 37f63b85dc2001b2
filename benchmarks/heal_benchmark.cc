// Healing: the CRC-32 over a replica's state, and a whole transfer of a
// state between two healing services of one process over loopback gRPC
// (chunks, checksum on both sides, one copy on the receiver).
#include <memory>
#include <string>

#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "lib/ft/heal_client.h"
#include "lib/ft/heal_server.h"
#include "lib/support/crc32.h"

namespace sluice::ft {
namespace {

std::string MakeState(int64_t bytes) {
  std::string state(bytes, '\0');
  for (int64_t i = 0; i < bytes; ++i) state[i] = static_cast<char>(i * 131);
  return state;
}

void BM_Crc32(benchmark::State& state) {
  const std::string bytes = MakeState(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(Crc32(bytes));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Crc32)->Arg(1 << 20)->Arg(64 << 20);

void BM_FetchState(benchmark::State& state) {
  const std::string bytes = MakeState(state.range(0));
  auto server = HealServer::Start("127.0.0.1", "replica-a",
                                  [&bytes](bool) -> absl::StatusOr<ServedState> {
                                    return ServedState{7, bytes};
                                  });
  if (!server.ok()) return state.SkipWithError("cannot start the server");
  const HealPeer peer{"replica-a", (*server)->address()};
  for (auto _ : state) {
    absl::StatusOr<ServedState> fetched =
        FetchState(peer, "replica-b", 7, absl::Now() + absl::Seconds(120));
    if (!fetched.ok() || fetched->bytes.size() != bytes.size()) {
      return state.SkipWithError("the transfer failed");
    }
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_FetchState)
    ->Arg(16 << 20)
    ->Arg(256 << 20)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace sluice::ft
