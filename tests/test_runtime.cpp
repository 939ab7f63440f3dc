// The runtime layer: SPIR-V reflection of the embedded kernels, and the validation-layer plumbing the
// whole suite relies on (a planted API misuse must be reported).
#include <gtest/gtest.h>

#include <cstdlib>

#include "fvk/context.hpp"
#include "runtime/device.hpp"
#include "runtime/embedded.hpp"
#include "runtime/spirv_reflect.hpp"

namespace fvk::testing {
namespace {

TEST(SpirvReflect, PadKernelsHaveThreeBindingsAndTwentyBytesOfPushConstants) {
  int seen = 0;
  for (const auto& k : embedded::table()) {
    const auto iface = rt::reflect_spirv(k.spirv);
    EXPECT_EQ(iface.local_size_x, 256u) << k.name;
    const std::vector<std::uint32_t> want =
        k.name == "copy_b4" ? std::vector<std::uint32_t>{0, 1} : std::vector<std::uint32_t>{0, 1, 2};
    EXPECT_EQ(iface.storage_buffer_bindings, want) << k.name;
    if (k.name.rfind("pad_", 0) == 0) {
      EXPECT_EQ(iface.push_constant_bytes, 20u) << k.name;
      ++seen;
    }
    if (k.name.rfind("masked_fill_", 0) == 0) {
      EXPECT_EQ(iface.push_constant_bytes, 16u) << k.name;
    }
  }
  EXPECT_GE(seen, 32);
}

TEST(SpirvReflect, RejectsGarbage) {
  const std::uint32_t words[] = {1, 2, 3, 4, 5, 6};
  EXPECT_THROW(rt::reflect_spirv(words), std::exception);
}

TEST(Validation, PlantedMisuseIsReported) {
  const char* v = std::getenv("FVK_VALIDATION");
  if (!v || std::string(v) != "1") GTEST_SKIP() << "FVK_VALIDATION=1 is not set: the validation layer is off";
  Context ctx;  // its own device, so the planted message does not fail other tests
  ASSERT_TRUE(ctx.validation_messages().empty());
  // A buffer with no usage flags breaks VUID-VkBufferCreateInfo-usage-requiredbitmask; drivers accept it.
  vk::raii::Buffer bad(ctx.runtime().device(), vk::BufferCreateInfo{.size = 16, .usage = {}});
  EXPECT_FALSE(ctx.validation_messages().empty());
}

}  // namespace
}  // namespace fvk::testing
