// The `tfrt` dialect and its types. Other dialects' ODS files include this
// one for `!tfrt.chain` and the op base class.

#ifndef SLUICE_DIALECTS_TFRT_TFRT_BASE_TD_
#define SLUICE_DIALECTS_TFRT_TFRT_BASE_TD_

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"

def Tfrt_Dialect : Dialect {
  let name = "tfrt";
  let summary = "core host ops: constants, arithmetic, chains, calls, control flow";
  let cppNamespace = "::sluice::tfrt";

  // The emitter and the decompiler walk one attribute dictionary per op;
  // properties would split it and change the generic form TFRT tools print.
  let usePropertiesForAttributes = 0;

  // Unknown `!tfrt.X` types fall back to opaque types, so the parser hooks are
  // written by hand around the generated ones.
  let useDefaultTypePrinterParser = 0;
  let extraClassDeclaration = [{
    ::mlir::Type parseType(::mlir::DialectAsmParser &parser) const override;
    void printType(::mlir::Type type,
                   ::mlir::DialectAsmPrinter &printer) const override;
  }];
}

class Tfrt_Type<string name, string type_mnemonic>
    : TypeDef<Tfrt_Dialect, name> {
  let mnemonic = type_mnemonic;
}

def Tfrt_ChainType : Tfrt_Type<"Chain", "chain"> {
  let summary = "an ordering token for side effects";
}

def Tfrt_StringType : Tfrt_Type<"String", "string"> {
  let summary = "a host std::string";
}

class Tfrt_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tfrt_Dialect, mnemonic, traits>;

#endif  // SLUICE_DIALECTS_TFRT_TFRT_BASE_TD_
