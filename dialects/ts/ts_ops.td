// Ops of the `ts` dialect, with TFRT's names and syntax.

#ifndef SLUICE_DIALECTS_TS_TS_OPS_TD_
#define SLUICE_DIALECTS_TS_TS_OPS_TD_

include "dialects/tfrt/tfrt_base.td"
include "dialects/ts/ts_base.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Ts_Op<string mnemonic, list<Trait> traits = []>
    : Op<Ts_Dialect, mnemonic, traits>;

def Ts_BuildShapeOp : Ts_Op<"build_shape", [Pure]> {
  let summary = "a shape from its dimensions";
  let description = [{
    `%shape = ts.build_shape [4 : i64, 1 : i64]`; `[]` is a scalar's shape.
  }];
  let arguments = (ins I64ArrayAttr:$value);
  let results = (outs Ts_ShapeType:$shape);
  let assemblyFormat = "$value attr-dict";
  let hasVerifier = 1;
}

def Ts_PrintShapeOp : Ts_Op<"print_shape"> {
  let summary = "prints `shape = [d0, d1, ...]` on its own line";
  let arguments = (ins Ts_ShapeType:$shape, Tfrt_ChainType:$chain);
  let assemblyFormat = "operands attr-dict";
}

#endif  // SLUICE_DIALECTS_TS_TS_OPS_TD_
