#include "reference/random_tensor.hpp"

#include <cstring>

#include "core/float_bits.hpp"

namespace fvk::ref {

HostTensor random_bits(DType dtype, const Shape& shape, std::mt19937_64& rng) {
  HostTensor t = HostTensor::zeros(dtype, shape);
  for (std::size_t i = 0; i < t.data.size(); i += 8) {
    const std::uint64_t r = rng();
    std::memcpy(t.data.data() + i, &r, std::min<std::size_t>(8, t.data.size() - i));
  }
  if (dtype == DType::Bool)
    for (auto& b : t.data) b = static_cast<std::byte>(static_cast<unsigned>(b) & 1u);
  return t;
}

HostTensor random_values(DType dtype, const Shape& shape, std::mt19937_64& rng) {
  HostTensor t = HostTensor::zeros(dtype, shape);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> small(-100, 100);
  const std::size_t n = t.numel();
  for (std::size_t i = 0; i < n; ++i) {
    switch (dtype) {
      case DType::F64: t.set<double>(i, unit(rng)); break;
      case DType::F32: t.set<float>(i, static_cast<float>(unit(rng))); break;
      case DType::F16:
        t.set<std::uint16_t>(i, static_cast<std::uint16_t>(detail::encode_float(unit(rng), detail::kF16)));
        break;
      case DType::BF16:
        t.set<std::uint16_t>(i, static_cast<std::uint16_t>(detail::encode_float(unit(rng), detail::kBF16)));
        break;
      case DType::Bool: t.set<std::uint8_t>(i, static_cast<std::uint8_t>(rng() & 1u)); break;
      default: {
        const std::int64_t v = small(rng);
        std::memcpy(t.data.data() + i * t.elem_bytes(), &v, t.elem_bytes());  // little-endian truncation
      }
    }
  }
  return t;
}

HostTensor random_mask(const Shape& shape, double density, std::mt19937_64& rng) {
  HostTensor t = HostTensor::zeros(DType::Bool, shape);
  std::bernoulli_distribution pick(density);
  for (std::size_t i = 0; i < t.numel(); ++i) t.set<std::uint8_t>(i, pick(rng) ? 1 : 0);
  return t;
}

}  // namespace fvk::ref
