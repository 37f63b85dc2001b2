// The failure policies of ops whose values come from another process:
// `#tfrt_dist.retry<...>` and `#tfrt_dist.fallback<...>`, their syntax and
// the checks an op that carries one (`on_failure`) makes.
#include <optional>
#include <string>

#include "dialects/tfrt_dist/tfrt_dist_dialect.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "sluice/support/failure.h"

#define GET_ATTRDEF_CLASSES
#include "dialects/tfrt_dist/tfrt_dist_attrs.cpp.inc"

namespace sluice {
namespace tfrt_dist {
namespace {

// Bounds that keep a policy from holding a call (and the step waiting for
// it) for hours: 100 attempts a minute apart at most.
constexpr int64_t kMaxAttempts = 100;
constexpr int64_t kMaxBackoffMs = 60000;

// `[name, name, ...]`, the names kept as written (keyword or string) so
// that the op's verifier, not the parser, reports a name that is no class:
// its message can name the op.
mlir::ArrayAttr ParseClasses(mlir::AsmParser& parser) {
  llvm::SmallVector<mlir::Attribute> names;
  auto parse_one = [&]() -> mlir::ParseResult {
    std::string name;
    if (parser.parseKeywordOrString(&name)) return mlir::failure();
    names.push_back(parser.getBuilder().getStringAttr(name));
    return mlir::success();
  };
  if (parser.parseCommaSeparatedList(mlir::AsmParser::Delimiter::Square,
                                     parse_one,
                                     " in a list of failure classes")) {
    return {};
  }
  return parser.getBuilder().getArrayAttr(names);
}

void PrintClasses(mlir::AsmPrinter& printer, mlir::ArrayAttr classes) {
  printer << "[";
  llvm::interleaveComma(classes, printer, [&](mlir::Attribute name) {
    printer.printKeywordOrString(llvm::cast<mlir::StringAttr>(name).getValue());
  });
  printer << "]";
}

mlir::FlatSymbolRefAttr ParseFunctionName(mlir::AsmParser& parser,
                                          llvm::StringRef attribute) {
  const llvm::SMLoc at = parser.getCurrentLocation();
  mlir::Attribute name;
  if (parser.parseAttribute(name)) return {};
  auto function = llvm::dyn_cast<mlir::FlatSymbolRefAttr>(name);
  if (!function) {
    parser.emitError(at) << attribute
                         << " falls back on a local function (@name), got "
                         << name;
  }
  return function;
}

// `key = value` pairs separated by commas, each key at most once, up to the
// closing `>`; `parse_value(key)` reads the value of a key it knows and
// returns std::nullopt for one it does not.
mlir::ParseResult ParseKeyValues(
    mlir::AsmParser& parser, llvm::StringRef attribute,
    llvm::StringRef known_keys,
    llvm::function_ref<std::optional<mlir::ParseResult>(llvm::StringRef)>
        parse_value) {
  llvm::StringSet<> seen;
  do {
    const llvm::SMLoc at = parser.getCurrentLocation();
    std::string key;
    if (parser.parseKeywordOrString(&key) || parser.parseEqual()) {
      return mlir::failure();
    }
    if (!seen.insert(key).second) {
      return parser.emitError(at)
             << attribute << " gives '" << key << "' more than once";
    }
    std::optional<mlir::ParseResult> parsed = parse_value(key);
    if (!parsed) {
      return parser.emitError(at) << attribute << " has unknown key '" << key
                                  << "'; it takes " << known_keys;
    }
    if (mlir::failed(*parsed)) return mlir::failure();
  } while (mlir::succeeded(parser.parseOptionalComma()));
  return parser.parseGreater();
}

mlir::LogicalResult VerifyClasses(mlir::Operation* op, mlir::ArrayAttr classes,
                                  bool for_retry) {
  if (!classes) return mlir::success();
  for (mlir::Attribute element : classes) {
    auto name = llvm::dyn_cast<mlir::StringAttr>(element);
    if (!name) {
      return op->emitOpError()
             << "on_failure lists " << element
             << " among its classes; a class is a name (retryable, fatal, "
                "stale)";
    }
    std::optional<FailureClass> failure_class =
        ParseFailureClass(name.getValue().str());
    if (!failure_class) {
      return op->emitOpError()
             << "on_failure names unknown failure class '" << name.getValue()
             << "'; the classes are retryable, fatal and stale";
    }
    if (*failure_class == FailureClass::kCancelled) {
      return op->emitOpError()
             << "on_failure must not " << (for_retry ? "retry" : "fall back on")
             << " failures of class cancelled: a cancelled request wants "
             << (for_retry ? "no more attempts" : "no results");
    }
  }
  return mlir::success();
}

mlir::FlatSymbolRefAttr FallbackOf(mlir::Attribute policy) {
  if (auto retry = llvm::dyn_cast_or_null<RetryAttr>(policy)) {
    return retry.getFallback();
  }
  if (auto fallback = llvm::dyn_cast_or_null<FallbackAttr>(policy)) {
    return fallback.getFunction();
  }
  return {};
}

std::string Signature(mlir::TypeRange arguments, mlir::TypeRange results) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "(";
  llvm::interleaveComma(arguments, os);
  os << ") -> (";
  llvm::interleaveComma(results, os);
  os << ")";
  return text;
}

}  // namespace

void TfrtDistDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/tfrt_dist/tfrt_dist_attrs.cpp.inc"
      >();
}

mlir::Attribute RetryAttr::parse(mlir::AsmParser& parser, mlir::Type) {
  const llvm::SMLoc at = parser.getCurrentLocation();
  std::optional<int64_t> max;
  mlir::ArrayAttr classes;
  int64_t backoff_ms = 0;
  mlir::FlatSymbolRefAttr fallback;
  auto parse_value =
      [&](llvm::StringRef key) -> std::optional<mlir::ParseResult> {
    if (key == "max") {
      int64_t value = 0;
      if (parser.parseInteger(value)) return mlir::failure();
      max = value;
      return mlir::success();
    }
    if (key == "backoff_ms") return parser.parseInteger(backoff_ms);
    if (key == "classes") {
      classes = ParseClasses(parser);
      return mlir::success(static_cast<bool>(classes));
    }
    if (key == "fallback") {
      fallback = ParseFunctionName(parser, "#tfrt_dist.retry");
      return mlir::success(static_cast<bool>(fallback));
    }
    return std::nullopt;
  };
  if (parser.parseLess() ||
      ParseKeyValues(parser, "#tfrt_dist.retry",
                     "max, classes, backoff_ms and fallback", parse_value)) {
    return {};
  }
  if (!max) {
    parser.emitError(at) << "#tfrt_dist.retry needs 'max', the number of "
                            "attempts in all";
    return {};
  }
  return RetryAttr::get(parser.getContext(), *max, classes, backoff_ms,
                        fallback);
}

void RetryAttr::print(mlir::AsmPrinter& printer) const {
  printer << "<max = " << getMax();
  if (getClasses()) {
    printer << ", classes = ";
    PrintClasses(printer, getClasses());
  }
  if (getBackoffMs() != 0) printer << ", backoff_ms = " << getBackoffMs();
  if (getFallback()) printer << ", fallback = " << getFallback();
  printer << ">";
}

mlir::Attribute FallbackAttr::parse(mlir::AsmParser& parser, mlir::Type) {
  mlir::FlatSymbolRefAttr function;
  mlir::ArrayAttr classes;
  if (parser.parseLess()) return {};
  function = ParseFunctionName(parser, "#tfrt_dist.fallback");
  if (!function) return {};
  if (mlir::succeeded(parser.parseOptionalGreater())) {
    return FallbackAttr::get(parser.getContext(), function, classes);
  }
  if (parser.parseComma()) return {};
  auto parse_value =
      [&](llvm::StringRef key) -> std::optional<mlir::ParseResult> {
    if (key != "classes") return std::nullopt;
    classes = ParseClasses(parser);
    return mlir::success(static_cast<bool>(classes));
  };
  if (ParseKeyValues(parser, "#tfrt_dist.fallback", "classes", parse_value)) {
    return {};
  }
  return FallbackAttr::get(parser.getContext(), function, classes);
}

void FallbackAttr::print(mlir::AsmPrinter& printer) const {
  printer << "<" << getFunction();
  if (getClasses()) {
    printer << ", classes = ";
    PrintClasses(printer, getClasses());
  }
  printer << ">";
}

mlir::LogicalResult VerifyFailurePolicy(mlir::Operation* op,
                                        mlir::Attribute policy, bool may_retry,
                                        llvm::StringRef why_no_retry) {
  if (!policy) return mlir::success();
  if (auto fallback = llvm::dyn_cast<FallbackAttr>(policy)) {
    return VerifyClasses(op, fallback.getClasses(), /*for_retry=*/false);
  }
  auto retry = llvm::cast<RetryAttr>(policy);
  if (!may_retry) {
    return op->emitOpError()
           << "cannot retry (" << why_no_retry
           << "); its on_failure may only be a #tfrt_dist.fallback";
  }
  if (retry.getMax() < 1 || retry.getMax() > kMaxAttempts) {
    return op->emitOpError()
           << "on_failure max must be from 1 to " << kMaxAttempts
           << " attempts, got " << retry.getMax();
  }
  if (retry.getBackoffMs() < 0 || retry.getBackoffMs() > kMaxBackoffMs) {
    return op->emitOpError()
           << "on_failure backoff_ms must be from 0 to " << kMaxBackoffMs
           << ", got " << retry.getBackoffMs();
  }
  return VerifyClasses(op, retry.getClasses(), /*for_retry=*/true);
}

mlir::LogicalResult VerifyFailurePolicyFallback(
    mlir::Operation* op, mlir::Attribute policy, mlir::TypeRange arguments,
    mlir::TypeRange results, mlir::SymbolTableCollection& symbol_table) {
  mlir::FlatSymbolRefAttr name = FallbackOf(policy);
  if (!name) return mlir::success();
  auto function =
      symbol_table.lookupNearestSymbolFrom<mlir::FunctionOpInterface>(op, name);
  if (!function) {
    return op->emitOpError() << "on_failure falls back on '" << name.getValue()
                             << "', which is not a function of this module";
  }
  if (llvm::equal(function.getArgumentTypes(), arguments) &&
      llvm::equal(function.getResultTypes(), results)) {
    return mlir::success();
  }
  return op->emitOpError() << "on_failure falls back on '" << name.getValue()
                           << "' of type "
                           << Signature(function.getArgumentTypes(),
                                        function.getResultTypes())
                           << ", but the op needs "
                           << Signature(arguments, results);
}

}  // namespace tfrt_dist
}  // namespace sluice
