// The roofline copy: a dense 16-byte-chunk copy, the ceiling other kernels are measured against.
#include <algorithm>

#include "ops/launch.hpp"
#include "ops/pad_family.hpp"

namespace fvk::ops {

void record_copy(rt::Stream& stream, const rt::Buffer& src, const rt::Buffer& dst, std::uint64_t bytes) {
  const std::uint64_t rounded = (bytes + 15) / 16 * 16;  // allocations are whole 16-byte chunks
  const std::uint64_t chunks = std::min({rounded, src.allocated(), dst.allocated()}) / 16;
  const auto& kernel = stream.device().kernel("copy_b4");
  const rt::BufferRange bindings[] = {rt::prefix(src, chunks * 16), rt::prefix(dst, chunks * 16)};
  const auto n = static_cast<std::uint32_t>(chunks);
  stream.dispatch(kernel, bindings, bytes_of(n), chunks);
}

}  // namespace fvk::ops
