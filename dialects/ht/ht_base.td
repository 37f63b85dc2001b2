// The `ht` dialect: the type of a host buffer, `!ht.host_buffer`. Dialects
// whose ops take or return buffers (tfrt_dht) include this file.

#ifndef SLUICE_DIALECTS_HT_HT_BASE_TD_
#define SLUICE_DIALECTS_HT_HT_BASE_TD_

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"

def Ht_Dialect : Dialect {
  let name = "ht";
  let summary = "the host buffer type";
  let cppNamespace = "::sluice::ht";
  let useDefaultTypePrinterParser = 1;
}

def Ht_HostBufferType : TypeDef<Ht_Dialect, "HostBuffer"> {
  let mnemonic = "host_buffer";
  let summary = "reference-counted bytes from the host allocator";
}

#endif  // SLUICE_DIALECTS_HT_HT_BASE_TD_
