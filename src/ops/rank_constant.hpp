// Which passes take the tensor's rank as specialization constant 1 (the one place that decides).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/device.hpp"

namespace fvk::ops {

// The value to give specialization constant 1 of pass `pass` (its own SPIR-V module) of
// kernel `kernel` for a geometry of `rank` axes (after merging neighbouring unpadded axes): the rank
// where that pass is compiled for it, 0 where it reads the rank from its push constants. The
// kernels trust it: a nonzero value is the rank. 0 for every kernel but pad.comp's and the
// deterministic backward's, and for ranks over 4 (not measured).
std::uint32_t rank_constant(std::string_view kernel, std::uint32_t pass, std::uint32_t rank);

// The pipeline of pass `pass` of kernel `kernel` for a geometry of `rank` axes: built with
// rank_constant's value as specialization constant 1.
const rt::Kernel& pass_kernel(rt::Device& device, const std::string& kernel, std::uint32_t pass, std::uint32_t rank);

}  // namespace fvk::ops
