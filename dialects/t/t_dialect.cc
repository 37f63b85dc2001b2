#include "dialects/t/t_dialect.h"

#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/DialectImplementation.h"

// Generated definitions of the dialect class and its type.
#include "dialects/t/t_dialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/t/t_types.cpp.inc"

namespace sluice {
namespace t {

void TDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/t/t_types.cpp.inc"
      >();
}

}  // namespace t
}  // namespace sluice
