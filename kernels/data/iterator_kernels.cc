// tfrt_data.make_iterator and iterator_get_next.
#include <cstddef>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/data/data_kernels_internal.h"
#include "sluice/data/iterator.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/support/error_util.h"

namespace sluice {
namespace data_kernels {
namespace {

using data::IteratorRef;

// Tensors come from the host's allocator, which outlives every program the
// host runs, and so every iterator.
IteratorRef MakeIterator(const data::DatasetRef& dataset, HostContext* host) {
  return std::make_shared<data::Iterator>(*dataset, host->allocator());
}

// On an error every result, the chain included, is that error, so nothing
// ordered after a failed get_next runs.
absl::Status IteratorGetNext(const IteratorRef& iterator, Chain,
                             Result<Chain> out_chain,
                             RemainingResults components) {
  absl::StatusOr<data::Element> element = iterator->GetNext();
  if (!element.ok()) {
    return WithMessagePrefix(element.status(), "iterator_get_next: ");
  }
  if (element->size() != components.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("iterator_get_next: the element has ", element->size(),
                     " components; the op returns ", components.size()));
  }
  for (size_t i = 0; i < element->size(); ++i) {
    components.EmplaceAt<DenseHostTensor>(i, std::move((*element)[i]));
  }
  out_chain.Emplace();
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterIteratorKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"tfrt_data.make_iterator", SLUICE_KERNEL(MakeIterator)},
      {"tfrt_data.iterator_get_next", SLUICE_KERNEL(IteratorGetNext)},
  });
}

}  // namespace data_kernels
}  // namespace sluice
