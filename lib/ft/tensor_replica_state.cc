#include "lib/ft/tensor_replica_state.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sluice/tensor/dtype.h"
#include "sluice/tensor/tensor_shape.h"

namespace sluice::ft {
namespace {

constexpr char kMagic[4] = {'S', 'L', 'T', 'S'};

template <typename T>
void Append(std::string* out, T value) {
  out->append(reinterpret_cast<const char*>(&value), sizeof(value));
}

// Reads the fields of the format in order, refusing to read past the end.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : rest_(bytes) {}

  template <typename T>
  bool Read(T* value) {
    if (rest_.size() < sizeof(T)) return false;
    std::memcpy(value, rest_.data(), sizeof(T));
    rest_.remove_prefix(sizeof(T));
    return true;
  }
  std::optional<std::string_view> Take(uint64_t n) {
    if (rest_.size() < n) return std::nullopt;
    std::string_view taken = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return taken;
  }
  size_t left() const { return rest_.size(); }

 private:
  std::string_view rest_;
};

absl::Status Malformed(size_t index, std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("replica state: tensor #", index, ": ", std::string(why)));
}

}  // namespace

absl::StatusOr<std::string> SerializeTensors(
    absl::Span<const DenseHostTensor> tensors) {
  size_t total = sizeof(kMagic) + sizeof(uint32_t);
  for (const DenseHostTensor& tensor : tensors) {
    total += 2 + 8 * tensor.shape().rank() + 8 + tensor.num_bytes();
  }
  std::string out;
  out.reserve(total);
  out.append(kMagic, sizeof(kMagic));
  Append(&out, static_cast<uint32_t>(tensors.size()));
  for (size_t i = 0; i < tensors.size(); ++i) {
    const DenseHostTensor& tensor = tensors[i];
    if (tensor.raw_data() == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "replica state: tensor #", i, " was never assigned (no buffer)"));
    }
    Append(&out, static_cast<uint8_t>(tensor.dtype()));
    Append(&out, static_cast<uint8_t>(tensor.shape().rank()));
    for (int64_t dim : tensor.shape().dims()) Append(&out, dim);
    Append(&out, static_cast<uint64_t>(tensor.num_bytes()));
    out.append(static_cast<const char*>(tensor.raw_data()), tensor.num_bytes());
  }
  return out;
}

absl::StatusOr<std::vector<DenseHostTensor>> ParseTensors(
    std::string_view bytes, HostAllocator* allocator) {
  Reader reader(bytes);
  std::optional<std::string_view> magic = reader.Take(sizeof(kMagic));
  uint32_t count = 0;
  if (!magic || std::memcmp(magic->data(), kMagic, sizeof(kMagic)) != 0 ||
      !reader.Read(&count)) {
    return absl::InvalidArgumentError(
        "replica state: the bytes do not start with the \"SLTS\" header");
  }
  std::vector<DenseHostTensor> tensors;
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t dtype_byte = 0, rank = 0;
    if (!reader.Read(&dtype_byte) || !reader.Read(&rank)) {
      return Malformed(i, "truncated before its dtype and rank");
    }
    std::optional<DType> dtype = DTypeFromByte(dtype_byte);
    if (!dtype) return Malformed(i, absl::StrCat("unknown dtype ", dtype_byte));
    if (rank > TensorShape::kMaxRank) {
      return Malformed(
          i, absl::StrCat("rank ", rank, " is over ", TensorShape::kMaxRank));
    }
    std::vector<int64_t> dims(rank);
    for (int64_t& dim : dims) {
      if (!reader.Read(&dim)) return Malformed(i, "truncated in its shape");
    }
    absl::StatusOr<TensorShape> shape = TensorShape::Create(dims);
    if (!shape.ok()) return Malformed(i, std::string(shape.status().message()));
    uint64_t size = 0;
    if (!reader.Read(&size)) return Malformed(i, "truncated before its size");
    // Divides rather than multiplies, so that no shape overflows the check.
    const uint64_t element = DTypeSize(*dtype);
    if (size % element != 0 ||
        size / element != static_cast<uint64_t>(shape->num_elements())) {
      return Malformed(i, absl::StrCat(size, " bytes for ", DTypeName(*dtype),
                                       " ", shape->ToString()));
    }
    std::optional<std::string_view> data = reader.Take(size);
    if (!data) {
      return Malformed(i,
                       absl::StrCat("truncated: ", size, " bytes announced, ",
                                    reader.left(), " left"));
    }
    if (*dtype == DType::kI1) {
      for (char c : *data) {
        if (c != 0 && c != 1)
          return Malformed(i, "an i1 element is not 0 or 1");
      }
    }
    absl::StatusOr<DenseHostTensor> tensor =
        DenseHostTensor::Create(*dtype, *std::move(shape), allocator);
    if (!tensor.ok()) return tensor.status();
    if (size > 0) std::memcpy(tensor->raw_data(), data->data(), size);
    tensors.push_back(*std::move(tensor));
  }
  if (reader.left() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "replica state: ", reader.left(), " bytes after the last tensor"));
  }
  return tensors;
}

void TensorReplicaState::Set(std::vector<DenseHostTensor> tensors) {
  std::lock_guard<std::mutex> lock(mu_);
  tensors_ = std::move(tensors);
}

std::vector<DenseHostTensor> TensorReplicaState::Get() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tensors_;
}

absl::StatusOr<std::string> TensorReplicaState::Save() {
  // Copies share buffers: serializing outside the lock lets Set go on.
  return SerializeTensors(Get());
}

absl::Status TensorReplicaState::Load(std::string_view bytes) {
  absl::StatusOr<std::vector<DenseHostTensor>> tensors =
      ParseTensors(bytes, allocator_);
  if (!tensors.ok()) return tensors.status();
  Set(*std::move(tensors));
  return absl::OkStatus();
}

}  // namespace sluice::ft
