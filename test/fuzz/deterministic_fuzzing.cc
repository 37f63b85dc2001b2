#include "test/fuzz/deterministic_fuzzing.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

namespace sluice {
namespace fuzz {

bool ParseDriverFlags(int argc, char** argv, bool takes_input_out,
                      DriverFlags& flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&](std::string_view flag) -> std::optional<std::string> {
      if (arg.substr(0, flag.size()) != flag) return std::nullopt;
      return std::string(arg.substr(flag.size()));
    };
    if (std::optional<std::string> runs = value("--runs=")) {
      flags.runs = std::atoll(runs->c_str());
    } else if (std::optional<std::string> seed = value("--seed=")) {
      flags.seed = std::strtoull(seed->c_str(), nullptr, 0);
    } else if (std::optional<std::string> dir = value("--corpus_out=")) {
      flags.corpus_out = *dir;
    } else if (std::optional<std::string> file = value("--input_out=");
               file && takes_input_out) {
      flags.input_out = *file;
    } else if (arg.substr(0, 2) == "--") {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return false;
    } else {
      flags.files.emplace_back(arg);
    }
  }
  return true;
}

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

bool WriteCorpusFile(const std::string& dir, const std::string& name,
                     std::string_view bytes) {
  // A directory that cannot be made shows as the write failing.
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  std::ofstream out(dir + "/" + name, std::ios::binary);
  out.write(bytes.data(), bytes.size());
  return static_cast<bool>(out);
}

}  // namespace fuzz
}  // namespace sluice
