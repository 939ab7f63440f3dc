// Subcommand registry of the fvk CLI. A cmd_*.cpp file adds itself with a static Registrar:
//   static Registrar reg([](CLI::App& app, GlobalOptions& g) { auto* sub = app.add_subcommand(...);
//                          sub->callback(...)  /* or set_action */ });
// A subcommand's action returns the process exit code through set_exit_code().
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace fvk::cli {

struct GlobalOptions {
  std::string device;  // empty: FVK_DEVICE, then the default choice
};

using RegisterFn = std::function<void(CLI::App&, GlobalOptions&)>;
std::vector<RegisterFn>& registry();

struct Registrar {
  explicit Registrar(RegisterFn fn) { registry().push_back(std::move(fn)); }
};

// Actions are stored per subcommand; run_selected runs the one the user picked.
void set_action(CLI::App* sub, std::function<int()> action);
int run_selected(CLI::App& app);

}  // namespace fvk::cli
