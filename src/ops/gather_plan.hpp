// Which of pad.comp's passes a pad or a crop takes, and with how many invocations: a pure function
// of the destination's rows, innermost pads and size, so that tests can hold the choice against the
// rules the H200 measurements set (record_gather in pad.cpp dispatches what it returns).
#pragma once

#include <cstdint>

#include "fvk/pad_spec.hpp"

namespace fvk::ops {

// pad.comp's passes (its REGION: one SPIR-V module each).
enum class GatherPass : std::uint32_t {
  One = 0,         // every chunk, one (or four 32 apart) per invocation
  Row = 1,         // the row pass, one chunk per invocation
  Edge = 2,        // the edge chunks around each row boundary (beside Inner)
  Inner = 3,       // the inner chunks, four 32 apart per invocation
  RowTwo = 4,      // the row pass, two chunks per invocation
  Tile = 5,        // the tile pass, two chunks per invocation
  TileFour = 6,    // the tile pass, four chunks per invocation
  AlignedRow = 7,  // rows of whole chunks in destination and source: one chunk per invocation
  Group = 8,       // groups of whole rows of 1- and 2-byte elements, one or two invocations each, through a stage
  Word = 9,        // one 32-bit word of the destination per invocation, for small destinations
};

// The destination as record_gather sees it after coalescing (a crop's destination is grad_in).
struct GatherShape {
  std::uint64_t n_dst = 0;            // destination elements, > 0
  std::uint64_t width = 0;            // element bytes: 1, 2, 4 or 8
  std::uint64_t row = 0;              // destination row (innermost dim) in elements, > 0
  std::uint64_t left = 0, right = 0;  // innermost pads in destination elements (a crop: 0)
  bool big = false;                   // the large-tensor passes: 1 MiB and more, or always split
  bool aligned_rows = false;          // the aligned-row pass's pipeline is built for the geometry
  bool group_rows = false;            // the group pass's pipeline is built for the geometry
};

struct GatherPlan {
  GatherPass pass = GatherPass::One;
  std::uint64_t invocations = 0;  // of the main pass
  std::uint64_t edge = 0;         // invocations of the edge pass, recorded before it (0: none)
  std::uint64_t slots = 0;        // edge invocations per row boundary
  // The group pass: invocations per group (pad.comp's GROUP_PIECES) and the words of a workgroup's
  // stage (STAGE_WORDS), its specialization constants 41 and 40; 0 for the other passes.
  std::uint64_t pieces = 0;
  std::uint64_t stage_words = 0;
};

GatherPlan plan_gather(const GatherShape& s);

// The destination of a pad of the coalesced geometry `g` with `width`-byte elements, or (`crop`) of
// its constant-mode backward, whose destination is grad_in; the flags are left false for the caller.
GatherShape gather_shape(const PadGeometry& g, std::uint64_t width, bool crop);

}  // namespace fvk::ops
