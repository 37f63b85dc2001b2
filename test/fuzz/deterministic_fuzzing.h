// What the deterministic fuzz drivers (fuzz_driver.cc for the SBF reader,
// mlir_fuzz_driver.cc for the compiler, seeded_fuzz_driver.cc for the
// targets that include fuzz_target.h) share. They stand in for libFuzzer
// under gcc, so a --seed must replay the same run on every platform, and a
// crash input or a starting corpus must pass between them and libFuzzer the
// same way for every target. Each driver keeps its own seeds and mutations.
#ifndef SLUICE_TEST_FUZZ_DETERMINISTIC_FUZZING_H_
#define SLUICE_TEST_FUZZ_DETERMINISTIC_FUZZING_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {
namespace fuzz {

// splitmix64: the same sequence on every platform, unlike <random>'s
// distributions.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform enough in [0, n) for n > 0.
  size_t Below(size_t n) { return static_cast<size_t>(Next() % n); }

 private:
  uint64_t state_;
};

// The drivers' command line:
//   [--runs=N] [--seed=S] [--corpus_out=DIR] [--input_out=FILE] [FILE...]
struct DriverFlags {
  long long runs = 20000;
  uint64_t seed = 0;
  // Where to write the seeds as a starting corpus for libFuzzer; empty for
  // nowhere.
  std::string corpus_out;
  // Where to write each input before it runs, so that a crash leaves its
  // input behind; empty for nowhere.
  std::string input_out;
  std::vector<std::string> files;
};

// Reads `argv` over `flags`, which hold the driver's defaults. --input_out
// is a flag only where `takes_input_out`. Returns false, having said why on
// stderr, on an unknown flag.
bool ParseDriverFlags(int argc, char** argv, bool takes_input_out,
                      DriverFlags& flags);

std::optional<std::string> ReadFile(const std::string& path);

// Writes `bytes` to the file `name` in `dir`, creating `dir` if missing.
bool WriteCorpusFile(const std::string& dir, const std::string& name,
                     std::string_view bytes);

// Runs `runs` inputs, each a seed changed by one to four stacked calls of
// `mutate(random, input)`, through `run(input)`. Every draw comes from one
// `Random` started at `seed`, in an order a --seed must keep replaying.
template <typename Input, typename Mutate, typename Run>
void RunMutations(uint64_t seed, long long runs,
                  const std::vector<Input>& seeds, Mutate mutate, Run run) {
  Random random(seed);
  for (long long i = 0; i < runs; ++i) {
    Input input = seeds[random.Below(seeds.size())];
    const size_t mutations = 1 + random.Below(4);
    for (size_t m = 0; m < mutations; ++m) mutate(random, input);
    run(input);
  }
}

}  // namespace fuzz
}  // namespace sluice

#endif  // SLUICE_TEST_FUZZ_DETERMINISTIC_FUZZING_H_
