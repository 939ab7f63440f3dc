#include "ops/contiguize.hpp"

#include <fmt/format.h>

#include <limits>

#include "fvk/error.hpp"
#include "ops/launch.hpp"

namespace fvk::ops {
namespace {
struct ContiguizePush {
  std::uint32_t n_chunks;
  std::uint32_t n;
  std::uint32_t rank;
};
static_assert(sizeof(ContiguizePush) == 12);
constexpr std::uint64_t kU32Max = std::numeric_limits<std::uint32_t>::max();
}  // namespace

std::string contiguize_kernel(DType dtype) { return fmt::format("contiguize_b{}", byte_width(dtype)); }

ViewLayout coalesce(const ViewLayout& view) {
  ViewLayout c{view.dtype, {}, {}, view.offset};
  for (std::size_t a = 0; a < view.shape.size(); ++a) {
    if (view.shape[a] == 1) continue;
    if (!c.shape.empty() && c.strides.back() == view.strides[a] * view.shape[a]) {
      c.shape.back() *= view.shape[a];
      c.strides.back() = view.strides[a];
      continue;
    }
    c.shape.push_back(view.shape[a]);
    c.strides.push_back(view.strides[a]);
  }
  if (c.shape.empty()) {
    c.shape = {1};
    c.strides = {1};
  }
  return c;
}

void check_contiguize(const rt::Device& device, const ViewLayout& view, std::uint64_t base_bytes,
                      std::string_view what) {
  const auto n = static_cast<std::uint64_t>(view.numel());
  const auto width = byte_width(view.dtype);
  if (n > kU32Max || base_bytes / width > kU32Max)
    fail(ErrorCode::IndexOverflow,
         fmt::format("{} has {} elements over a buffer of {} elements; Contiguize indexes elements with 32 bits", what,
                     n, base_bytes / width));
  for (std::size_t a = 0; a < view.shape.size(); ++a)
    if (static_cast<std::uint64_t>(view.shape[a]) > kU32Max)
      fail(ErrorCode::IndexOverflow, fmt::format("{} dim {} is {}, beyond 32-bit indexing", what, a, view.shape[a]));
  check_binding_size(device, base_bytes, what);
  check_binding_size(device, n * width, fmt::format("the dense copy of {}", what));
}

void record_contiguize(rt::Stream& stream, const ViewLayout& view, const rt::Buffer& src, const rt::Buffer& dst) {
  const auto n = static_cast<std::uint64_t>(view.numel());
  if (n == 0) return;
  const ViewLayout c = coalesce(view);
  const auto rank = c.shape.size();
  if (rank > 8)
    fail(ErrorCode::RankOutOfRange,
         fmt::format("a view of shape {} (strides {}) still walks {} axes after merging; Contiguize walks at most 8",
                     to_string(view.shape), to_string(view.strides), rank));
  std::vector<std::uint32_t> sb;
  for (auto d : c.shape) sb.push_back(static_cast<std::uint32_t>(d));
  // Two's-complement low 32 bits: the kernel's uint arithmetic wraps to the right index.
  for (auto s : c.strides) sb.push_back(static_cast<std::uint32_t>(static_cast<std::uint64_t>(s)));
  sb.push_back(static_cast<std::uint32_t>(c.offset));
  const std::uint64_t chunks = (n * byte_width(view.dtype) + 15) / 16;
  const auto& kernel = stream.device().kernel(contiguize_kernel(view.dtype));
  const rt::BufferRange bindings[] = {rt::whole(src), rt::whole(dst),
                                      stream.upload_small(std::as_bytes(std::span(sb)))};
  const ContiguizePush push{static_cast<std::uint32_t>(chunks), static_cast<std::uint32_t>(n),
                            static_cast<std::uint32_t>(rank)};
  stream.dispatch(kernel, bindings, bytes_of(push), chunks);
}

}  // namespace fvk::ops
