#include "fkc/revision_hash.hpp"

#include <fmt/format.h>

#include "fkc/serialize.hpp"

namespace fvk::fkc {

namespace {

class Fnv1a64 {
 public:
  void bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
      h_ ^= p[i];
      h_ *= 0x100000001b3ULL;
    }
  }
  // Length-prefixed, so concatenated fields cannot shift into one another.
  void field(std::string_view s) {
    const std::uint64_t n = s.size();
    u64(n);
    bytes(s.data(), s.size());
  }
  void u64(std::uint64_t v) {
    unsigned char le[8];
    for (int i = 0; i < 8; ++i) le[i] = static_cast<unsigned char>(v >> (8 * i));
    bytes(le, 8);
  }
  std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

}  // namespace

std::string kernel_revision_hash(const Provider& provider, const Contract& contract,
                                 std::span<const std::span<const std::uint32_t>> passes) {
  Fnv1a64 h;
  h.field("fkc-revision-hash-v1");
  h.field(provider.revision_base);
  for (const auto& spirv : passes) {
    h.u64(spirv.size());
    for (const std::uint32_t w : spirv) {  // little-endian regardless of host
      const unsigned char le[4] = {static_cast<unsigned char>(w), static_cast<unsigned char>(w >> 8),
                                   static_cast<unsigned char>(w >> 16), static_cast<unsigned char>(w >> 24)};
      h.bytes(le, 4);
    }
  }
  h.field(to_json(contract, std::nullopt).dump());
  return fmt::format("{:016x}", h.value());
}

}  // namespace fvk::fkc
