#include "dialects/ht/ht_dialect.h"

#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/DialectImplementation.h"

// Generated definitions of the dialect class and its type.
#include "dialects/ht/ht_dialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/ht/ht_types.cpp.inc"

namespace sluice {
namespace ht {

void HtDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/ht/ht_types.cpp.inc"
      >();
}

}  // namespace ht
}  // namespace sluice
