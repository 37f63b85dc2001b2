// The `ts` dialect and `!ts.shape`, the type of a tensor shape. Dialects
// whose ops take or return shapes (tfrt_dht) include this file.

#ifndef SLUICE_DIALECTS_TS_TS_BASE_TD_
#define SLUICE_DIALECTS_TS_TS_BASE_TD_

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"

def Ts_Dialect : Dialect {
  let name = "ts";
  let summary = "tensor shapes";
  let cppNamespace = "::sluice::ts";
  // Same reason as for `tfrt`: the emitter walks one attribute dictionary
  // per op, and the generic form should print the attributes TFRT's would.
  let usePropertiesForAttributes = 0;
  let useDefaultTypePrinterParser = 1;
  // ts.print_shape takes a !tfrt.chain, which may be parsed before any tfrt
  // op has loaded the tfrt dialect.
  let dependentDialects = ["::sluice::tfrt::TfrtDialect"];
}

def Ts_ShapeType : TypeDef<Ts_Dialect, "Shape"> {
  let mnemonic = "shape";
  let summary = "the dimensions of a dense tensor";
}

#endif  // SLUICE_DIALECTS_TS_TS_BASE_TD_
