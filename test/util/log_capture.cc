#include "test/util/log_capture.h"

#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/support/logging.h"

namespace sluice {
namespace test_util {

ScopedLogCapture::ScopedLogCapture() : saved_level_(MinLogLevel()) {
  SetMinLogLevel(LogSeverity::kInfo);
  previous_sink_ = SetLogSink(this);
}

ScopedLogCapture::~ScopedLogCapture() {
  SetLogSink(previous_sink_);
  SetMinLogLevel(saved_level_);
}

void ScopedLogCapture::Send(LogSeverity severity,
                            std::string_view formatted_line) {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.emplace_back(severity, std::string(formatted_line));
}

std::vector<ScopedLogCapture::Entry> ScopedLogCapture::entries() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_;
}

std::vector<std::string> ScopedLogCapture::lines() const {
  std::vector<std::string> result;
  for (Entry& entry : entries()) result.push_back(std::move(entry.second));
  return result;
}

}  // namespace test_util
}  // namespace sluice
