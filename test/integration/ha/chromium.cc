#include "test/integration/ha/chromium.h"

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <regex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "test/integration/ha/logged_process.h"

namespace sluice::lighthouse::testing {
namespace {

constexpr char kChromium[] = "/usr/bin/chromium";
// Chromium's own start-up is slow under load; the page's budget is virtual.
constexpr absl::Duration kDeadline = absl::Seconds(90);

struct ChromiumOutput {
  std::vector<std::string> stdout_lines;
  std::vector<std::string> all_lines;  // stderr's diagnostics included
};

// Runs Chromium with `flags` and `url`.
absl::StatusOr<ChromiumOutput> RunChromium(std::vector<std::string> flags,
                                           const std::string& url,
                                           absl::Duration budget) {
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
  std::vector<std::string> argv = {
      kChromium,
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--no-first-run",
      "--disable-extensions",
      "--user-data-dir=" + profile,
      absl::StrCat("--virtual-time-budget=",
                   absl::ToInt64Milliseconds(budget))};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back(url);
  absl::StatusOr<std::unique_ptr<LoggedProcess>> chromium =
      LoggedProcess::Start("chromium", argv);
  if (!chromium.ok()) return chromium.status();
  const bool exited = (*chromium)->WaitForExit(kDeadline);
  ChromiumOutput output{(*chromium)->StdoutLines(), (*chromium)->Lines()};
  chromium->reset();
  std::error_code ignored;
  std::filesystem::remove_all(profile, ignored);
  if (!exited) {
    return absl::DeadlineExceededError(
        absl::StrCat("chromium did not finish ", url, " within ",
                     absl::FormatDuration(kDeadline), "; its output:\n",
                     absl::StrJoin(output.all_lines, "\n")));
  }
  return output;
}

}  // namespace

absl::StatusOr<std::string> DumpDom(const std::string& url,
                                    absl::Duration budget) {
  absl::StatusOr<ChromiumOutput> output =
      RunChromium({"--dump-dom"}, url, budget);
  if (!output.ok()) return output.status();
  std::string dom = absl::StrJoin(output->stdout_lines, "\n");
  if (dom.find("</html>") == std::string::npos) {
    return absl::InternalError(
        absl::StrCat("chromium printed no DOM for ", url, "; its output:\n",
                     absl::StrJoin(output->all_lines, "\n")));
  }
  return dom;
}

absl::Status Screenshot(const std::string& url, const std::string& path,
                        absl::Duration budget) {
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  absl::StatusOr<ChromiumOutput> output = RunChromium(
      {"--screenshot=" + path, "--window-size=1200,800", "--hide-scrollbars"},
      url, budget);
  if (!output.ok()) return output.status();
  if (!std::filesystem::exists(path) || std::filesystem::file_size(path) == 0) {
    return absl::InternalError(absl::StrCat(
        "chromium wrote no screenshot of ", url, " to ", path,
        "; its output:\n", absl::StrJoin(output->all_lines, "\n")));
  }
  return absl::OkStatus();
}

std::map<std::string, std::string> ReplicaRowClasses(const std::string& dom) {
  std::map<std::string, std::string> rows;
  static const std::regex* const row = new std::regex("<tr [^>]*>");
  static const std::regex* const id =
      new std::regex("data-replica-id=\"([^\"]*)\"");
  static const std::regex* const classes = new std::regex("class=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), *row);
       it != std::sregex_iterator(); ++it) {
    const std::string tag = it->str();
    std::smatch id_match, class_match;
    if (std::regex_search(tag, id_match, *id) &&
        std::regex_search(tag, class_match, *classes)) {
      rows[id_match[1]] = class_match[1];
    }
  }
  return rows;
}

std::string ElementText(const std::string& dom, const std::string& id) {
  const std::regex element("id=\"" + id + "\"[^>]*>([^<]*)<");
  std::smatch match;
  return std::regex_search(dom, match, element) ? match[1].str() : "";
}

}  // namespace sluice::lighthouse::testing
