// The .npy reader (io/npy.hpp), as the CLI uses it: plain and with two_byte_as = bf16. Properties of
// an accepted file: its data is exactly the dense size of its shape, and the writer's file reads
// back as the same tensor.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "fuzz_common.hpp"
#include "fvk/shape.hpp"
#include "io/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fvk::fuzz::MemFile in("fuzz_npy_in");
  static fvk::fuzz::MemFile out("fuzz_npy_out");
  in.assign(data, size);
  for (const std::optional<fvk::DType> two_byte_as : {std::optional<fvk::DType>{}, std::optional{fvk::DType::BF16}}) {
    std::optional<fvk::io::NpyArray> a;
    if (!fvk::fuzz::accepts([&] { a = fvk::io::read_npy(in.path(), two_byte_as); })) continue;
    const auto& t = a->tensor;
    const auto dense = fvk::dense_bytes(t.shape, fvk::byte_width(t.dtype));
    fvk::fuzz::check(dense && *dense == t.data.size(), "accepted data is not the dense size of its shape");
    try {
      fvk::io::write_npy(out.path(), t);
      const auto b = fvk::io::read_npy(out.path(), two_byte_as);
      fvk::fuzz::check(
          !b.fortran_order && b.tensor.dtype == t.dtype && b.tensor.shape == t.shape && b.tensor.data == t.data,
          "written file reads back differently");
    } catch (const fvk::Error& e) {
      fvk::fuzz::finding(std::string("an accepted tensor does not round-trip: ") + e.what());
    }
  }
  return 0;
}
