// Runs the compiler fuzz target (mlir_compiler_fuzzer.cc) without
// libFuzzer: on seed programs, then on deterministic mutations of them. A
// crash (the target traps on any broken promise of the compiler, and the
// sanitizers on any bad access or stack overflow) fails the test; otherwise
// it exits 0.
//
//   mlir_fuzz_driver [--runs=N] [--seed=S] [--corpus_out=DIR]
//                    [--input_out=FILE] FILE...
//
// Each FILE is a `.mlir` program; files split into chunks at `// -----`
// lines, as -split-input-file does, and each chunk is a seed. A crash input
// saved by libFuzzer replays with `--runs=0 crash-<hash>`. --corpus_out
// writes the seeds to DIR as a starting corpus for libFuzzer. --input_out
// writes each input to FILE before running it, so that the input of a crash
// is left there.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "test/fuzz/deterministic_fuzzing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace sluice {
namespace {

// Pieces of MLIR syntax and of Sluice's dialects that random bytes would
// rarely spell, and the values that sit on the edges of checks.
constexpr std::string_view kTokens[] = {
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    "<",
    ">",
    "->",
    "\"",
    "\\",
    "//",
    "\n",
    ",",
    ":",
    "=",
    "%0",
    "%1:2",
    "#1",
    "%arg0",
    "^bb0",
    "^bb1(%x: i32):",
    "@main",
    "@missing",
    "i1",
    "i32",
    "i64",
    "f32",
    "index",
    "ui8",
    "!tfrt.chain",
    "!tfrt.string",
    "!t.opaque",
    "tensor<2xf32>",
    "(i32) -> i32",
    "() -> ()",
    "0",
    "-1",
    "4294967296",
    "0x7FFFFFFFFFFFFFFF",
    "1.0e309",
    "0x7FC00000",
    "true",
    "unit",
    "dense<[1, 2]> : tensor<2xi32>",
    "array<i32: 1, 2>",
    "array<i1: true>",
    "[1, [2, [3]]]",
    "{a = 1 : i32}",
    "loc(\"f.mlir\":1:2)",
    "loc(fused[\"a\", \"b\"])",
    "loc(\"name\")",
    "#loc = loc(unknown)",
    "{-# dialect_resources: {} #-}",
    "func.func @f(%a: i32) -> i32 {\n  tfrt.return %a : i32\n}\n",
    "func.func private @ext(i32) -> i32\n",
    "tfrt.return",
    "tfrt.return %0 : i32",
    "tfrt.new.chain",
    "tfrt.constant.i32 1",
    "tfrt.add.i32",
    "tfrt.call @f(%0) : (i32) -> i32",
    "tfrt.if %0, %1 : (i32) -> (i32) {",
    "} else {",
    "tfrt.repeat.i32 %0, %1 : i32 {",
    "tfrt.while",
    "tfrt.case",
    "tfrt.cond",
    "tfrt.parallel_for.i32",
    "tfrt_test.do.async",
    "\"tfrt.constant.i32\"() {value = 1 : i32} : () -> i32",
    "\"t.op\"() ({\n}) : () -> ()",
    "\"t.op\"() ({\n^bb0:\n  \"tfrt.return\"() : () -> ()\n}) : () -> ()",
    "\"tfrt.return\"() : () -> ()",
    "tfrt.native",
    "_hint",
    "callee",
    "value",
    "\\00",
    "\\\"",
    "affine_map<(d0) -> (d0)>",
    "module {",
    "builtin.module",
    "sym_name = \"x\"",
};

void InsertToken(fuzz::Random& random, std::string& text) {
  const std::string_view token =
      kTokens[random.Below(sizeof(kTokens) / sizeof(kTokens[0]))];
  text.insert(random.Below(text.size() + 1), token);
}

// A run of one opening bracket, sized around the nesting limit: the check
// must refuse what goes past it and the tools survive what does not.
void InsertBrackets(fuzz::Random& random, std::string& text) {
  static constexpr size_t kCounts[] = {1, 2, 16, 250, 254, 255, 256, 300};
  static constexpr char kOpeners[] = {'[', '(', '{', '<'};
  const size_t count = kCounts[random.Below(sizeof(kCounts) / sizeof(size_t))];
  const char opener = kOpeners[random.Below(sizeof(kOpeners))];
  text.insert(random.Below(text.size() + 1), count, opener);
}

// Lines of `text`, without their newlines.
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string JoinLines(const std::vector<std::string_view>& lines) {
  std::string text;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i != 0) text += '\n';
    text.append(lines[i].data(), lines[i].size());
  }
  return text;
}

void MutateOnce(fuzz::Random& random, const std::vector<std::string>& seeds,
                std::string& text) {
  const size_t size = text.size();
  switch (random.Below(10)) {
    case 0:  // flip a bit
      if (size != 0) text[random.Below(size)] ^= 1 << random.Below(7);
      break;
    case 1:  // set a byte to a printable character
      if (size != 0) {
        text[random.Below(size)] = static_cast<char>(' ' + random.Below(95));
      }
      break;
    case 2:  // insert a token (twice as likely as the rest)
    case 3:
      InsertToken(random, text);
      break;
    case 4: {  // erase a span
      if (size == 0) break;
      const size_t at = random.Below(size);
      text.erase(at, 1 + random.Below(std::min<size_t>(16, size - at)));
      break;
    }
    case 5: {  // duplicate a span in place
      if (size == 0) break;
      const size_t at = random.Below(size);
      const size_t count = 1 + random.Below(std::min<size_t>(64, size - at));
      text.insert(at, text.substr(at, count));
      break;
    }
    case 6: {  // a line from another seed
      const std::string& other = seeds[random.Below(seeds.size())];
      const std::vector<std::string_view> lines = Lines(other);
      const std::string_view line = lines[random.Below(lines.size())];
      std::vector<std::string_view> own = Lines(text);
      own.insert(own.begin() + random.Below(own.size() + 1), line);
      text = JoinLines(own);
      break;
    }
    case 7: {  // drop or swap lines
      std::vector<std::string_view> lines = Lines(text);
      const size_t a = random.Below(lines.size());
      const size_t b = random.Below(lines.size());
      if (random.Below(2) == 0) {
        lines.erase(lines.begin() + a);
      } else {
        std::swap(lines[a], lines[b]);
      }
      text = JoinLines(lines);
      break;
    }
    case 8:  // brackets around the nesting limit
      InsertBrackets(random, text);
      break;
    case 9:  // truncate
      text.resize(random.Below(size + 1));
      break;
  }
}

void Run(const std::string& text, const std::string& input_out) {
  if (!input_out.empty()) {
    std::ofstream out(input_out, std::ios::binary | std::ios::trunc);
    out << text;
  }
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(text.data()),
                         text.size());
}

// The chunks -split-input-file would make of `text`.
std::vector<std::string> Chunks(std::string_view text) {
  std::vector<std::string> chunks;
  std::string current;
  for (std::string_view line : Lines(text)) {
    if (line.substr(0, 8) == "// -----") {
      chunks.push_back(std::move(current));
      current.clear();
      continue;
    }
    current.append(line.data(), line.size());
    current += '\n';
  }
  chunks.push_back(std::move(current));
  return chunks;
}

int Main(int argc, char** argv) {
  fuzz::DriverFlags flags;
  flags.seed = 0x4D4C;
  if (!fuzz::ParseDriverFlags(argc, argv, /*takes_input_out=*/true, flags)) {
    return 2;
  }
  std::vector<std::string> seeds;
  for (const std::string& path : flags.files) {
    std::optional<std::string> text = fuzz::ReadFile(path);
    if (!text) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      return 2;
    }
    for (std::string& chunk : Chunks(*text)) seeds.push_back(chunk);
  }
  if (seeds.empty()) {
    std::fprintf(stderr, "no seed programs: name at least one .mlir file\n");
    return 2;
  }

  for (size_t i = 0; i < seeds.size(); ++i) {
    Run(seeds[i], flags.input_out);
    const std::string name = "seed" + std::to_string(i) + ".mlir";
    if (!flags.corpus_out.empty() &&
        !fuzz::WriteCorpusFile(flags.corpus_out, name, seeds[i])) {
      std::fprintf(stderr, "cannot write %s/%s\n", flags.corpus_out.c_str(),
                   name.c_str());
      return 2;
    }
  }

  fuzz::RunMutations(
      flags.seed, flags.runs, seeds,
      [&](fuzz::Random& random, std::string& input) {
        MutateOnce(random, seeds, input);
      },
      [&](const std::string& input) { Run(input, flags.input_out); });
  std::printf("ran %zu seeds and %lld mutations (seed %llu): no crashes\n",
              seeds.size(), flags.runs,
              static_cast<unsigned long long>(flags.seed));
  return 0;
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) { return sluice::Main(argc, argv); }
