#include "lib/collective/nccl_unique_id_store.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "lib/collective/store_keys.h"
#include "lib/collective/store_service.grpc.pb.h"
#include "lib/support/grpc_credentials.h"
#include "lib/support/grpc_handshake.h"
#include "lib/support/grpc_liveness.h"
#include "sluice/support/failure.h"

namespace sluice::ccl {
namespace {

constexpr char kUniqueIdKey[] = "nccl_unique_id";

absl::Status StoreError(const grpc::Status& status, const std::string& what,
                        int64_t generation) {
  // Fatal: the store would refuse it again.
  if (HandshakeFailed(status)) {
    return MarkFailureClass(absl::UnavailableError(absl::StrCat(
                                what, " failed: ", HandshakeReason(status))),
                            FailureClass::kFatal);
  }
  absl::Status error(static_cast<absl::StatusCode>(status.error_code()),
                     absl::StrCat(what, " failed: ", status.error_message()));
  if (error.code() == absl::StatusCode::kAborted) {
    return MarkStale(error, generation);
  }
  return MarkFailureClass(error, FailureClass::kRetryable);
}

}  // namespace

absl::StatusOr<ncclUniqueId> ExchangeUniqueId(NcclApi& api,
                                              const std::string& store_address,
                                              int64_t generation, int rank,
                                              absl::Time deadline) {
  // The calls below wait for the store, and would wait out `deadline` on a
  // refused TLS handshake, saying nothing of why.
  if (grpc::Status reached = WaitForServer(store_address, deadline);
      !reached.ok()) {
    return StoreError(reached,
                      absl::StrCat("reaching the store at ", store_address),
                      generation);
  }
  auto stub = proto::KeyValueStore::NewStub(NewLivenessChannel(store_address));
  const std::string key = GenerationKey(generation, kUniqueIdKey);
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(deadline));
  // The store may start after the ranks.
  context.set_wait_for_ready(true);
  ncclUniqueId id;
  if (rank == 0) {
    absl::Status made =
        NcclStatus(api, api.GetUniqueId(&id), "ncclGetUniqueId");
    if (!made.ok()) return made;
    proto::SetRequest request;
    request.set_key(key);
    request.set_value(std::string(id.internal, sizeof(id.internal)));
    proto::SetResponse response;
    grpc::Status status = stub->Set(&context, request, &response);
    if (!status.ok()) {
      return StoreError(
          status,
          absl::StrCat("setting ", key, " in the store at ", store_address),
          generation);
    }
    return id;
  }
  proto::GetRequest request;
  request.add_keys(key);
  request.set_wait(true);
  proto::GetResponse response;
  grpc::Status status = stub->Get(&context, request, &response);
  if (!status.ok()) {
    return StoreError(status,
                      absl::StrCat("waiting for rank 0's ", key,
                                   " in the store at ", store_address),
                      generation);
  }
  if (response.values_size() != 1 ||
      response.values(0).size() != sizeof(id.internal)) {
    return absl::InternalError(absl::StrCat(
        "the store at ", store_address, " holds ", key, " with ",
        response.values_size() == 1 ? response.values(0).size() : 0,
        " bytes, not the ", sizeof(id.internal), " of an ncclUniqueId"));
  }
  std::memcpy(id.internal, response.values(0).data(), sizeof(id.internal));
  return id;
}

}  // namespace sluice::ccl
