// The one header a host that embeds Sluice includes: everything to create a
// host, register kernels (the standard `tfrt.*` ones and its own), load a
// compiled program, call its functions and read their results and errors.
// Link //lib/runtime. docs/embedding.md walks through a complete host.
//
//   sluice::HostContext host(on_diagnostic, sluice::CreateMallocAllocator(),
//                            *sluice::CreateWorkQueue("mstd:2,2"));
//   sluice::KernelRegistry& registry = sluice::GetKernelRegistry(&host);
//   sluice::RegisterBasicKernels(&registry);
//   auto program = sluice::Program::LoadFile("prog.sbf", registry);
//   auto results = sluice::CallFunction(*(*program)->GetFunction("main"),
//                                       context, arguments);
//   host.Await(results);
//
// Everything it declares is in namespace sluice; the Abseil types the API
// takes and returns (absl::Status, absl::StatusOr, absl::Span, absl::Time)
// come with it.
#ifndef SLUICE_SLUICE_H_
#define SLUICE_SLUICE_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/diagnostic.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/kernels/basic_kernels.h"
#include "sluice/support/error_util.h"
#include "sluice/support/ref_count.h"

#endif  // SLUICE_SLUICE_H_
