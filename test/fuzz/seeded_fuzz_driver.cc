// Runs a fuzz target (one of the *_fuzzer.cc files that include
// fuzz_target.h) without libFuzzer: on its built-in seeds and the seed
// files named, then on deterministic mutations of them. A crash (a target
// traps on any broken promise of its parser, and the sanitizers on any bad
// access) fails the test; otherwise it exits 0.
//
//   <target>_fuzz_test [--runs=N] [--seed=S] [--corpus_out=DIR]
//                      [--dict_out=FILE] [--input_out=FILE] [PATH...]
//
// Each PATH is a seed file or a directory of them (test/fuzz/seeds/<target>/
// holds the checked-in ones, crash inputs that once failed included). A
// crash input saved by libFuzzer replays with `--runs=0 crash-<hash>`.
// Seeds over 64 KiB (regressions for size and nesting) run but are not
// mutated. --corpus_out writes every seed to DIR and --dict_out the
// target's tokens and the driver's interesting numbers to FILE, as
// libFuzzer's starting corpus and -dict. --input_out writes each input to
// FILE before running it, so that the input of a crash is left there.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "test/fuzz/deterministic_fuzzing.h"
#include "test/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace sluice {
namespace fuzz {
namespace {

// Integers on the edges of size, count and range checks, written over
// the input little-endian in 1, 2, 4 or 8 bytes.
constexpr uint64_t kInterestingValues[] = {
    0,
    1,
    2,
    0x7F,
    0x80,
    0xFF,
    0x100,
    0x7FFF,
    0xFFFF,
    0x10000,
    0x7FFFFFFF,
    0x80000000,
    0xFFFFFFFF,
    0x100000000,
    0x7FFFFFFFFFFFFFFF,
    0x8000000000000000,
    0xFFFFFFFFFFFFFFFF,
};

// The same numbers for text formats, and a few that only text can spell.
constexpr std::string_view kInterestingNumbers[] = {
    "0",
    "-1",
    "+1",
    "255",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "1e308",
    "1e309",
    "-0",
    "0x10",
    "00000000000000000001",
    " 1",
    "nan",
    "inf",
};

void WriteInteger(Random& random, std::string& bytes) {
  static constexpr size_t kWidths[] = {1, 2, 4, 8};
  const size_t width = kWidths[random.Below(4)];
  if (bytes.size() < width) return;
  uint64_t value = kInterestingValues[random.Below(
      sizeof(kInterestingValues) / sizeof(kInterestingValues[0]))];
  if (random.Below(4) == 0) value = random.Next();
  const size_t at = random.Below(bytes.size() - width + 1);
  for (size_t i = 0; i < width; ++i) {
    bytes[at + i] = static_cast<char>(value >> (8 * i));
  }
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Replaces a run of digits (or, with none, a random spot) with an
// interesting number.
void ReplaceNumber(Random& random, std::string& text) {
  const std::string_view number = kInterestingNumbers[random.Below(
      sizeof(kInterestingNumbers) / sizeof(kInterestingNumbers[0]))];
  size_t begin = random.Below(text.size() + 1);
  size_t end = begin;
  const size_t digit = text.find_first_of("0123456789", begin);
  if (digit != std::string::npos) {
    begin = end = digit;
    while (end < text.size() && IsDigit(text[end])) ++end;
  }
  text.replace(begin, end - begin, number);
}

void MutateOnce(Random& random, const std::vector<std::string>& seeds,
                const std::vector<std::string>& tokens, std::string& bytes) {
  const size_t size = bytes.size();
  switch (random.Below(12)) {
    case 0:  // flip a bit
      if (size != 0) bytes[random.Below(size)] ^= 1 << random.Below(8);
      break;
    case 1:  // set a byte
      if (size != 0)
        bytes[random.Below(size)] = static_cast<char>(random.Next());
      break;
    case 2:  // an interesting integer, little-endian
      WriteInteger(random, bytes);
      break;
    case 3:  // a token of the format (twice as likely as the rest)
    case 4:
      if (!tokens.empty()) {
        bytes.insert(random.Below(size + 1),
                     tokens[random.Below(tokens.size())]);
      }
      break;
    case 5:  // an interesting number, for text
      ReplaceNumber(random, bytes);
      break;
    case 6: {  // erase a span
      if (size == 0) break;
      const size_t at = random.Below(size);
      bytes.erase(at, 1 + random.Below(std::min<size_t>(16, size - at)));
      break;
    }
    case 7: {  // duplicate a span in place
      if (size == 0) break;
      const size_t at = random.Below(size);
      const size_t count = 1 + random.Below(std::min<size_t>(64, size - at));
      bytes.insert(at, bytes.substr(at, count));
      break;
    }
    case 8: {  // a span of another seed
      const std::string& other = seeds[random.Below(seeds.size())];
      if (other.empty()) break;
      const size_t from = random.Below(other.size());
      const size_t count =
          1 + random.Below(std::min<size_t>(64, other.size() - from));
      bytes.insert(random.Below(size + 1), other.substr(from, count));
      break;
    }
    case 9:  // truncate
      bytes.resize(random.Below(size + 1));
      break;
    case 10: {  // insert random bytes
      const size_t count = 1 + random.Below(8);
      std::string inserted(count, '\0');
      for (char& byte : inserted) byte = static_cast<char>(random.Next());
      bytes.insert(random.Below(size + 1), inserted);
      break;
    }
    case 11: {  // swap two spans of eight bytes: reorders fields and items
      if (size < 16) break;
      const size_t a = random.Below(size - 7);
      const size_t b = random.Below(size - 7);
      if (a + 8 <= b || b + 8 <= a) {
        std::swap_ranges(bytes.begin() + a, bytes.begin() + a + 8,
                         bytes.begin() + b);
      }
      break;
    }
  }
}

void Run(const std::string& input, const std::string& input_out) {
  if (!input_out.empty()) {
    std::ofstream out(input_out, std::ios::binary | std::ios::trunc);
    out << input;
  }
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()),
                         input.size());
}

// The files at `path`: itself, or the files in it (sorted, for a
// deterministic order of seeds), with their contents.
bool ReadSeeds(const std::string& path, std::vector<std::string>& seeds) {
  std::error_code error;
  if (!std::filesystem::is_directory(path, error)) {
    std::optional<std::string> bytes = ReadFile(path);
    if (!bytes) return false;
    seeds.push_back(*std::move(bytes));
    return true;
  }
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(path, error)) {
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  }
  if (error) return false;
  std::sort(files.begin(), files.end());
  for (const std::string& file : files) {
    if (!ReadSeeds(file, seeds)) return false;
  }
  return true;
}

// A token as a line of a libFuzzer dictionary: "..." with \xNN escapes.
std::string DictionaryLine(std::string_view token) {
  std::string line = "\"";
  for (unsigned char c : token) {
    if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
      line += static_cast<char>(c);
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof(escaped), "\\x%02X", c);
      line += escaped;
    }
  }
  return line + "\"\n";
}

int Main(int argc, char** argv) {
  // --dict_out is this driver's own; the rest are the shared flags.
  std::string dict_out;
  std::vector<char*> shared_argv;
  for (int i = 0; i < argc; ++i) {
    constexpr std::string_view kDictOut = "--dict_out=";
    if (i > 0 &&
        std::string_view(argv[i]).substr(0, kDictOut.size()) == kDictOut) {
      dict_out = argv[i] + kDictOut.size();
    } else {
      shared_argv.push_back(argv[i]);
    }
  }
  DriverFlags flags;
  flags.seed = 0x5EED;
  if (!ParseDriverFlags(static_cast<int>(shared_argv.size()),
                        shared_argv.data(), /*takes_input_out=*/true, flags)) {
    return 2;
  }

  TargetSeeds target = FuzzTargetSeeds();
  std::vector<std::string> seeds = std::move(target.seeds);
  for (const std::string& path : flags.files) {
    if (!ReadSeeds(path, seeds)) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      return 2;
    }
  }
  if (seeds.empty()) seeds.emplace_back();

  for (size_t i = 0; i < seeds.size(); ++i) {
    Run(seeds[i], flags.input_out);
    const std::string name = "seed" + std::to_string(i);
    if (!flags.corpus_out.empty() &&
        !WriteCorpusFile(flags.corpus_out, name, seeds[i])) {
      std::fprintf(stderr, "cannot write %s/%s\n", flags.corpus_out.c_str(),
                   name.c_str());
      return 2;
    }
  }
  if (!dict_out.empty()) {
    std::ofstream out(dict_out, std::ios::trunc);
    for (const std::string& token : target.tokens) out << DictionaryLine(token);
    for (std::string_view number : kInterestingNumbers) {
      out << DictionaryLine(number);
    }
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", dict_out.c_str());
      return 2;
    }
  }

  // Seeds this large are regressions for size or nesting: they run once
  // above, and mutating them would cost most of the run.
  constexpr size_t kMaxMutatedSeedBytes = 64 << 10;
  std::vector<std::string> mutated;
  for (const std::string& seed : seeds) {
    if (seed.size() <= kMaxMutatedSeedBytes) mutated.push_back(seed);
  }
  if (mutated.empty()) mutated.emplace_back();

  RunMutations(
      flags.seed, flags.runs, mutated,
      [&](Random& random, std::string& input) {
        MutateOnce(random, mutated, target.tokens, input);
      },
      [&](const std::string& input) { Run(input, flags.input_out); });
  std::printf("ran %zu seeds and %lld mutations (seed %llu): no crashes\n",
              seeds.size(), flags.runs,
              static_cast<unsigned long long>(flags.seed));
  return 0;
}

}  // namespace
}  // namespace fuzz
}  // namespace sluice

int main(int argc, char** argv) { return sluice::fuzz::Main(argc, argv); }
