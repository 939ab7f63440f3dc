// fvk devices: the Vulkan devices seen, the one chosen, and the features and limits fvk relies on.
#include <fmt/format.h>

#include "cli_util.hpp"
#include "commands.hpp"

namespace fvk::cli {
namespace {

Registrar reg([](CLI::App& app, GlobalOptions& global) {
  auto* sub = app.add_subcommand("devices", "List Vulkan devices, the chosen one, its features and limits");
  set_action(sub, [&global]() {
    const auto devices = Context::list_devices();
    Context ctx = make_context(global);
    ValidationReport report(ctx);
    const auto& c = ctx.device_info();
    for (const auto& d : devices)
      fmt::print("{} {}: {} ({}, Vulkan {}, {})\n", d.index == c.index ? "*" : " ", d.index, d.name, d.type,
                 d.api_version, d.driver);
    auto yes = [](bool b) { return b ? "yes" : "no"; };
    fmt::print("\nchosen: {} [vendor 0x{:04x} device 0x{:04x}]\n", c.name, c.vendor_id, c.device_id);
    fmt::print("  maxStorageBufferRange       {} bytes\n", c.max_storage_buffer_range);
    fmt::print("  maxMemoryAllocationSize     {} bytes\n", c.max_memory_allocation_size);
    fmt::print("  device-local heap           {} bytes\n", c.device_local_heap_bytes);
    fmt::print("  maxComputeWorkGroupCount    {} x {}\n", c.max_workgroup_count_x, c.max_workgroup_count_y);
    fmt::print("  subgroup size               {}\n", c.subgroup_size);
    if (c.max_loop_iterations > 0)
      fmt::print("  loop iterations / invocation {} (all loops together; the driver ends longer ones)\n",
                 c.max_loop_iterations);
    fmt::print("  timestamps                  {} (period {} ns)\n", yes(c.timestamps), c.timestamp_period_ns);
    fmt::print("  push descriptors            {}\n", yes(c.push_descriptor));
    fmt::print("  shaderInt64 / shaderFloat64 {} / {}\n", yes(c.shader_int64), yes(c.shader_float64));
    fmt::print("  64-bit buffer atomics       {}\n", yes(c.buffer_int64_atomics));
    fmt::print("  f32 / f64 buffer atomic add {} / {}\n", yes(c.buffer_float32_atomic_add),
               yes(c.buffer_float64_atomic_add));
    fmt::print("  subgroup ballot / shuffle   {} / {}\n", yes(c.subgroup_ballot), yes(c.subgroup_shuffle));
    fmt::print("  pipeline statistics         {} (fvk stats)\n", yes(c.pipeline_statistics));
    return report.exit_code();
  });
});

}  // namespace
}  // namespace fvk::cli
