#include "commands.hpp"

#include <map>

namespace fvk::cli {

std::vector<RegisterFn>& registry() {
  static std::vector<RegisterFn> r;
  return r;
}

namespace {
std::map<const CLI::App*, std::function<int()>>& actions() {
  static std::map<const CLI::App*, std::function<int()>> a;
  return a;
}
}  // namespace

void set_action(CLI::App* sub, std::function<int()> action) { actions()[sub] = std::move(action); }

int run_selected(CLI::App& app) {
  for (const auto* sub : app.get_subcommands()) {
    auto it = actions().find(sub);
    if (it != actions().end()) return it->second();
  }
  return 1;
}

}  // namespace fvk::cli
