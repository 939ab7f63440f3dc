// fvk: the command-line face of fuel-vulkan-kernels. Each subcommand lives in its own cmd_*.cpp and
// registers itself here.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "fvk/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"fvk - Vulkan tensor padding kernels with machine-readable contracts"};
  app.require_subcommand(1);
  fvk::cli::GlobalOptions global;
  app.add_option("--device", global.device, "Vulkan device: index or name substring (env FVK_DEVICE)");
  for (const auto& reg : fvk::cli::registry()) reg(app, global);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    return fvk::cli::run_selected(app);
  } catch (const fvk::Error& e) {
    fmt::print(stderr, "fvk: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "fvk: error: {}\n", e.what());
    return 2;
  }
}
