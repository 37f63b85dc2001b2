// Tracer: the JSON it writes is valid Chrome trace-event JSON, with each
// thread's events under its own id and every event of every thread kept.
#include "sluice/host_context/tracer.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "llvm/Support/JSON.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

// The trace's events, parsed.
llvm::json::Array Events(const std::string& json) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed) {
    ADD_FAILURE() << "invalid JSON: " << llvm::toString(parsed.takeError())
                  << "\n"
                  << json;
    return {};
  }
  const llvm::json::Array* events =
      parsed->getAsObject()->getArray("traceEvents");
  EXPECT_NE(events, nullptr);
  return events != nullptr ? *events : llvm::json::Array();
}

std::string Str(const llvm::json::Object& event, llvm::StringRef key) {
  std::optional<llvm::StringRef> value = event.getString(key);
  return value ? value->str() : "";
}

TEST(TracerTest, SpansCarryNameCategoryTimesAndArguments) {
  Tracer tracer("tracer_test \"quoted\"");
  tracer.AddSpan("kernel \"a\"\n", "kernel", 100000, 102501,
                 {{"location", "f.mlir:3:8"}});
  const llvm::json::Array events = Events(tracer.ToJson());
  ASSERT_EQ(events.size(), 3u);  // the process's name, the thread's, the span
  const llvm::json::Object& process = *events[0].getAsObject();
  EXPECT_EQ(Str(process, "ph"), "M");
  EXPECT_EQ(Str(process, "name"), "process_name");
  EXPECT_EQ(Str(*process.getObject("args"), "name"), "tracer_test \"quoted\"");
  const llvm::json::Object& span = *events[2].getAsObject();
  EXPECT_EQ(Str(span, "ph"), "X");
  EXPECT_EQ(Str(span, "name"), "kernel \"a\"\n");
  EXPECT_EQ(Str(span, "cat"), "kernel");
  EXPECT_DOUBLE_EQ(*span.getNumber("ts"), 100.0);
  EXPECT_DOUBLE_EQ(*span.getNumber("dur"), 2.501);
  EXPECT_EQ(Str(*span.getObject("args"), "location"), "f.mlir:3:8");
  EXPECT_EQ(*span.getInteger("tid"),
            *events[1].getAsObject()->getInteger("tid"));
}

TEST(TracerTest, FlowEndsBindToTheirEnclosingSpans) {
  Tracer tracer("p");
  const uint64_t id = Tracer::NewId();
  EXPECT_NE(Tracer::NewId(), id);
  EXPECT_LT(id, uint64_t{1} << 53);
  tracer.AddFlowStart("remote call", id, 10);
  tracer.AddFlowEnd("remote call", id, 20);
  tracer.AddAsyncBegin("call", "remote_call", id, 10, {{"task", "t"}});
  tracer.AddAsyncEnd("call", "remote_call", id, 30);
  std::vector<std::string> phases;
  for (const llvm::json::Value& value : Events(tracer.ToJson())) {
    const llvm::json::Object& event = *value.getAsObject();
    if (Str(event, "ph") == "M") continue;
    phases.push_back(Str(event, "ph"));
    EXPECT_EQ(*event.getInteger("id"), static_cast<int64_t>(id));
    if (Str(event, "ph") == "s" || Str(event, "ph") == "f") {
      EXPECT_EQ(Str(event, "bp"), "e");
      EXPECT_EQ(Str(event, "name"), "remote call");
    }
  }
  EXPECT_EQ(phases, (std::vector<std::string>{"s", "f", "b", "e"}));
}

TEST(TracerTest, EveryThreadKeepsItsOwnEvents) {
  Tracer tracer("p");
  constexpr int kThreads = 4;
  constexpr int kSpans = 1000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&tracer, t] {
      for (int i = 0; i < kSpans; ++i) {
        tracer.AddSpan("span " + std::to_string(t), "test", i, i + 1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::map<std::string, std::set<int64_t>> tids_by_name;
  std::map<std::string, int> count_by_name;
  for (const llvm::json::Value& value : Events(tracer.ToJson())) {
    const llvm::json::Object& event = *value.getAsObject();
    if (Str(event, "ph") != "X") continue;
    tids_by_name[Str(event, "name")].insert(*event.getInteger("tid"));
    ++count_by_name[Str(event, "name")];
  }
  ASSERT_EQ(count_by_name.size(), static_cast<size_t>(kThreads));
  std::set<int64_t> tids;
  for (const auto& [name, count] : count_by_name) {
    EXPECT_EQ(count, kSpans) << name;
    ASSERT_EQ(tids_by_name[name].size(), 1u) << name;
    tids.insert(*tids_by_name[name].begin());
  }
  EXPECT_EQ(tids.size(), static_cast<size_t>(kThreads));
}

TEST(TracerTest, WriteFileWritesTheJsonAndNamesAnUnwritablePath) {
  Tracer tracer("p");
  tracer.AddSpan("a", "test", 1, 2);
  const std::string path =
      std::string(std::getenv("TEST_TMPDIR")) + "/trace.json";
  ASSERT_TRUE(tracer.WriteFile(path).ok());
  std::ifstream file(path);
  std::stringstream contents;
  contents << file.rdbuf();
  EXPECT_EQ(contents.str(), tracer.ToJson());
  absl::Status bad = tracer.WriteFile("/nonexistent/dir/trace.json");
  EXPECT_THAT(bad.message(),
              HasSubstr("couldn't write the trace to "
                        "'/nonexistent/dir/trace.json': No such file"));
}

}  // namespace
}  // namespace sluice
