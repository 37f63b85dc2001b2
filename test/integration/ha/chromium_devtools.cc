#include "test/integration/ha/chromium_devtools.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace sluice::lighthouse::testing {
namespace {

constexpr char kChromium[] = "/usr/bin/chromium";
// Where Chromium reads commands from and writes answers to with
// --remote-debugging-pipe.
constexpr int kCommandFd = 3;
constexpr int kAnswerFd = 4;
// Far above the descriptors the child keeps, so that moving the pipes
// there never overwrites 3 or 4 before they are read.
constexpr int kParkedFd = 100;

// One DevTools session over the two pipes, messages NUL-terminated JSON.
class DevTools {
 public:
  DevTools(int commands, int answers, absl::Time deadline)
      : commands_(commands), answers_(answers), deadline_(deadline) {}

  // Sends `method` and waits for its answer's result; events in between
  // are kept for WaitForEvent.
  absl::StatusOr<nlohmann::json> Call(const std::string& method,
                                      nlohmann::json params,
                                      const std::string& session = "") {
    const int id = ++last_id_;
    nlohmann::json message = {
        {"id", id}, {"method", method}, {"params", std::move(params)}};
    if (!session.empty()) message["sessionId"] = session;
    std::string bytes = message.dump();
    bytes.push_back('\0');
    for (size_t sent = 0; sent < bytes.size();) {
      const ssize_t count =
          write(commands_, bytes.data() + sent, bytes.size() - sent);
      if (count <= 0) {
        return absl::UnavailableError(
            absl::StrCat("chromium stopped reading at ", method));
      }
      sent += static_cast<size_t>(count);
    }
    for (;;) {
      absl::StatusOr<nlohmann::json> answer = Next(method);
      if (!answer.ok()) return answer.status();
      if (answer->contains("method")) {
        events_.push_back(*answer);
        continue;
      }
      if (!answer->contains("id") || (*answer)["id"] != id) continue;
      if (answer->contains("error")) {
        return absl::InternalError(
            absl::StrCat(method, " failed: ", (*answer)["error"].dump()));
      }
      return (*answer)["result"];
    }
  }

  // Waits for an event named `method`, kept or to come.
  absl::Status WaitForEvent(const std::string& method) {
    for (const nlohmann::json& event : events_) {
      if (event["method"] == method) return absl::OkStatus();
    }
    for (;;) {
      absl::StatusOr<nlohmann::json> message = Next(method);
      if (!message.ok()) return message.status();
      if (message->contains("method") && (*message)["method"] == method) {
        return absl::OkStatus();
      }
    }
  }

 private:
  absl::StatusOr<nlohmann::json> Next(const std::string& method) {
    for (;;) {
      const size_t end = buffer_.find('\0');
      if (end != std::string::npos) {
        const std::string text = buffer_.substr(0, end);
        buffer_.erase(0, end + 1);
        nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
        if (parsed.is_discarded()) {
          return absl::InternalError("chromium sent a message that is no JSON");
        }
        return parsed;
      }
      const absl::Duration left = deadline_ - absl::Now();
      if (left <= absl::ZeroDuration()) {
        return absl::DeadlineExceededError(
            absl::StrCat("no answer from chromium to ", method));
      }
      pollfd polled = {answers_, POLLIN, 0};
      poll(&polled, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
      char chunk[65536];
      const ssize_t count = read(answers_, chunk, sizeof(chunk));
      if (count == 0) {
        return absl::UnavailableError(
            absl::StrCat("chromium exited while answering ", method));
      }
      if (count > 0) buffer_.append(chunk, static_cast<size_t>(count));
    }
  }

  const int commands_;
  const int answers_;
  const absl::Time deadline_;
  int last_id_ = 0;
  std::string buffer_;
  std::vector<nlohmann::json> events_;
};

absl::StatusOr<std::string> Drive(DevTools& tools, const PageScript& script) {
  // The page is loaded once attached, so that the script runs in it and
  // not in a blank page the load then replaces.
  absl::StatusOr<nlohmann::json> target =
      tools.Call("Target.createTarget", {{"url", "about:blank"}});
  if (!target.ok()) return target.status();
  absl::StatusOr<nlohmann::json> attached =
      tools.Call("Target.attachToTarget",
                 {{"targetId", (*target)["targetId"]}, {"flatten", true}});
  if (!attached.ok()) return attached.status();
  const std::string session = (*attached)["sessionId"];
  absl::StatusOr<nlohmann::json> enabled =
      tools.Call("Page.enable", nlohmann::json::object(), session);
  if (!enabled.ok()) return enabled.status();
  absl::StatusOr<nlohmann::json> navigated =
      tools.Call("Page.navigate", {{"url", script.url}}, session);
  if (!navigated.ok()) return navigated.status();
  if (navigated->contains("errorText")) {
    return absl::UnavailableError(
        absl::StrCat("chromium cannot load ", script.url, ": ",
                     std::string((*navigated)["errorText"])));
  }
  if (absl::Status loaded = tools.WaitForEvent("Page.loadEventFired");
      !loaded.ok()) {
    return loaded;
  }
  absl::StatusOr<nlohmann::json> value =
      tools.Call("Runtime.evaluate",
                 {{"expression", script.expression},
                  {"awaitPromise", true},
                  {"returnByValue", true}},
                 session);
  if (!value.ok()) return value.status();
  if (value->contains("exceptionDetails")) {
    return absl::InternalError(absl::StrCat(
        "the page's script failed: ", (*value)["exceptionDetails"].dump()));
  }
  const nlohmann::json& result = (*value)["result"];
  if (!result.contains("value") || !result["value"].is_string()) {
    return absl::InternalError(
        absl::StrCat("the page's script gave no string: ", result.dump()));
  }
  const std::string text = result["value"];
  if (!script.screenshot_path.empty()) {
    absl::StatusOr<nlohmann::json> shot =
        tools.Call("Page.captureScreenshot", {{"format", "png"}}, session);
    if (!shot.ok()) return shot.status();
    std::string png;
    if (!absl::Base64Unescape(std::string((*shot)["data"]), &png)) {
      return absl::InternalError("the screenshot is not base64");
    }
    std::ofstream(script.screenshot_path, std::ios::binary) << png;
  }
  // Best effort: Chromium is killed afterwards either way.
  (void)tools.Call("Browser.close", nlohmann::json::object());
  return text;
}

}  // namespace

absl::StatusOr<std::string> Evaluate(const PageScript& script) {
  if (!std::filesystem::exists(kChromium)) {
    return absl::NotFoundError(absl::StrCat(
        kChromium, " is missing: scripts/setup.sh installs Debian's chromium"));
  }
  const char* tmp = getenv("TEST_TMPDIR");
  std::string profile =
      absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/chromium.XXXXXX");
  if (mkdtemp(profile.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("mkdtemp ", profile));
  }
  const std::string log = profile + ".log";
  std::vector<std::string> args = {kChromium,
                                   "--headless",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--disable-dev-shm-usage",
                                   "--no-first-run",
                                   "--disable-extensions",
                                   "--window-size=1200,800",
                                   "--hide-scrollbars",
                                   "--remote-debugging-pipe",
                                   "--user-data-dir=" + profile};
  args.insert(args.end(), script.flags.begin(), script.flags.end());
  args.push_back("about:blank");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  int to_chromium[2];
  int from_chromium[2];
  if (pipe2(to_chromium, O_CLOEXEC) != 0 ||
      pipe2(from_chromium, O_CLOEXEC) != 0) {
    return absl::InternalError("cannot make chromium's pipes");
  }
  const pid_t pid = fork();
  if (pid == 0) {
    const int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int commands = fcntl(to_chromium[0], F_DUPFD, kParkedFd);
    const int answers = fcntl(from_chromium[1], F_DUPFD, kParkedFd);
    dup2(commands, kCommandFd);
    dup2(answers, kAnswerFd);
    if (log_fd >= 0) {
      dup2(log_fd, STDOUT_FILENO);
      dup2(log_fd, STDERR_FILENO);
    }
    setpgid(0, 0);
    execv(kChromium, argv.data());
    _exit(127);
  }
  close(to_chromium[0]);
  close(from_chromium[1]);
  // Without this a Chromium that exits early would end the test with
  // SIGPIPE on the next command.
  signal(SIGPIPE, SIG_IGN);
  absl::Cleanup cleanup = [&] {
    close(to_chromium[1]);
    close(from_chromium[0]);
    if (pid > 0) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    std::error_code ignored;
    std::filesystem::remove_all(profile, ignored);
  };
  if (pid < 0) return absl::InternalError("cannot fork chromium");
  DevTools tools(to_chromium[1], from_chromium[0],
                 absl::Now() + script.deadline);
  absl::StatusOr<std::string> value = Drive(tools, script);
  if (!value.ok()) {
    std::ifstream file(log);
    std::string output((std::istreambuf_iterator<char>(file)),
                       std::istreambuf_iterator<char>());
    return absl::Status(value.status().code(),
                        absl::StrCat(value.status().message(),
                                     "; chromium's output:\n", output));
  }
  return value;
}

}  // namespace sluice::lighthouse::testing
