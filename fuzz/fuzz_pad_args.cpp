// The pad arguments of the CLI, as `fvk pad`, `fvk pad-backward` and `fvk stats` read them: lines
// of the input are the mode, the torch-order --pad list, the input shape, --left and --right of
// `fvk stats`, and a --kernel filter. Through parse_int_list (tools/fvk/cli_util.cpp),
// PadSpec::from_torch, infer_pad / infer_pad_backward / check_out_shape, and the coalesced geometry's
// shape constants. Property: the backward of an accepted pad's output gives back its input shape.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli_util.hpp"
#include "fuzz_common.hpp"
#include "fvk/pad_spec.hpp"
#include "ops/launch.hpp"
#include "ops/shape_constant.hpp"

namespace {

using fvk::fuzz::lines_of;

void check_backward_inverts(const fvk::Shape& in, const fvk::PadSpec& spec) {
  std::optional<fvk::PadGeometry> g;
  if (!fvk::fuzz::accepts([&] { g = fvk::infer_pad(in, spec); })) return;
  try {
    fvk::check_out_shape(*g, g->out, "output");
    const auto back = fvk::infer_pad_backward(g->out, spec);
    fvk::fuzz::check(back.in == in && back.out == g->out, "infer_pad_backward does not invert infer_pad");
  } catch (const fvk::Error& e) {
    fvk::fuzz::finding(std::string("the output of an accepted pad is refused: ") + e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto f = lines_of(fvk::fuzz::as_text(data, size), 6);
  const std::string &mode_text = f[0], &pads_text = f[1], &shape_text = f[2], &left_text = f[3], &right_text = f[4],
                    &filter = f[5];

  std::optional<fvk::Shape> shape;
  fvk::fuzz::accepts([&] { shape = fvk::cli::parse_int_list(shape_text, "--shape"); });

  // fvk pad / pad-backward: --mode, --pad (torch order) and the input file's shape.
  if (shape) {
    std::optional<fvk::PadSpec> spec;
    fvk::fuzz::accepts([&] {
      spec = fvk::PadSpec::from_torch(fvk::parse_pad_mode(mode_text), shape->size(),
                                      fvk::cli::parse_int_list(pads_text, "--pad"));
    });
    if (spec) {
      check_backward_inverts(*shape, *spec);
      fvk::fuzz::accepts([&] { (void)fvk::infer_pad_backward(*shape, *spec); });
    }
  }

  // fvk stats --shape --left --right: the geometry's constants as the ops build them.
  if (shape) {
    std::optional<fvk::PadSpec> spec;
    fvk::fuzz::accepts([&] {
      spec = fvk::PadSpec{fvk::PadMode::Constant, fvk::cli::parse_int_list(left_text, "--left"),
                          fvk::cli::parse_int_list(right_text, "--right")};
    });
    if (spec && spec->left.size() == shape->size() && spec->right.size() == shape->size()) {
      std::optional<fvk::PadGeometry> g;
      if (fvk::fuzz::accepts([&] { g = fvk::infer_pad(*shape, *spec); })) {
        const auto merged = fvk::ops::coalesce(*g);
        // The constants take ranks 1 to 7; `fvk stats` refuses a merged geometry of 8 axes before
        // this (found by this target: it answered Internal).
        if (merged.in.size() <= 7)
          fvk::fuzz::accepts(
              [&] { (void)fvk::ops::shape_constants(merged, static_cast<std::uint32_t>(fvk::numel(merged.out))); });
      }
    }
  }

  // --kernel filters (selftest, bench, judge).
  fvk::fuzz::accepts([&] {
    fvk::cli::require_kernel_match(filter, {"pad_reflect_b4", "pad_backward_replicate_det_f32"});
  });
  return 0;
}
