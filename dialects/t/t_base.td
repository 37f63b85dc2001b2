// The `t` dialect: the type of a dense host tensor, `!t.tensor`. Dialects
// whose ops take or return tensors (tfrt_dht, tfrt_math) include this file.

#ifndef SLUICE_DIALECTS_T_T_BASE_TD_
#define SLUICE_DIALECTS_T_T_BASE_TD_

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"

def T_Dialect : Dialect {
  let name = "t";
  let summary = "the dense host tensor type";
  let cppNamespace = "::sluice::t";
  let useDefaultTypePrinterParser = 1;
}

// The dtype and shape are values the kernels read at run time, not part of
// the type: TFRT programs write one `!t.tensor` for every tensor.
def T_TensorType : TypeDef<T_Dialect, "Tensor"> {
  let mnemonic = "tensor";
  let summary = "a dense host tensor of any dtype and shape";
}

#endif  // SLUICE_DIALECTS_T_T_BASE_TD_
