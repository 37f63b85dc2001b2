#include <deque>
#include <string>
#include <utility>

#include "dialects/tfrt/tfrt_dialect.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace sluice {
namespace tfrt {

//===----------------------------------------------------------------------===//
// Helpers shared by region ops
//===----------------------------------------------------------------------===//

mlir::ParseResult ParseRegionWithOperandNames(
    mlir::OpAsmParser& parser, mlir::Region& region,
    llvm::ArrayRef<mlir::OpAsmParser::UnresolvedOperand> names,
    mlir::TypeRange types) {
  // An operand bound twice (`tfrt.if %c, %a, %a`) cannot name two arguments.
  // Both arguments receive the same value, so the body's uses of the name
  // go to the first and later ones get a name no source text can spell.
  std::deque<std::string> hidden_names;
  llvm::DenseSet<std::pair<llvm::StringRef, unsigned>> seen;
  llvm::SmallVector<mlir::OpAsmParser::Argument, 4> args;
  for (auto [name, type] : llvm::zip(names, types)) {
    mlir::OpAsmParser::Argument& arg = args.emplace_back();
    arg.ssaName = name;
    arg.type = type;
    if (!seen.insert({name.name, name.number}).second) {
      hidden_names.push_back("%duplicate operand " +
                             std::to_string(hidden_names.size()));
      arg.ssaName.name = hidden_names.back();
      arg.ssaName.number = 0;
    }
  }
  // Shadowing is safe only because every region op is isolated from above.
  return parser.parseRegion(region, args, /*enableNameShadowing=*/true);
}

void PrintRegionWithOperandNames(mlir::OpAsmPrinter& printer,
                                 mlir::Region& region, mlir::ValueRange names) {
  printer << ' ';
  // An op that failed verification may not have one argument per name; the
  // explicit block arguments keep such output readable.
  bool names_fit =
      !region.empty() && region.front().getNumArguments() == names.size();
  if (names_fit) printer.shadowRegionArgs(region, names);
  printer.printRegion(region, /*printEntryBlockArgs=*/!names_fit);
}

namespace {

std::string TypeList(mlir::TypeRange types) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '(';
  llvm::interleaveComma(types, os);
  os << ')';
  return text;
}

bool SameTypes(mlir::TypeRange lhs, mlir::TypeRange rhs) {
  return llvm::equal(lhs, rhs);
}

}  // namespace

mlir::LogicalResult VerifyRegionSignature(mlir::Operation* op,
                                          mlir::Region& region,
                                          llvm::StringRef region_name,
                                          mlir::TypeRange arg_types,
                                          mlir::TypeRange result_types) {
  mlir::Block& block = region.front();
  if (!SameTypes(block.getArgumentTypes(), arg_types)) {
    return op->emitOpError()
           << "expects the " << region_name << " region to take arguments "
           << TypeList(arg_types) << ", but it takes "
           << TypeList(block.getArgumentTypes());
  }
  auto return_op =
      llvm::dyn_cast_or_null<ReturnOp>(block.empty() ? nullptr : &block.back());
  if (!return_op) {
    return op->emitOpError()
           << "expects the " << region_name << " region to end in tfrt.return";
  }
  if (!SameTypes(return_op.getArgs().getTypes(), result_types)) {
    // TFRT's words first, then what differs.
    return return_op.emitOpError()
           << "operand types don't match '" << op->getName()
           << "' result: it returns "
           << TypeList(return_op.getArgs().getTypes()) << ", '" << op->getName()
           << "' expects " << TypeList(result_types);
  }
  return mlir::success();
}

namespace {

// The names a parsed operand list gives a region: all but the first `skip`.
llvm::ArrayRef<mlir::OpAsmParser::UnresolvedOperand> DropFront(
    llvm::ArrayRef<mlir::OpAsmParser::UnresolvedOperand> operands,
    size_t skip) {
  return operands.size() < skip ? operands.take_front(0)
                                : operands.drop_front(skip);
}

void PrintTypeList(mlir::OpAsmPrinter& printer, mlir::TypeRange types) {
  printer << '(';
  llvm::interleaveComma(types, printer);
  printer << ')';
}

// The custom<ParenTypeList> directive of the ODS formats: `(t1, t2)`, `()`,
// or a single type without parentheses.
mlir::ParseResult parseParenTypeList(mlir::OpAsmParser& parser,
                                     llvm::SmallVectorImpl<mlir::Type>& types) {
  if (failed(parser.parseOptionalLParen())) {
    return parser.parseType(types.emplace_back());
  }
  if (succeeded(parser.parseOptionalRParen())) return mlir::success();
  return mlir::failure(parser.parseTypeList(types) || parser.parseRParen());
}

void printParenTypeList(mlir::OpAsmPrinter& printer, mlir::Operation* op,
                        mlir::TypeRange types) {
  PrintTypeList(printer, types);
}

}  // namespace

mlir::LogicalResult VerifyCallee(mlir::Operation* op,
                                 mlir::SymbolTableCollection& symbol_table,
                                 mlir::FlatSymbolRefAttr callee,
                                 mlir::TypeRange arg_types,
                                 mlir::TypeRange result_types) {
  auto function =
      symbol_table.lookupNearestSymbolFrom<mlir::FunctionOpInterface>(op,
                                                                      callee);
  if (!function) {
    return op->emitOpError() << "'" << callee.getValue()
                             << "' does not reference a valid function";
  }
  if (!SameTypes(function.getArgumentTypes(), arg_types)) {
    return op->emitOpError()
           << "passes " << TypeList(arg_types) << " to '" << callee.getValue()
           << "', which takes " << TypeList(function.getArgumentTypes());
  }
  if (!SameTypes(function.getResultTypes(), result_types)) {
    return op->emitOpError()
           << "expects " << TypeList(result_types) << " from '"
           << callee.getValue() << "', which returns "
           << TypeList(function.getResultTypes());
  }
  return mlir::success();
}

//===----------------------------------------------------------------------===//
// tfrt.merge.chains
//===----------------------------------------------------------------------===//

namespace {

// How far back through defining ops a merge looks for operands another
// operand already waits for; canonicalization runs to a fixed point, so the
// walk must stay cheap on long chains.
constexpr int kMaxCoverWalk = 64;

// Ops whose kernels are strict (they run once every operand is available,
// and an error operand becomes their results' error), so a result of one is
// available only after its operands are. Calls, branches and loops are not,
// and ops MLIR does not know may have non-strict kernels, so only these
// qualify.
bool IsStrict(mlir::Operation* op) {
  return llvm::isa<MergeChainsOp, PrintI1Op, PrintI32Op, PrintI64Op, PrintF32Op,
                   PrintF64Op>(op);
}

// Adds to `covered` the values `value` waits for through strict ops.
void AddCovered(mlir::Value value, llvm::DenseSet<mlir::Value>& covered) {
  llvm::SmallVector<mlir::Value, 8> pending = {value};
  llvm::DenseSet<mlir::Value> visited;
  int steps = 0;
  while (!pending.empty() && steps++ < kMaxCoverWalk) {
    mlir::Operation* op = pending.pop_back_val().getDefiningOp();
    if (op == nullptr || !IsStrict(op)) continue;
    for (mlir::Value operand : op->getOperands()) {
      covered.insert(operand);
      if (visited.insert(operand).second) pending.push_back(operand);
    }
  }
}

// Waiting for a value twice is waiting for it once; a value another operand
// already waits for (`tfrt.print.i32 %x, %ch` waits for `%ch`) needs no wait
// of its own; and a chain merged with nothing else is that chain. TFRT's
// canonicalization also drops every operand used elsewhere in the function,
// but that can drop a wait nothing else makes (a later kernel ordered only
// by the merge), so only waits implied by the operands themselves go.
class SimplifyMergeChains : public mlir::OpRewritePattern<MergeChainsOp> {
 public:
  using OpRewritePattern::OpRewritePattern;

  mlir::LogicalResult matchAndRewrite(
      MergeChainsOp op, mlir::PatternRewriter& rewriter) const override {
    llvm::SmallSetVector<mlir::Value, 4> unique(op.getInputs().begin(),
                                                op.getInputs().end());
    llvm::DenseSet<mlir::Value> covered;
    for (mlir::Value input : unique) AddCovered(input, covered);
    // SSA values cannot wait for each other in a cycle, so at least one
    // operand is kept.
    llvm::SmallVector<mlir::Value, 4> kept;
    for (mlir::Value input : unique) {
      if (!covered.contains(input)) kept.push_back(input);
    }
    if (kept.size() == 1 && kept[0].getType() == op.getType()) {
      rewriter.replaceOp(op, kept[0]);
      return mlir::success();
    }
    if (kept.size() == op.getInputs().size()) return mlir::failure();
    rewriter.modifyOpInPlace(op, [&] { op.getInputsMutable().assign(kept); });
    return mlir::success();
  }
};

}  // namespace

void MergeChainsOp::getCanonicalizationPatterns(
    mlir::RewritePatternSet& results, mlir::MLIRContext* context) {
  results.add<SimplifyMergeChains>(context);
}

//===----------------------------------------------------------------------===//
// Function-based calls and control flow
//===----------------------------------------------------------------------===//

mlir::CallInterfaceCallable CallOp::getCallableForCallee() {
  return getCalleeAttr();
}

void CallOp::setCalleeFromCallable(mlir::CallInterfaceCallable callee) {
  setCalleeAttr(
      llvm::cast<mlir::FlatSymbolRefAttr>(callee.get<mlir::SymbolRefAttr>()));
}

mlir::Operation::operand_range CallOp::getArgOperands() { return getArgs(); }

mlir::MutableOperandRange CallOp::getArgOperandsMutable() {
  return getArgsMutable();
}

mlir::LogicalResult CallOp::verifySymbolUses(
    mlir::SymbolTableCollection& symbol_table) {
  return VerifyCallee(*this, symbol_table, getCalleeAttr(),
                      getArgs().getTypes(), getResultTypes());
}

mlir::LogicalResult CondOp::verifySymbolUses(
    mlir::SymbolTableCollection& symbol_table) {
  for (mlir::FlatSymbolRefAttr fn : {getATrueFnAttr(), getBFalseFnAttr()}) {
    if (mlir::failed(VerifyCallee(*this, symbol_table, fn,
                                  getFnOperands().getTypes(),
                                  getResultTypes()))) {
      return mlir::failure();
    }
  }
  return mlir::success();
}

mlir::LogicalResult CaseOp::verifySymbolUses(
    mlir::SymbolTableCollection& symbol_table) {
  if (getBranches().empty()) return emitOpError("needs at least one branch");
  for (mlir::Attribute branch : getBranches()) {
    auto fn = llvm::dyn_cast<mlir::FlatSymbolRefAttr>(branch);
    if (!fn) {
      return emitOpError() << "branch " << branch
                           << " is not a function symbol reference";
    }
    if (mlir::failed(VerifyCallee(*this, symbol_table, fn,
                                  getBranchOperands().getTypes(),
                                  getResultTypes()))) {
      return mlir::failure();
    }
  }
  return mlir::success();
}

mlir::LogicalResult WhileOp::verifySymbolUses(
    mlir::SymbolTableCollection& symbol_table) {
  if (!SameTypes(getArgs().getTypes(), getResultTypes())) {
    return emitOpError() << "loop values " << TypeList(getArgs().getTypes())
                         << " and results " << TypeList(getResultTypes())
                         << " differ";
  }
  if (getParallelIterationsAttr().getInt() < 1) {
    return emitOpError("needs parallel_iterations of at least 1");
  }
  // The body returns the next loop values and whether to run again.
  llvm::SmallVector<mlir::Type, 4> body_results(getResultTypes());
  body_results.push_back(mlir::IntegerType::get(getContext(), 1));
  return VerifyCallee(*this, symbol_table, getBodyFnAttr(),
                      getArgs().getTypes(), body_results);
}

mlir::LogicalResult OnceOp::verifySymbolUses(
    mlir::SymbolTableCollection& symbol_table) {
  return VerifyCallee(*this, symbol_table, getFunctionAttr(),
                      getArgs().getTypes(), getResultTypes());
}

mlir::LogicalResult ParallelCallI32Op::verifySymbolUses(
    mlir::SymbolTableCollection& symbol_table) {
  // The callee gets its block's [start, end) before the extra operands, and
  // returns a chain when it completes asynchronously.
  mlir::Type i32 = mlir::IntegerType::get(getContext(), 32);
  llvm::SmallVector<mlir::Type, 4> arg_types = {i32, i32};
  llvm::append_range(arg_types, getArgs().getTypes());
  auto function =
      symbol_table.lookupNearestSymbolFrom<mlir::FunctionOpInterface>(
          *this, getCalleeAttr());
  bool async_body = function && function.getResultTypes().size() == 1;
  llvm::SmallVector<mlir::Type, 1> result_types;
  if (async_body) result_types.push_back(getType());
  return VerifyCallee(*this, symbol_table, getCalleeAttr(), arg_types,
                      result_types);
}

//===----------------------------------------------------------------------===//
// tfrt.if
//===----------------------------------------------------------------------===//

// `tfrt.if %cond, %args... [attributes {...}] [: (types) -> (types)]
//    { then } [else { else }]`
mlir::ParseResult IfOp::parse(mlir::OpAsmParser& parser,
                              mlir::OperationState& result) {
  llvm::SmallVector<mlir::OpAsmParser::UnresolvedOperand, 4> operands;
  mlir::FunctionType type;
  llvm::SMLoc operands_loc = parser.getCurrentLocation();
  if (parser.parseOperandList(operands) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes)) {
    return mlir::failure();
  }
  // An if without values to bind or return may leave out `: () -> ()`.
  if (succeeded(parser.parseOptionalColon())) {
    if (parser.parseType(type)) return mlir::failure();
  } else {
    type = parser.getBuilder().getFunctionType({}, {});
  }
  if (operands.empty()) {
    return parser.emitError(operands_loc, "expected a condition operand");
  }
  auto names = DropFront(operands, 1);
  if (parser.resolveOperand(operands[0], parser.getBuilder().getI1Type(),
                            result.operands) ||
      parser.resolveOperands(names, type.getInputs(), operands_loc,
                             result.operands)) {
    return mlir::failure();
  }
  result.addTypes(type.getResults());

  mlir::Region* then_region = result.addRegion();
  mlir::Region* else_region = result.addRegion();
  if (ParseRegionWithOperandNames(parser, *then_region, names,
                                  type.getInputs())) {
    return mlir::failure();
  }
  if (succeeded(parser.parseOptionalKeyword("else"))) {
    return ParseRegionWithOperandNames(parser, *else_region, names,
                                       type.getInputs());
  }
  // Without results there is nothing for an else branch to compute, so the
  // syntax lets it be left out; the IR always has one.
  if (!type.getResults().empty()) {
    return parser.emitError(parser.getCurrentLocation(),
                            "expected 'else' in a tfrt.if with results");
  }
  mlir::OpBuilder builder(parser.getContext());
  mlir::Block* block = builder.createBlock(else_region);
  for (mlir::Type arg_type : type.getInputs()) {
    block->addArgument(arg_type, result.location);
  }
  builder.create<ReturnOp>(result.location, mlir::ValueRange());
  return mlir::success();
}

void IfOp::print(mlir::OpAsmPrinter& printer) {
  printer << ' ' << getCond();
  if (!getArgs().empty()) printer << ", " << getArgs();
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs());
  printer << " : ";
  PrintTypeList(printer, getArgs().getTypes());
  printer << " -> ";
  PrintTypeList(printer, getResultTypes());
  PrintRegionWithOperandNames(printer, getThenRegion(), getArgs());
  printer << " else";
  PrintRegionWithOperandNames(printer, getElseRegion(), getArgs());
}

mlir::LogicalResult IfOp::verify() {
  if (mlir::failed(VerifyRegionSignature(*this, getThenRegion(), "then",
                                         getArgs().getTypes(),
                                         getResultTypes()))) {
    return mlir::failure();
  }
  return VerifyRegionSignature(*this, getElseRegion(), "else",
                               getArgs().getTypes(), getResultTypes());
}

//===----------------------------------------------------------------------===//
// tfrt.repeat.i32
//===----------------------------------------------------------------------===//

// `tfrt.repeat.i32 %n, %args... [attributes {...}] [: types] { body }`
mlir::ParseResult RepeatI32Op::parse(mlir::OpAsmParser& parser,
                                     mlir::OperationState& result) {
  llvm::SmallVector<mlir::OpAsmParser::UnresolvedOperand, 4> operands;
  llvm::SmallVector<mlir::Type, 4> types;
  llvm::SMLoc operands_loc = parser.getCurrentLocation();
  if (parser.parseOperandList(operands) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
      parser.parseOptionalColonTypeList(types)) {
    return mlir::failure();
  }
  if (operands.empty()) {
    return parser.emitError(operands_loc, "expected a trip count operand");
  }
  auto names = DropFront(operands, 1);
  if (parser.resolveOperand(operands[0], parser.getBuilder().getI32Type(),
                            result.operands) ||
      parser.resolveOperands(names, types, operands_loc, result.operands)) {
    return mlir::failure();
  }
  result.addTypes(types);
  return ParseRegionWithOperandNames(parser, *result.addRegion(), names, types);
}

void RepeatI32Op::print(mlir::OpAsmPrinter& printer) {
  printer << ' ' << getTripCount();
  if (!getArgs().empty()) printer << ", " << getArgs();
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs());
  if (!getArgs().empty()) printer << " : " << getArgs().getTypes();
  PrintRegionWithOperandNames(printer, getRegion(), getArgs());
}

mlir::LogicalResult RepeatI32Op::verify() {
  if (!SameTypes(getArgs().getTypes(), getResultTypes())) {
    return emitOpError() << "loop values " << TypeList(getArgs().getTypes())
                         << " and results " << TypeList(getResultTypes())
                         << " differ";
  }
  return VerifyRegionSignature(*this, getRegion(), "body", getArgs().getTypes(),
                               getResultTypes());
}

//===----------------------------------------------------------------------===//
// tfrt.parallel_for.i32
//===----------------------------------------------------------------------===//

// `tfrt.parallel_for.i32 %start to %end fixed %block [, %args...]
//    [attributes {...}] [: types] { body }`; the body's arguments are the
// block's start and end followed by the extra operands.
mlir::ParseResult ParallelForI32Op::parse(mlir::OpAsmParser& parser,
                                          mlir::OperationState& result) {
  mlir::OpAsmParser::UnresolvedOperand start, end, block_size;
  llvm::SmallVector<mlir::OpAsmParser::UnresolvedOperand, 4> operands;
  llvm::SmallVector<mlir::Type, 4> types;
  if (parser.parseOperand(start) || parser.parseKeyword("to") ||
      parser.parseOperand(end) || parser.parseKeyword("fixed") ||
      parser.parseOperand(block_size)) {
    return mlir::failure();
  }
  llvm::SMLoc operands_loc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalComma()) &&
      parser.parseOperandList(operands)) {
    return mlir::failure();
  }
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
      parser.parseOptionalColonTypeList(types)) {
    return mlir::failure();
  }
  mlir::Type i32 = parser.getBuilder().getI32Type();
  if (parser.resolveOperand(start, i32, result.operands) ||
      parser.resolveOperand(end, i32, result.operands) ||
      parser.resolveOperand(block_size, i32, result.operands) ||
      parser.resolveOperands(operands, types, operands_loc, result.operands)) {
    return mlir::failure();
  }
  result.addTypes(ChainType::get(parser.getContext()));

  llvm::SmallVector<mlir::OpAsmParser::UnresolvedOperand, 6> names = {start,
                                                                      end};
  llvm::append_range(names, operands);
  llvm::SmallVector<mlir::Type, 6> arg_types = {i32, i32};
  llvm::append_range(arg_types, types);
  return ParseRegionWithOperandNames(parser, *result.addRegion(), names,
                                     arg_types);
}

void ParallelForI32Op::print(mlir::OpAsmPrinter& printer) {
  printer << ' ' << getStart() << " to " << getEnd() << " fixed "
          << getBlockSize();
  if (!getArgs().empty()) printer << ", " << getArgs();
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs());
  if (!getArgs().empty()) printer << " : " << getArgs().getTypes();
  llvm::SmallVector<mlir::Value, 6> names = {getStart(), getEnd()};
  llvm::append_range(names, getArgs());
  PrintRegionWithOperandNames(printer, getRegion(), names);
}

mlir::LogicalResult ParallelForI32Op::verify() {
  mlir::Type i32 = mlir::IntegerType::get(getContext(), 32);
  llvm::SmallVector<mlir::Type, 6> arg_types = {i32, i32};
  llvm::append_range(arg_types, getArgs().getTypes());
  // A body that completes synchronously returns nothing; an asynchronous one
  // returns the chain that says when it is done.
  mlir::Block& block = getRegion().front();
  auto return_op =
      llvm::dyn_cast_or_null<ReturnOp>(block.empty() ? nullptr : &block.back());
  bool async_body = return_op && !return_op.getArgs().empty();
  llvm::SmallVector<mlir::Type, 1> result_types;
  if (async_body) result_types.push_back(getType());
  return VerifyRegionSignature(*this, getRegion(), "body", arg_types,
                               result_types);
}

//===----------------------------------------------------------------------===//
// tfrt.return
//===----------------------------------------------------------------------===//

// Region ops check the returns of their own regions; only a function's
// return is checked here.
mlir::LogicalResult ReturnOp::verify() {
  auto function =
      llvm::dyn_cast<mlir::FunctionOpInterface>((*this)->getParentOp());
  if (!function) return mlir::success();
  llvm::ArrayRef<mlir::Type> results = function.getResultTypes();
  if (getArgs().size() != results.size()) {
    return emitOpError("has ")
           << getArgs().size() << " operands, but enclosing function returns "
           << results.size();
  }
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip(getArgs().getTypes(), results))) {
    auto [operand_type, result_type] = pair;
    if (operand_type != result_type) {
      // The spec quotes this message without the usual op prefix.
      return emitError() << "type of return operand " << index << " ("
                         << operand_type
                         << ") doesn't match function result type ("
                         << result_type << ")";
    }
  }
  return mlir::success();
}

}  // namespace tfrt
}  // namespace sluice

#define GET_OP_CLASSES
#include "dialects/tfrt/tfrt_ops.cpp.inc"
