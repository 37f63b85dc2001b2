// ThreadSanitizer sees only instrumented code. Debian's gRPC, protobuf and
// Abseil are not instrumented, so TSan cannot see how gRPC hands a call's
// memory from the thread that starts it to the thread that completes it,
// and reports gRPC's own header code and the libraries' intercepted calls
// (memcpy, new/delete) as races. Debian's Gloo is not instrumented either:
// a transport buffer that one Gloo thread wakes (signalException broadcasts
// its condition variable) and the waiting thread then destroys is reported
// as a race between pthread_cond_broadcast and pthread_cond_destroy, both
// inside libgloo. The entries below name only those libraries' code: a
// report is dropped when one of its stacks passes through it (TSan matches
// every frame, not just the top one, and gRPC's callback code is inlined
// into ours, so it cannot be named any narrower). Sluice's own code, its
// generated wire messages included, stays checked: a message field that two
// of our threads write without a lock is reported
// (test/unit/distributed/tsan_checks_messages_test.cc). What stays unseen
// is code that gRPC itself calls back, up to the hand-off to a work queue;
// keep those callbacks that short.
//
// An absl::Status shares its message among its copies under a reference
// count. Some copies drop their reference inside libabsl_status.so (a
// status that gets a payload or a new message), where TSan does not see
// the release; when another thread then drops the last reference in our
// code and frees the message, TSan reports every earlier read of it as a
// race with that free. Unref, inlined into our code, names those frees; a
// real use after free of a status still shows under ASan.
#if defined(__SANITIZE_THREAD__)
extern "C" const char* __tsan_default_suppressions() {
  return "called_from_lib:libgrpc.so\n"
         "called_from_lib:libgrpc++.so\n"
         "called_from_lib:libgpr.so\n"
         "called_from_lib:libprotobuf.so\n"
         "called_from_lib:libabsl_status.so\n"
         "called_from_lib:libabsl_cord.so\n"
         "called_from_lib:libabsl_cord_internal.so\n"
         "called_from_lib:libabsl_strings.so\n"
         "called_from_lib:libabsl_str_format_internal.so\n"
         "called_from_lib:libabsl_synchronization.so\n"
         "called_from_lib:libabsl_graphcycles_internal.so\n"
         "called_from_lib:libabsl_time_zone.so\n"
         "called_from_lib:libabsl_random_internal_pool_urbg.so\n"
         // gRPC's TLS: OpenSSL's own locks are not seen.
         "called_from_lib:libssl.so\n"
         "called_from_lib:libcrypto.so\n"
         "race:libcrypto.so\n"
         "race:libssl.so\n"
         "race:grpc::*\n"
         "race:grpc_core::*\n"
         "race:grpc_event_engine::*\n"
         "race:google::protobuf::*\n"
         "race:gloo::*\n"
         "race:absl::*::synchronization_internal::*\n"
         "race:absl::*::Status::Unref\n";
}
#endif
