// The planner: turns a request (an op on tensor views of any layout) into the dispatches that run
// it, with their cost. Every decision comes from the loaded contracts (fkc::contracts_for): which
// kernel accepts the dtype, the rank, the layout and the device's features, whether it is
// deterministic, whether an awkward input must be realized first (requires_contiguous: insert a
// Contiguize step) or is refused (reject), and what each step costs (the Judge's measurement for
// this device and revision, else the contract's bytes_moved formula).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fkc/contract.hpp"
#include "fvk/batch.hpp"
#include "fvk/device_info.hpp"
#include "fvk/pad_spec.hpp"
#include "fvk/scalar.hpp"
#include "fvk/tensor_view.hpp"

namespace fvk::judge {
class CostTable;
}

namespace fvk::planner {

enum class OpRequest { Pad, PadBackward, MaskedFill };

std::string_view name(OpRequest op) noexcept;
fkc::OpKind op_kind(OpRequest op) noexcept;

struct Request {
  OpRequest op = OpRequest::Pad;
  PadMode mode = PadMode::Constant;  // pad / pad_backward
  // The op's inputs in contract order: pad {input}, pad_backward {grad_out}, masked_fill {input, mask}.
  std::vector<ViewLayout> inputs;
  PadSpec pads;                       // per axis (mode is taken from `mode`)
  Scalar fill = Scalar::from_int(0);  // constant pad / masked_fill
  PlanPolicy policy = PlanPolicy::DeterministicOnly;
};

// Where a step's cost comes from.
enum class CostSource { Measured, Formula };

struct StepCost {
  double bytes_moved = 0;             // the contract's bytes_moved formula for this request
  std::optional<double> measured_ns;  // the Judge's fit for this device and revision, when it has one
  CostSource source = CostSource::Formula;
};

struct Step {
  enum class Kind { Contiguize, Kernel } kind = Kind::Kernel;
  const fkc::Contract* contract = nullptr;
  std::string kernel;
  int input = -1;             // Contiguize: the index of the input it realizes
  ViewLayout view;            // Contiguize: the view it realizes; Kernel: unused
  fkc::SymbolValues symbols;  // the formula symbols of this step
  StepCost cost;
};

struct PlanCost {
  double bytes_moved = 0;             // sum over steps (formulas)
  std::optional<double> measured_ns;  // sum over steps when every step has a measurement
  std::string str() const;
};

struct Plan {
  Request request;
  PadGeometry geometry;  // pad / pad_backward (validated by infer_pad / infer_pad_backward)
  Shape out_shape;
  DType dtype = DType::F32;
  std::uint64_t fill_bits = 0;
  std::vector<Step> steps;  // Contiguize steps first, the op's kernel last
  PlanCost cost;
  // Other candidates that applied and lost, with their costs (for `fvk plan`).
  std::vector<std::pair<std::string, PlanCost>> alternatives;

  const Step& kernel_step() const { return steps.back(); }
  std::size_t contiguize_steps() const { return steps.size() - 1; }
};

struct PlanContext {
  const DeviceInfo* device = nullptr;       // features and the cost-table key; nullptr: not checked
  const judge::CostTable* costs = nullptr;  // nullptr: formulas only
  // The device's always_split_passes (ContextOptions): the passes the deterministic backward takes,
  // and so its loop count, are those the op will run.
  bool always_split_passes = false;
};

// Throws Error(NoKernel) naming the constraint no candidate met (mode, dtype, rank, device feature,
// determinism policy, layout), and the op's own validation errors (infer_pad & co.).
Plan plan(const Request& request, const PlanContext& context = {});

// The cost table at judge::CostTable::default_path(), loaded once per process (empty if absent).
const judge::CostTable& default_cost_table();

// A readable listing of the plan: one line per step with kernel and cost, then the total.
std::string describe(const Plan& plan);

}  // namespace fvk::planner
