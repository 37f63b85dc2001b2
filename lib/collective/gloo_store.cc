#include "lib/collective/gloo_store.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gloo/common/error.h"
#include "lib/collective/store_keys.h"

namespace sluice::ccl {
namespace {

absl::Status FromGrpc(const grpc::Status& status) {
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      status.error_message());
}

}  // namespace

GlooStore::GlooStore(std::shared_ptr<grpc::Channel> channel, int64_t generation,
                     std::string prefix, absl::Duration timeout)
    : stub_(proto::KeyValueStore::NewStub(std::move(channel))),
      generation_(generation),
      prefix_(std::move(prefix)),
      timeout_(timeout) {}

void GlooStore::set(const std::string& key, const std::vector<char>& data) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout_));
  context.set_wait_for_ready(true);
  proto::SetRequest request;
  request.set_key(GenerationKey(generation_, prefix_ + key));
  request.set_value(std::string(data.begin(), data.end()));
  proto::SetResponse response;
  grpc::Status status = stub_->Set(&context, request, &response);
  if (!status.ok()) {
    Fail(absl::Status(FromGrpc(status).code(),
                      absl::StrCat("rendezvous store: setting ", request.key(),
                                   " failed: ", status.error_message())));
  }
}

std::vector<char> GlooStore::get(const std::string& key) {
  proto::GetResponse response;
  grpc::Status status = Get({key}, /*omit_values=*/false, timeout_, &response);
  if (!status.ok() || response.values_size() != 1) {
    Fail(absl::Status(
        status.ok() ? absl::StatusCode::kInternal : FromGrpc(status).code(),
        absl::StrCat(
            "rendezvous store: getting ",
            GenerationKey(generation_, prefix_ + key), " failed: ",
            status.ok() ? "the answer has no value" : status.error_message())));
  }
  const std::string& value = response.values(0);
  return std::vector<char>(value.begin(), value.end());
}

void GlooStore::wait(const std::vector<std::string>& keys) {
  wait(keys, absl::ToChronoMilliseconds(timeout_));
}

void GlooStore::wait(const std::vector<std::string>& keys,
                     const std::chrono::milliseconds& timeout) {
  proto::GetResponse response;
  grpc::Status status =
      Get(keys, /*omit_values=*/true, absl::FromChrono(timeout), &response);
  if (!status.ok()) {
    Fail(absl::Status(FromGrpc(status).code(),
                      absl::StrCat("rendezvous store: waiting for ",
                                   absl::StrJoin(Keys(keys), ", "),
                                   " failed: ", status.error_message())));
  }
}

absl::Status GlooStore::error() const {
  absl::MutexLock lock(&mu_);
  return error_;
}

void GlooStore::Fail(absl::Status status) {
  std::string message(status.message());
  {
    absl::MutexLock lock(&mu_);
    if (error_.ok()) error_ = std::move(status);
  }
  throw gloo::IoException(message);
}

std::vector<std::string> GlooStore::Keys(
    const std::vector<std::string>& names) const {
  std::vector<std::string> keys;
  keys.reserve(names.size());
  for (const std::string& name : names) {
    keys.push_back(GenerationKey(generation_, prefix_ + name));
  }
  return keys;
}

grpc::Status GlooStore::Get(const std::vector<std::string>& names,
                            bool omit_values, absl::Duration timeout,
                            proto::GetResponse* response) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  // The store may start after the ranks: wait for it within the timeout.
  context.set_wait_for_ready(true);
  proto::GetRequest request;
  for (std::string& key : Keys(names)) request.add_keys(std::move(key));
  request.set_wait(true);
  request.set_omit_values(omit_values);
  return stub_->Get(&context, request, response);
}

}  // namespace sluice::ccl
