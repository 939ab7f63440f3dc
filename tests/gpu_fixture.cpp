#include "gpu_fixture.hpp"

namespace fvk::testing {

Context& shared_context() {
  static Context ctx;
  return ctx;
}

Context& poisoned_context() {
  static Context ctx([] {
    ContextOptions o;
    o.poison_new_tensors = true;
    return o;
  }());
  return ctx;
}

}  // namespace fvk::testing
