#include "sluice/distributed/cluster_spec.h"

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sluice/support/file_reading.h"
#include "sluice/support/host_port.h"

namespace sluice::dist {
namespace {

absl::Status SpecError(std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid cluster spec: ", std::string(what)));
}

using Json = nlohmann::json;

// A spec nests three levels ({"cluster": {"job": [...]}}); one past this is
// refused before parsing. nlohmann's parser keeps its own stack, but
// copying, comparing or printing a value recurses once per level, so that
// 100,000 '[' would parse into a value that overflows the stack of the next
// code to print it (llvm::json, which parsed specs before, overflowed in
// the parser itself).
constexpr int kMaxJsonNesting = 32;

// Whether `json` opens more than kMaxJsonNesting arrays and objects at
// once, outside strings. After a stray closer the count runs low, but the
// parser stops at that closer anyway.
bool NestsTooDeep(std::string_view json) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonNesting) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

// Why nlohmann's parser stopped. Without exceptions, parse() only says
// that it did; parsing again with this handler gets its message.
class ParseErrorRecorder : public nlohmann::json_sax<Json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&,
                   const Json::exception& error) override {
    // what() starts with "[json.exception.parse_error.101] ", which is
    // nlohmann's bookkeeping, not the reason.
    std::string_view what = error.what();
    const size_t tag_end = what.find("] ");
    if (!what.empty() && what[0] == '[' && tag_end != std::string_view::npos) {
      what.remove_prefix(tag_end + 2);
    }
    message_ = std::string(what);
    return false;
  }

  const std::string& message() const { return message_; }

 private:
  std::string message_ = "not valid JSON";
};

std::string DescribeJsonError(std::string_view json) {
  ParseErrorRecorder recorder;
  Json::sax_parse(json.begin(), json.end(), &recorder);
  return recorder.message();
}

}  // namespace

absl::StatusOr<ClusterSpec> ClusterSpec::FromJson(std::string_view json) {
  if (NestsTooDeep(json)) {
    return SpecError(
        absl::StrCat("JSON nested deeper than ", kMaxJsonNesting, " levels"));
  }
  const Json parsed = Json::parse(json.begin(), json.end(), nullptr,
                                  /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return SpecError(DescribeJsonError(json));
  const Json* root = &parsed;
  if (!root->is_object()) {
    return SpecError("expected a JSON object mapping job names to addresses");
  }
  // A whole TF_CONFIG: the jobs are under "cluster".
  if (auto cluster = root->find("cluster"); cluster != root->end()) {
    root = &*cluster;
    if (!root->is_object()) return SpecError("\"cluster\" is not an object");
  }
  ClusterSpec spec;
  for (const auto& job : root->items()) {
    const std::string& job_name = job.key();
    const Json& addresses = job.value();
    if (job_name.empty() || job_name.find('/') != std::string::npos ||
        job_name.find(':') != std::string::npos) {
      return SpecError(absl::StrCat("bad job name '", job_name, "'"));
    }
    if (!addresses.is_array()) {
      return SpecError(
          absl::StrCat("job '", job_name, "' must map to a list of addresses"));
    }
    std::vector<std::string>& tasks = spec.jobs_[job_name];
    for (size_t i = 0; i < addresses.size(); ++i) {
      if (!addresses[i].is_string()) {
        return SpecError(absl::StrCat("address ", i, " of job '", job_name,
                                      "' is not a \"host:port\" string"));
      }
      const std::string& address = addresses[i].get_ref<const std::string&>();
      absl::Status valid = ValidateAddress(address);
      if (!valid.ok()) {
        return SpecError(absl::StrCat("address '", address, "' of task ",
                                      TaskName(job_name, static_cast<int>(i)),
                                      ": ", valid.message()));
      }
      tasks.push_back(address);
    }
  }
  if (spec.jobs_.empty()) return SpecError("no jobs");
  return spec;
}

absl::StatusOr<ClusterSpec> ClusterSpec::FromFlagOrEnvironment(
    std::string_view flag_value) {
  std::string text(flag_value);
  std::string source = "--cluster";
  if (text.empty()) {
    const char* env = std::getenv("SLUICE_CLUSTER");
    if (env == nullptr || *env == '\0') {
      return absl::FailedPreconditionError(
          "no cluster configured: pass --cluster or set SLUICE_CLUSTER");
    }
    text = env;
    source = "SLUICE_CLUSTER";
  }
  if (!text.empty() && text[0] == '@') {
    absl::StatusOr<std::string> contents = ReadRegularFile(text.substr(1));
    if (!contents.ok()) {
      return absl::Status(
          contents.status().code(),
          absl::StrCat("cluster spec: ", contents.status().message()));
    }
    text = *std::move(contents);
  }
  absl::StatusOr<ClusterSpec> spec = FromJson(text);
  if (!spec.ok()) {
    return absl::Status(spec.status().code(),
                        absl::StrCat(source, ": ", spec.status().message()));
  }
  return spec;
}

absl::StatusOr<std::string> ClusterSpec::AddressOf(
    std::string_view task_name) const {
  absl::StatusOr<std::pair<std::string, int>> parsed = ParseTaskName(task_name);
  if (!parsed.ok()) return parsed.status();
  auto job = jobs_.find(parsed->first);
  if (job == jobs_.end() ||
      parsed->second >= static_cast<int>(job->second.size())) {
    return absl::NotFoundError(
        absl::StrCat("task '", std::string(task_name),
                     "' is not in the cluster; its tasks are ",
                     absl::StrJoin(TaskNames(), ", ")));
  }
  return job->second[parsed->second];
}

std::vector<std::string> ClusterSpec::TaskNames() const {
  std::vector<std::string> names;
  for (const auto& [job, addresses] : jobs_) {
    for (size_t i = 0; i < addresses.size(); ++i) {
      names.push_back(TaskName(job, static_cast<int>(i)));
    }
  }
  return names;
}

absl::Status ValidateAddress(std::string_view address) {
  return ParseHostPort(address).status();
}

std::string TaskName(std::string_view job, int index) {
  return absl::StrCat("/job:", std::string(job), "/task:", index);
}

absl::StatusOr<std::pair<std::string, int>> ParseTaskName(
    std::string_view task_name) {
  auto bad = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("bad task name '", std::string(task_name),
                     "': expected /job:<name>/task:<index>"));
  };
  constexpr std::string_view kJob = "/job:";
  if (task_name.substr(0, kJob.size()) != kJob) return bad();
  std::string_view rest = task_name.substr(kJob.size());
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos || slash == 0) return bad();
  std::string job(rest.substr(0, slash));
  rest = rest.substr(slash);
  constexpr std::string_view kReplica = "/replica:0";
  if (rest.substr(0, kReplica.size()) == kReplica) {
    rest = rest.substr(kReplica.size());
  }
  constexpr std::string_view kTask = "/task:";
  if (rest.substr(0, kTask.size()) != kTask) return bad();
  int index = 0;
  if (!absl::SimpleAtoi(absl::string_view(rest.data() + kTask.size(),
                                          rest.size() - kTask.size()),
                        &index) ||
      index < 0) {
    return bad();
  }
  return std::make_pair(std::move(job), index);
}

}  // namespace sluice::dist
