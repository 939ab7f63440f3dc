// What a pad asks for and the geometry it implies. The rules live in one place (infer_*) and are
// used by the GPU wrappers, the CPU reference and the CLI alike.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "fvk/dtype.hpp"
#include "fvk/shape.hpp"

namespace fvk {

enum class PadMode { Constant, Reflect, Replicate };

std::string_view name(PadMode mode) noexcept;
PadMode parse_pad_mode(std::string_view text);  // "constant" | "reflect" | "replicate" (or "edge")

// Per-axis pads, axis 0 first.
struct PadSpec {
  PadMode mode = PadMode::Constant;
  std::vector<std::int64_t> left;
  std::vector<std::int64_t> right;

  // From torch.nn.functional.pad order: (last_l, last_r, second_last_l, ...). Fewer pairs than the
  // rank pad only the trailing dims. Throws InvalidArgument for an odd count or too many pairs.
  static PadSpec from_torch(PadMode mode, std::size_t rank, std::span<const std::int64_t> pads);
};

// A validated pad: in = the smaller tensor, out = the padded one.
struct PadGeometry {
  PadMode mode = PadMode::Constant;
  Shape in;
  Shape out;
  std::vector<std::int64_t> left;
  std::vector<std::int64_t> right;
};

// Forward: in_shape given, out derived. Checks rank 1..8, pads >= 0, reflect pads <= dim-1, no
// reflect/replicate of an empty dim, and out-of-range sizes (IndexOverflow).
PadGeometry infer_pad(const Shape& in, const PadSpec& spec);
// Backward: grad_out's shape given, grad_in's derived (out - l - r), same rules.
PadGeometry infer_pad_backward(const Shape& grad_out, const PadSpec& spec);
// Holds an explicit out shape against the geometry: ShapeMismatch naming the first bad axis.
void check_out_shape(const PadGeometry& geometry, const Shape& out, std::string_view out_name);

// masked_fill: the mask must be bool and of the input's shape.
void check_masked_fill(const Shape& input, DType mask_dtype, const Shape& mask);

}  // namespace fvk
