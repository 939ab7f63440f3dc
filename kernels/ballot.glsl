// Subgroup ballots for the tile passes' subgroup queues (pad.comp, pad_backward_det.comp): a
// subgroup numbers the chunks its invocations could not write at once, in ballot order, and shares
// them out among its invocations, each finding its chunk's owner from the ballot.
#ifndef FVK_BALLOT_GLSL
#define FVK_BALLOT_GLSL

#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require

// The index of the n-th set bit (from 0) of a subgroup ballot (n below its bit count): the words
// before it by bit counts, then a binary search in its word.
uint nth_set_bit(uvec4 b, uint n) {
  uint x = b.x;
  uint pos = 0u;
  [[unroll]] for (uint w = 0u; w < 4u; ++w) {
    const uint c = bitCount(b[w]);
    if (n >= c && w < 3u) {
      n -= c;
    } else {
      x = b[w];
      pos = w * 32u;
      break;
    }
  }
  uint k = bitCount(x & 0xFFFFu);
  if (n >= k) { n -= k; x >>= 16; pos += 16u; }
  k = bitCount(x & 0xFFu);
  if (n >= k) { n -= k; x >>= 8; pos += 8u; }
  k = bitCount(x & 0xFu);
  if (n >= k) { n -= k; x >>= 4; pos += 4u; }
  k = bitCount(x & 0x3u);
  if (n >= k) { n -= k; x >>= 2; pos += 2u; }
  if (n >= (x & 1u)) pos += 1u;
  return pos;
}

// Up to BALLOT_SLOTS ballots, one per kind of queued chunk (slot), in queue order: the queue is
// every chunk of slot 0 in lane order, then slot 1's, and so on.
#define BALLOT_SLOTS 4u
struct Ballots {
  uvec4 bal[BALLOT_SLOTS];
  uint cnt[BALLOT_SLOTS];
  uint total;
};

Ballots no_ballots() {
  Ballots b;
  [[unroll]] for (uint j = 0u; j < BALLOT_SLOTS; ++j) {
    b.bal[j] = uvec4(0u);
    b.cnt[j] = 0u;
  }
  b.total = 0u;
  return b;
}

// Slot j's ballot: the invocations that queue a chunk of that kind. In uniform control flow.
void add_ballot(inout Ballots b, uint j, bool queued) {
  b.bal[j] = subgroupBallot(queued);
  b.cnt[j] = subgroupBallotBitCount(b.bal[j]);
  b.total += b.cnt[j];
}

// The active invocations of the subgroup, and this one's rank among them (not assuming full
// subgroups).
uint active_lanes() { return subgroupBallotBitCount(subgroupBallot(true)); }
uint active_rank() { return subgroupBallotExclusiveBitCount(subgroupBallot(true)); }

// Queued chunk m (below b.total): its slot, and the lane of the invocation that queued it.
uint queued_lane(Ballots b, uint m, out uint slot) {
  slot = 0u;
  uvec4 bits = b.bal[0];
  bool found = false;
  [[unroll]] for (uint j = 0u; j < BALLOT_SLOTS; ++j) {
    if (!found) {
      if (m < b.cnt[j]) {
        slot = j;
        bits = b.bal[j];
        found = true;
      } else {
        m -= b.cnt[j];
      }
    }
  }
  return nth_set_bit(bits, m);
}

// One round of a subgroup queue whose chunks are shared out as `items` items, 2^shift per chunk:
// the slot of item i's chunk and the value `mine` of the invocation that queued it (a shuffle, so
// every invocation of the subgroup calls this, past the last item too: those get the last item's).
uint queued_owner(Ballots b, uint i, uint items, uint shift, uint mine, out uint slot) {
  const uint owner = queued_lane(b, min(i, items - 1u) >> shift, slot);
  return subgroupShuffle(mine, owner);
}

#endif
