// The payload of `!tfrt_dist.variable`: a variable held by a parameter
// server. It travels as a plain value (worker_service.proto's VariableRef),
// so a function running on one task can read and update variables that
// another task created (docs/variables.md).
#ifndef SLUICE_DISTRIBUTED_VARIABLE_HANDLE_H_
#define SLUICE_DISTRIBUTED_VARIABLE_HANDLE_H_

#include <string>

#include "sluice/tensor/dtype.h"
#include "sluice/tensor/tensor_shape.h"

namespace sluice::dist {

// A variable: the task that holds it, its name there, and its dtype and
// shape, which never change.
struct VariableHandle {
  std::string task;  // "/job:ps/task:0"
  std::string name;
  DType dtype = DType::kF32;
  TensorShape shape;
};

}  // namespace sluice::dist

#endif  // SLUICE_DISTRIBUTED_VARIABLE_HANDLE_H_
