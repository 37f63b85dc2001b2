// tfrt_data.repeat_dataset: the input read again from its start, `count`
// times or forever.
#include <cstdint>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sluice/data/datasets.h"

namespace sluice {
namespace data {
namespace {

constexpr int64_t kForever = -1;

class RepeatReader : public ElementReader {
 public:
  RepeatReader(DatasetRef input, int64_t count, HostAllocator* allocator)
      : input_(std::move(input)), count_(count), allocator_(allocator) {}

  absl::StatusOr<bool> Next(Element& element) override {
    absl::StatusOr<int64_t> read =
        AcrossPasses(1, [&](int64_t, int64_t) -> absl::StatusOr<int64_t> {
          absl::StatusOr<bool> more = pass_->Next(element);
          if (!more.ok()) return more.status();
          return *more ? 1 : 0;
        });
    if (!read.ok()) return read.status();
    return *read == 1;
  }

  absl::StatusOr<int64_t> ReadRows(Element& batch, int64_t row,
                                   int64_t count) override {
    return AcrossPasses(count, [&](int64_t done, int64_t wanted) {
      return pass_->ReadRows(batch, row + done, wanted);
    });
  }

  absl::StatusOr<int64_t> Skip(int64_t count) override {
    return AcrossPasses(
        count, [&](int64_t, int64_t wanted) { return pass_->Skip(wanted); });
  }

 private:
  // Takes `wanted` elements with read(done, n), which takes up to n from
  // the current pass and says how many it took; a pass that gives fewer has
  // ended, and the next one starts. Returns how many were taken.
  template <typename Read>
  absl::StatusOr<int64_t> AcrossPasses(int64_t wanted, Read read) {
    int64_t done = 0;
    while (done < wanted && !ended_) {
      if (pass_ == nullptr) {
        if (count_ != kForever && passes_ == count_) {
          ended_ = true;
          break;
        }
        pass_ = input_->MakeReader(allocator_);
        taken_in_pass_ = 0;
      }
      absl::StatusOr<int64_t> taken = read(done, wanted - done);
      if (!taken.ok()) return taken;
      done += *taken;
      taken_in_pass_ += *taken;
      if (done < wanted) {
        pass_.reset();
        ++passes_;
        // An empty input repeated forever would never give an element.
        if (taken_in_pass_ == 0) ended_ = true;
      }
    }
    return done;
  }

  const DatasetRef input_;
  const int64_t count_;
  HostAllocator* const allocator_;
  std::unique_ptr<ElementReader> pass_;
  int64_t passes_ = 0;
  int64_t taken_in_pass_ = 0;
  bool ended_ = false;
};

class RepeatDataset : public Dataset {
 public:
  RepeatDataset(DatasetRef input, int64_t count)
      : input_(std::move(input)), count_(count) {}

  std::unique_ptr<ElementReader> MakeReader(
      HostAllocator* allocator) const override {
    return std::make_unique<RepeatReader>(input_, count_, allocator);
  }

 private:
  const DatasetRef input_;
  const int64_t count_;
};

}  // namespace

absl::StatusOr<DatasetRef> MakeRepeatDataset(DatasetRef input, int64_t count) {
  if (count < kForever) {
    return absl::InvalidArgumentError(absl::StrCat(
        "repeat_dataset: count must be -1 (forever) or at least 0, got ",
        count));
  }
  return std::make_shared<RepeatDataset>(std::move(input), count);
}

}  // namespace data
}  // namespace sluice
