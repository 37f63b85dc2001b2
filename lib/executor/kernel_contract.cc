#include "lib/executor/kernel_contract.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sluice/bef/format.h"

namespace sluice {
namespace executor_internal {
namespace {

using bef::AttributeType;

// Whether a scalar attribute of type `type` can be read as `element`.
bool ScalarFits(AttributeElement element, AttributeType type) {
  switch (element) {
    case AttributeElement::kNone:
      return false;
    case AttributeElement::kBool:
      return type == AttributeType::kBool;
    case AttributeElement::kInt8:
      return type == AttributeType::kI8;
    case AttributeElement::kUInt8:
      return type == AttributeType::kUI8 || type == AttributeType::kBool;
    case AttributeElement::kInt16:
      return type == AttributeType::kI16;
    case AttributeElement::kUInt16:
      return type == AttributeType::kUI16 || type == AttributeType::kF16 ||
             type == AttributeType::kBF16;
    case AttributeElement::kInt32:
      return type == AttributeType::kI32;
    case AttributeElement::kUInt32:
      return type == AttributeType::kUI32;
    case AttributeElement::kInt64:
      return type == AttributeType::kI64;
    case AttributeElement::kUInt64:
      return type == AttributeType::kUI64;
    case AttributeElement::kFloat:
      return type == AttributeType::kF32;
    case AttributeElement::kDouble:
      return type == AttributeType::kF64;
    case AttributeElement::kComplexFloat:
      return type == AttributeType::kComplex64;
    case AttributeElement::kComplexDouble:
      return type == AttributeType::kComplex128;
  }
  return false;
}

bool Fits(const AttributeRequirement& requirement,
          const bef::SbfAttribute& attribute) {
  const auto code = static_cast<uint32_t>(attribute.type);
  const auto dense_base = static_cast<uint32_t>(AttributeType::kDenseArrayBase);
  switch (requirement.shape) {
    case AttributeShape::kScalar:
      return ScalarFits(requirement.element, attribute.type);
    case AttributeShape::kString:
      return attribute.type == AttributeType::kString;
    case AttributeShape::kDense:
      // `[]` is an empty array of attributes: an empty array of anything.
      if (attribute.type == AttributeType::kArray) return attribute.count == 0;
      return code > dense_base &&
             ScalarFits(requirement.element,
                        static_cast<AttributeType>(code - dense_base));
    case AttributeShape::kAggregate:
      return attribute.type == AttributeType::kArray;
  }
  return false;
}

// A symbol, or a non-empty array of symbols (tfrt.case's branches): it
// names functions, which kernels receive as functions, not as attributes.
bool NamesFunctions(const bef::SbfAttribute& attribute,
                    const bef::SbfProgram& program) {
  if (attribute.type == AttributeType::kSymbol) return true;
  if (attribute.type != AttributeType::kArray || attribute.count == 0) {
    return false;
  }
  const auto* elements = static_cast<const uint32_t*>(attribute.data);
  for (uint32_t i = 0; i < attribute.count; ++i) {
    if (program.GetAttribute(elements[i]).type != AttributeType::kSymbol) {
      return false;
    }
  }
  return true;
}

std::string Count(size_t n, const char* noun) {
  return absl::StrCat(n, " ", noun, n == 1 ? "" : "s");
}

// "takes 2 operands; the op has 1", or "" when the count fits.
std::string CheckCount(const char* noun, uint32_t needed, bool at_least,
                       size_t actual) {
  if (at_least ? actual >= needed : actual == needed) return "";
  return absl::StrCat("takes ", at_least ? "at least " : "",
                      Count(needed, noun), "; the op has ", actual);
}

struct OpAttribute {
  std::string name;
  bef::SbfAttribute value;
  bool taken = false;
};

// Collects what does not fit, each message naming the kernel.
class Problems {
 public:
  Problems(std::string_view kernel_name, std::vector<std::string>& out)
      : prefix_(absl::StrCat("kernel '", std::string(kernel_name), "' ")),
        out_(out) {}
  void Add(const std::string& problem) {
    out_.push_back(absl::StrCat(prefix_, problem));
  }

 private:
  const std::string prefix_;
  std::vector<std::string>& out_;
};

// The i-th attribute parameter takes the op's attribute named names[i]; a
// kernel that reads its frame gets the op's other attributes after them.
std::vector<const void*> BindByName(
    const std::vector<std::string>& names,
    absl::Span<const AttributeRequirement> wanted, bool open,
    std::vector<OpAttribute>& attributes, Problems& problems) {
  std::vector<const void*> bound;
  for (size_t i = 0; i < wanted.size(); ++i) {
    const std::string& name = names[i];
    auto found = std::find_if(
        attributes.begin(), attributes.end(),
        [&](const OpAttribute& attribute) { return attribute.name == name; });
    const std::string type = DescribeAttributeRequirement(wanted[i]);
    if (found == attributes.end()) {
      if (!wanted[i].optional) {
        problems.Add(absl::StrCat("needs attribute '", name, "' (", type,
                                  "); the op has none"));
      }
      bound.push_back(nullptr);
      continue;
    }
    found->taken = true;
    if (!Fits(wanted[i], found->value)) {
      problems.Add(absl::StrCat("needs attribute '", name, "' as ", type,
                                "; the op's is ",
                                bef::AttributeTypeName(found->value.type)));
    }
    bound.push_back(found->value.data);
  }
  for (const OpAttribute& attribute : attributes) {
    if (attribute.taken) continue;
    if (open) {
      bound.push_back(attribute.value.data);
    } else {
      problems.Add(absl::StrCat("takes no attribute '", attribute.name, "'"));
    }
  }
  return bound;
}

// Attribute parameters take the op's attributes in the order the program
// lists them (TFRT's); optional ones left over are null.
std::vector<const void*> BindInOrder(
    absl::Span<const AttributeRequirement> wanted, bool open,
    const std::vector<OpAttribute>& attributes, Problems& problems) {
  const size_t required =
      std::count_if(wanted.begin(), wanted.end(),
                    [](const AttributeRequirement& requirement) {
                      return !requirement.optional;
                    });
  if (attributes.size() < required ||
      (attributes.size() > wanted.size() && !open)) {
    std::vector<std::string> needed;
    for (const AttributeRequirement& requirement : wanted) {
      needed.push_back(DescribeAttributeRequirement(requirement));
    }
    std::vector<std::string> present;
    for (const OpAttribute& attribute : attributes) {
      present.push_back(absl::StrCat("'", attribute.name, "'"));
    }
    problems.Add(absl::StrCat(
        "takes ", Count(wanted.size(), "attribute"),
        wanted.empty() ? ""
                       : absl::StrCat(" (", absl::StrJoin(needed, ", "), ")"),
        "; the op has ",
        attributes.empty() ? "none"
                           : absl::StrCat(attributes.size(), " (",
                                          absl::StrJoin(present, ", "), ")")));
  }
  std::vector<const void*> bound;
  for (size_t i = 0; i < attributes.size(); ++i) {
    if (i < wanted.size() && !Fits(wanted[i], attributes[i].value)) {
      problems.Add(
          absl::StrCat("takes attribute #", i, " as ",
                       DescribeAttributeRequirement(wanted[i]), "; the op's '",
                       attributes[i].name, "' is ",
                       bef::AttributeTypeName(attributes[i].value.type)));
    }
    bound.push_back(attributes[i].value.data);
  }
  while (bound.size() < wanted.size()) bound.push_back(nullptr);
  return bound;
}

}  // namespace

std::vector<const void*> BindKernel(std::string_view kernel_name,
                                    const RegisteredKernel& kernel,
                                    const bef::SbfKernel& op,
                                    const bef::SbfProgram& program,
                                    std::vector<std::string>& problems) {
  const KernelSignature* signature = kernel.signature;
  if (signature == nullptr) {
    std::vector<const void*> bound;
    for (uint32_t reference : op.attributes) {
      bound.push_back(program.AttributeData(reference));
    }
    return bound;
  }

  Problems misfits(kernel_name, problems);
  const bool open = signature->reads_frame;
  auto check_count = [&](const char* noun, uint32_t needed, bool variadic,
                         size_t actual) {
    std::string problem = CheckCount(noun, needed, variadic || open, actual);
    if (!problem.empty()) misfits.Add(problem);
  };
  // Any op may take one more operand than its kernel, a trailing chain that
  // only orders it.
  const size_t operands = op.operands.size();
  if (operands != size_t{signature->num_operands} + 1) {
    check_count("operand", signature->num_operands,
                signature->variadic_operands, operands);
  }
  check_count("result", signature->num_results, signature->variadic_results,
              op.results.size());
  if (!signature->takes_functions && !open && !op.functions.empty()) {
    misfits.Add(absl::StrCat("runs no regions or functions; the op has ",
                             op.functions.size()));
  }

  std::vector<OpAttribute> attributes;
  for (size_t i = 0; i < op.attributes.size(); ++i) {
    bef::SbfAttribute value = program.GetAttribute(op.attributes[i]);
    if (NamesFunctions(value, program)) continue;
    attributes.push_back({std::string(op.attribute_names[i]), value});
  }
  return kernel.attribute_names.empty()
             ? BindInOrder(signature->attributes, open, attributes, misfits)
             : BindByName(kernel.attribute_names, signature->attributes, open,
                          attributes, misfits);
}

}  // namespace executor_internal
}  // namespace sluice
