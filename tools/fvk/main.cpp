// fvk: the command-line face of fuel-vulkan-kernels. Each subcommand lives in its own cmd_*.cpp and
// registers itself here.
#include <fmt/format.h>
#include <fmt/ranges.h>

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
    if (e.get_exit_code() == 0) return app.exit(e);  // --help: the help text, exit 0
    // CLI11 reports an unknown subcommand as a missing one; name the word it did not know.
    if (app.get_subcommands().empty() && !app.remaining().empty() && !app.remaining().front().starts_with('-')) {
      std::vector<std::string> names;
      for (const auto* sub : app.get_subcommands({})) names.push_back(sub->get_name());
      fmt::print(stderr, "fvk: error: {}: '{}' is not an fvk command; the commands are {}\n",
                 fvk::to_string(fvk::ErrorCode::InvalidArgument), app.remaining().front(), fmt::join(names, ", "));
      return 2;
    }
    // A bad command line reads like every other refusal: the code, CLI11's words (which name the
    // flag), and where to look.
    fmt::print(stderr, "fvk: error: {}: {}\nRun with --help for more information.\n",
               fvk::to_string(fvk::ErrorCode::InvalidArgument), e.what());
    return 2;
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
