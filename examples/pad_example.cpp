// The README's example: reflect-pad a small f32 image on the default Vulkan device and print it.
#include <cstdio>
#include <fvk/fvk.hpp>

int main() {
  try {
    fvk::Context ctx;  // default device: a discrete GPU, else integrated, else lavapipe
    fvk::HostTensor image = fvk::HostTensor::zeros(fvk::DType::F32, {1, 3, 4});
    for (std::size_t i = 0; i < image.numel(); ++i) image.set<float>(i, static_cast<float>(i));

    const std::int64_t pads[] = {2, 2, 1, 1};  // torch order: last dim (2, 2), then (1, 1)
    const auto spec = fvk::PadSpec::from_torch(fvk::PadMode::Reflect, image.shape.size(), pads);
    const fvk::Tensor padded = fvk::pad(ctx, ctx.upload(image), spec);
    const fvk::HostTensor out = ctx.download(padded);

    std::printf("device: %s\n", ctx.device_info().name.c_str());
    for (std::int64_t r = 0; r < out.shape[1]; ++r) {
      for (std::int64_t c = 0; c < out.shape[2]; ++c)
        std::printf("%5.1f", out.get<float>(static_cast<std::size_t>(r * out.shape[2] + c)));
      std::printf("\n");
    }
    // Row 0 of the output reflects input row 1: 6 5 4 5 6 7 6 5.
    return out.get<float>(0) == 6.0f ? 0 : 1;
  } catch (const fvk::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
