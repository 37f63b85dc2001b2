// ThreadSanitizer sees only instrumented code. Debian's gRPC, protobuf and
// Abseil are not instrumented, so TSan cannot see how gRPC hands a call's
// memory from the thread that starts it to the thread that completes it,
// and reports gRPC's own header code, generated message code and the
// libraries' intercepted calls (memcpy, new/delete) as races. Debian's Gloo
// is not instrumented either: a transport buffer that one Gloo thread wakes
// (signalException broadcasts its condition variable) and the waiting
// thread then destroys is reported as a race between pthread_cond_broadcast
// and pthread_cond_destroy, both inside libgloo. These entries
// name only that code. Sluice's side of a call stays checked where it
// matters: answers are resolved on the HostContext's work queue, whose
// threads run no gRPC frames.
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
         "race:grpc::*\n"
         "race:grpc_core::*\n"
         "race:grpc_event_engine::*\n"
         "race:google::protobuf::*\n"
         "race:sluice::dist::proto::*\n"
         "race:sluice::ft::proto::*\n"
         "race:sluice::ccl::proto::*\n"
         "race:gloo::*\n"
         "race:absl::*::synchronization_internal::*\n";
}
#endif
