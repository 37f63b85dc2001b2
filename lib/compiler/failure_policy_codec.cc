#include "lib/compiler/failure_policy_codec.h"

#include <cstdint>
#include <optional>
#include <string>

#include "dialects/tfrt_dist/tfrt_dist_dialect.h"
#include "llvm/ADT/SmallVector.h"
#include "mlir/IR/Builders.h"
#include "sluice/bef/failure_policy.h"
#include "sluice/support/failure.h"

namespace sluice {
namespace compiler_internal {
namespace {

// Codes rather than names, so that a kernel reads the policy with no
// string to parse.
std::optional<mlir::Attribute> LowerClasses(mlir::Builder& builder,
                                            mlir::ArrayAttr classes) {
  if (!classes) return mlir::Attribute(builder.getUnitAttr());
  llvm::SmallVector<int32_t> codes;
  for (mlir::Attribute element : classes) {
    auto name = llvm::dyn_cast<mlir::StringAttr>(element);
    if (!name) return std::nullopt;
    std::optional<FailureClass> failure_class =
        ParseFailureClass(name.getValue().str());
    if (!failure_class) return std::nullopt;
    codes.push_back(static_cast<int32_t>(*failure_class));
  }
  return mlir::Attribute(builder.getDenseI32ArrayAttr(codes));
}

// The names back; nullopt for a code that is no class. A null array
// stands for unit (the default).
std::optional<mlir::ArrayAttr> RaiseClasses(mlir::Attribute lowered) {
  if (llvm::isa<mlir::UnitAttr>(lowered)) return mlir::ArrayAttr();
  auto codes = llvm::dyn_cast<mlir::DenseI32ArrayAttr>(lowered);
  if (!codes) return std::nullopt;
  mlir::Builder builder(lowered.getContext());
  llvm::SmallVector<mlir::Attribute> names;
  for (int32_t code : codes.asArrayRef()) {
    if (code < 0 || code > UINT8_MAX) return std::nullopt;
    const auto failure_class = static_cast<FailureClass>(code);
    const std::string name(FailureClassName(failure_class));
    // FailureClassName names an unknown code as some class; only a code
    // that names itself is one.
    if (ParseFailureClass(name) != failure_class) return std::nullopt;
    names.push_back(builder.getStringAttr(name));
  }
  return builder.getArrayAttr(names);
}

std::optional<int64_t> GetI64(mlir::Attribute attribute) {
  auto integer = llvm::dyn_cast<mlir::IntegerAttr>(attribute);
  if (!integer || !integer.getType().isSignlessInteger(64)) return std::nullopt;
  return integer.getInt();
}

}  // namespace

mlir::ArrayAttr LowerFailurePolicy(mlir::Attribute attribute) {
  mlir::Builder builder(attribute.getContext());
  mlir::Attribute unit = builder.getUnitAttr();
  auto lower = [&](std::string_view tag, int64_t max, mlir::ArrayAttr classes,
                   int64_t backoff_ms,
                   mlir::FlatSymbolRefAttr fallback) -> mlir::ArrayAttr {
    std::optional<mlir::Attribute> codes = LowerClasses(builder, classes);
    if (!codes) return {};
    return builder.getArrayAttr(
        {builder.getStringAttr(llvm::StringRef(tag.data(), tag.size())),
         builder.getI64IntegerAttr(max), *codes,
         builder.getI64IntegerAttr(backoff_ms),
         fallback ? mlir::Attribute(fallback) : unit});
  };
  if (auto retry = llvm::dyn_cast<tfrt_dist::RetryAttr>(attribute)) {
    return lower(bef::kRetryTag, retry.getMax(), retry.getClasses(),
                 retry.getBackoffMs(), retry.getFallback());
  }
  if (auto fallback = llvm::dyn_cast<tfrt_dist::FallbackAttr>(attribute)) {
    return lower(bef::kFallbackTag, 1, fallback.getClasses(), 0,
                 fallback.getFunction());
  }
  return {};
}

mlir::Attribute RaiseFailurePolicy(mlir::ArrayAttr array) {
  if (array.size() != bef::kPolicySize) return {};
  auto tag = llvm::dyn_cast<mlir::StringAttr>(array[bef::kPolicyTag]);
  std::optional<int64_t> max = GetI64(array[bef::kPolicyMaxAttempts]);
  std::optional<mlir::ArrayAttr> classes =
      RaiseClasses(array[bef::kPolicyClasses]);
  std::optional<int64_t> backoff_ms = GetI64(array[bef::kPolicyBackoffMs]);
  mlir::Attribute last = array[bef::kPolicyFallback];
  auto fallback = llvm::dyn_cast<mlir::FlatSymbolRefAttr>(last);
  if (!tag || !max || !classes || !backoff_ms ||
      (!fallback && !llvm::isa<mlir::UnitAttr>(last))) {
    return {};
  }
  mlir::MLIRContext* context = array.getContext();
  const std::string_view name(tag.getValue().data(), tag.getValue().size());
  if (name == bef::kRetryTag) {
    return tfrt_dist::RetryAttr::get(context, *max, *classes, *backoff_ms,
                                     fallback);
  }
  if (name == bef::kFallbackTag && *max == 1 && *backoff_ms == 0 && fallback) {
    return tfrt_dist::FallbackAttr::get(context, fallback, *classes);
  }
  return {};
}

}  // namespace compiler_internal
}  // namespace sluice
