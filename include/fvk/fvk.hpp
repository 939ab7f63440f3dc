// Umbrella header of fuel-vulkan-kernels.
#pragma once

#include "fvk/batch.hpp"
#include "fvk/context.hpp"
#include "fvk/dtype.hpp"
#include "fvk/error.hpp"
#include "fvk/host_tensor.hpp"
#include "fvk/ops.hpp"
#include "fvk/pad_spec.hpp"
#include "fvk/scalar.hpp"
#include "fvk/shape.hpp"
#include "fvk/tensor.hpp"
#include "fvk/tensor_view.hpp"
