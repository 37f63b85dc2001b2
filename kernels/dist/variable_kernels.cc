// The variable kernels: each sends one request to a parameter server
// through the host's DistributedContext and returns at once, never waiting
// on a host thread; its result is a placeholder of a copied
// AsyncKernelFrame, set when the task answers. Strict: an error operand
// never reaches them, and nothing is sent for it. Failures (no cluster, a
// task that is down or refuses the request) are reported at the op, so
// they name the kernel and its location as well as the task and the
// variable, and keep their failure class.
#include "kernels/dist/variable_kernels.h"

#include <string>
#include <utility>

#include "kernels/dist/distributed_context.h"
#include "sluice/coordinator/variables.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/kernel/async_kernel_frame.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice {
namespace variable_kernels {
namespace {

using dist::VariableClient;
using dist::VariableHandle;

// The host's variable client, or nullptr after reporting why there is none.
VariableClient* Variables(KernelFrame* frame) {
  absl::StatusOr<VariableClient*> client =
      frame->host()
          ->GetOrCreateSharedContext<DistributedContext>()
          .GetVariableClient();
  if (!client.ok()) {
    frame->ReportError(client.status());
    return nullptr;
  }
  return *client;
}

// Sets the kernel's one result to `answer` once the task has answered, or
// reports its error at the kernel. The DistributedContext tracks it, so a
// runner's AwaitIdle waits for it.
template <typename T>
void ResultWhenAnswered(KernelFrame* frame, AsyncValueRef<T> answer) {
  AsyncValueRef<Chain> done =
      frame->host()
          ->GetOrCreateSharedContext<DistributedContext>()
          .BeginOperation();
  AsyncKernelFrame async(frame);
  answer.AndThen([frame = async, answer = answer.CopyRef(),
                  done = std::move(done)]() mutable {
    if (answer.IsError()) {
      frame.ReportError(answer.GetError());
    } else {
      frame.SetResultAt(0, answer.CopyRCRef());
    }
    done.emplace();
  });
}

void CreateVariable(const DenseHostTensor& initial_value, StringAttribute name,
                    KernelFrame* frame) {
  VariableClient* client = Variables(frame);
  if (client == nullptr) return;
  ResultWhenAnswered(frame, client->Create(name.str(), initial_value));
}

void ReadVariable(const VariableHandle& variable, KernelFrame* frame) {
  VariableClient* client = Variables(frame);
  if (client == nullptr) return;
  ResultWhenAnswered(frame, client->Read(variable));
}

void AssignVariable(const VariableHandle& variable,
                    const DenseHostTensor& value, KernelFrame* frame) {
  VariableClient* client = Variables(frame);
  if (client == nullptr) return;
  ResultWhenAnswered(frame, client->Assign(variable, value));
}

void AssignAddVariable(const VariableHandle& variable,
                       const DenseHostTensor& delta, KernelFrame* frame) {
  VariableClient* client = Variables(frame);
  if (client == nullptr) return;
  ResultWhenAnswered(frame, client->AssignAdd(variable, delta));
}

void ApplySgd(const VariableHandle& variable, const DenseHostTensor& gradient,
              Attribute<double> learning_rate, KernelFrame* frame) {
  VariableClient* client = Variables(frame);
  if (client == nullptr) return;
  ResultWhenAnswered(frame,
                     client->ApplySgd(variable, gradient, *learning_rate));
}

void ApplyAdam(const VariableHandle& variable, const DenseHostTensor& gradient,
               Attribute<double> learning_rate, OptionalAttribute<double> beta1,
               OptionalAttribute<double> beta2,
               OptionalAttribute<double> epsilon, KernelFrame* frame) {
  VariableClient* client = Variables(frame);
  if (client == nullptr) return;
  dist::AdamOptions options;
  options.learning_rate = *learning_rate;
  options.beta1 = beta1.value_or(options.beta1);
  options.beta2 = beta2.value_or(options.beta2);
  options.epsilon = epsilon.value_or(options.epsilon);
  ResultWhenAnswered(frame, client->ApplyAdam(variable, gradient, options));
}

}  // namespace
}  // namespace variable_kernels

absl::Status RegisterVariableKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"tfrt_dist.create_variable",
       SLUICE_KERNEL(variable_kernels::CreateVariable)
           .WithAttributeNames({"name"})},
      {"tfrt_dist.read_variable",
       SLUICE_KERNEL(variable_kernels::ReadVariable)},
      {"tfrt_dist.assign_variable",
       SLUICE_KERNEL(variable_kernels::AssignVariable)},
      {"tfrt_dist.assign_add_variable",
       SLUICE_KERNEL(variable_kernels::AssignAddVariable)},
      {"tfrt_dist.apply_sgd", SLUICE_KERNEL(variable_kernels::ApplySgd)
                                  .WithAttributeNames({"learning_rate"})},
      {"tfrt_dist.apply_adam",
       SLUICE_KERNEL(variable_kernels::ApplyAdam)
           .WithAttributeNames({"learning_rate", "beta1", "beta2", "epsilon"})},
  });
}

}  // namespace sluice
