// The rank as specialization constant 1: the driver unrolls the walks over the axes to the axes
// there are and shape_buf's offsets become constants. On the H200 that took the small set's pad
// rows 0.93-0.97x the time, rank5's 1- and 2-byte constant and replicate rows 0.94-0.98x
// (docs/data/h200_ab_rank_constant.md) and the small set's deterministic backwards 0.82-0.92x
// (docs/data/h200_rank_constant_det.md). Since each pass is its own SPIR-V module (bacd58f), pass 6
// of reflect and replicate at ranks up to 3 and the deterministic backward's pass 7 at rank 4 take
// it too: image u8 reflect/replicate 0.98x the time, rank5 deterministic 0.97-0.98x
// (docs/data/h200_ab_rank_rule_pass_modules.md). The passes left out here read the push constant:
// - those the constant took past 32 registers (fewer workgroups of 256 resident; their rows were
//   1.03-1.28x slower with it): at rank 4 pad.comp's pass 6 of reflect and replicate, reflect's
//   passes 1, 4 and 5 and 1-byte replicate's pass 1; the deterministic backward's pass 8, and at
//   rank 4 its pass 10;
// - the deterministic backward's pass 3 (the multi-row pass), which the H200's driver compiled
//   wrong with the constant (chunks left unwritten; right on lavapipe);
// - every pass of ranks over 4 (not measured).
// One pipeline is built per (kernel, pass, value), so a pass left out has one pipeline for all
// ranks (where the kernels decided this themselves, each rank had built its own identical one).
#include "ops/rank_constant.hpp"

namespace fvk::ops {

std::uint32_t rank_constant(std::string_view kernel, std::uint32_t pass, std::uint32_t rank) {
  if (rank == 0 || rank > 4) return 0;
  const bool at4 = rank == 4;
  // The deterministic backward (pad_backward_det.comp), its portable builds too.
  if (kernel.starts_with("pad_backward_reflect_det") || kernel.starts_with("pad_backward_replicate_det")) {
    if (pass == 3 || pass == 8 || (at4 && pass == 10)) return 0;
    return rank;
  }
  // pad.comp's kernels: pad_{const,reflect,replicate}_*, pad_backward_const_*.
  if (kernel.starts_with("pad_const_") || kernel.starts_with("pad_backward_const_")) return rank;
  if (kernel.starts_with("pad_reflect_")) {
    if (at4 && (pass == 1 || pass == 4 || pass == 5 || pass == 6)) return 0;
    return rank;
  }
  if (kernel.starts_with("pad_replicate_")) {
    if (at4 && (pass == 6 || (pass == 1 && kernel.ends_with("_b1")))) return 0;
    return rank;
  }
  return 0;  // the atomic backward, masked_fill, contiguize, copy: no such constant
}

const rt::Kernel& pass_kernel(rt::Device& device, const std::string& kernel, std::uint32_t pass, std::uint32_t rank) {
  return device.kernel(kernel, pass, rank_constant(kernel, pass, rank));
}

}  // namespace fvk::ops
