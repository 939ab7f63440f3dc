// `fvk plan` without a device: the view arguments (shape, strides, offset, for the input and a
// masked-fill mask), --pad, --value, --dtype, --mode and the policy, read as tools/fvk/cmd_plan.cpp
// reads them, then planner::plan against the shipped contracts on a described device, and
// planner::describe. Lines of the input: op, mode, dtype, shape, strides, offset, pads, value,
// mask shape, mask strides, mask offset, policy; a last line's first byte picks device features.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli_util.hpp"
#include "fuzz_common.hpp"
#include "planner/planner.hpp"

namespace {

using fvk::fuzz::lines_of;

std::int64_t int_or_zero(const std::string& text) {
  std::int64_t v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

// cmd_plan.cpp's view_from: the same calls in the same order.
fvk::ViewLayout view_from(fvk::DType dtype, const std::string& shape, const std::string& strides, std::int64_t offset,
                          const std::string& what) {
  fvk::ViewLayout v;
  v.dtype = dtype;
  v.shape = fvk::cli::parse_int_list(shape, what + " shape");
  v.strides = strides.empty() ? fvk::dense_strides(v.shape) : fvk::cli::parse_int_list(strides, what + " strides");
  v.offset = offset;
  const auto [lo, hi] = v.reach(what);
  if (lo < 0) fvk::fail(fvk::ErrorCode::InvalidArgument, what + " reaches before its buffer's start");
  if (hi == std::numeric_limits<std::int64_t>::max())
    fvk::fail(fvk::ErrorCode::IndexOverflow, what + " reaches element 2^63-1");
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto f = lines_of(fvk::fuzz::as_text(data, size), 13);
  const std::string &op = f[0], &mode = f[1], &dtype_text = f[2], &shape = f[3], &strides = f[4], &pads = f[6],
                    &value = f[7], &mask_shape = f[8], &mask_strides = f[9], &policy = f[11];

  fvk::DeviceInfo device;
  device.name = "fuzz device";
  const unsigned features = f[12].empty() ? 0xff : static_cast<unsigned char>(f[12][0]);
  device.shader_int64 = features & 1;
  device.shader_float64 = features & 2;
  device.shader_int16 = features & 4;
  device.buffer_int64_atomics = device.buffer_float32_atomic_add = features & 8;
  device.buffer_float64_atomic_add = features & 16;
  device.subgroup_ballot = device.subgroup_shuffle = features & 32;
  device.max_loop_iterations = features & 64 ? 65535 : 0;

  std::optional<fvk::planner::Plan> plan;
  fvk::fuzz::accepts([&] {
    const auto dtype = fvk::parse_dtype(dtype_text);
    if (!dtype) fvk::fail(fvk::ErrorCode::InvalidArgument, "--dtype is not a dtype");
    fvk::planner::Request r;
    r.op = op.starts_with("pad") ? (op == "pad" ? fvk::planner::OpRequest::Pad : fvk::planner::OpRequest::PadBackward)
                                 : fvk::planner::OpRequest::MaskedFill;
    r.mode = fvk::parse_pad_mode(mode);
    r.inputs.push_back(view_from(*dtype, shape, strides, int_or_zero(f[5]), "input"));
    if (r.op == fvk::planner::OpRequest::MaskedFill)
      r.inputs.push_back(view_from(fvk::DType::Bool, mask_shape.empty() ? shape : mask_shape, mask_strides,
                                   int_or_zero(f[10]), "mask"));
    else
      r.pads = fvk::PadSpec::from_torch(
          r.mode, r.inputs[0].shape.size(),
          pads.empty() ? std::vector<std::int64_t>{} : fvk::cli::parse_int_list(pads, "--pad"));
    r.fill = fvk::Scalar::parse(value);
    r.policy = policy == "allow"    ? fvk::PlanPolicy::AllowNondeterministic
               : policy == "prefer" ? fvk::PlanPolicy::PreferNondeterministic
                                    : fvk::PlanPolicy::DeterministicOnly;
    plan = fvk::planner::plan(r, fvk::planner::PlanContext{&device, nullptr});
  });
  if (plan) (void)fvk::planner::describe(*plan);
  return 0;
}
