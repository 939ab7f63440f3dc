// Seeded random tensors for the selftest, the tests and the Judge. Byte movers get arbitrary bit
// patterns (NaNs included: they must survive bit for bit); summing kernels get finite values.
#pragma once

#include <cstdint>
#include <random>

#include "fvk/host_tensor.hpp"

namespace fvk::ref {

// Every byte random (for byte movers).
HostTensor random_bits(DType dtype, const Shape& shape, std::mt19937_64& rng);
// Finite values in [-1, 1] (floats) or small integers; bool as 0/1.
HostTensor random_values(DType dtype, const Shape& shape, std::mt19937_64& rng);
// A bool mask with roughly `density` of the elements set.
HostTensor random_mask(const Shape& shape, double density, std::mt19937_64& rng);

}  // namespace fvk::ref
