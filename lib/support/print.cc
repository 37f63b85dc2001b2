#include "sluice/support/print.h"

#include <cstdio>
#include <mutex>

namespace sluice {

void PrintLine(std::string_view line) {
  static std::mutex* mu = new std::mutex;
  std::lock_guard<std::mutex> lock(*mu);
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

}  // namespace sluice
