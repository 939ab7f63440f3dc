#include "gpu_fixture.hpp"

namespace fvk::testing {

Context& shared_context() {
  static Context ctx;
  return ctx;
}

}  // namespace fvk::testing
