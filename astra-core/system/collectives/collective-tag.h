// The tag of a collective-internal message: bit 63 | group (16) | sequence (25) | chunk (16) | phase (5) |
// half (1). 16 group bits: an imported 9,216-GPU MoE step (TP 2, EP 16, PP 12) has 5,592 communicators; a
// rank's 2^25 collectives per communicator before the sequence wraps are far more than are ever in flight.
// Matching is by (src, dst, tag), so every field that tells two concurrent exchanges between the same pair of
// ranks apart must have its own bits; trace tags stay below bit 63 and never collide.
#ifndef MLNET_SYSTEM_COLLECTIVES_COLLECTIVE_TAG_H
#define MLNET_SYSTEM_COLLECTIVES_COLLECTIVE_TAG_H

#include <cstdint>

#include "network/network-api.h"

namespace mlnet {

struct CollectiveTag {
    static constexpr unsigned kHalfBits = 1;
    static constexpr unsigned kPhaseBits = 5;
    static constexpr unsigned kChunkBits = 16;
    static constexpr unsigned kSequenceBits = 25;
    static constexpr unsigned kGroupBits = 16;

    static constexpr unsigned kHalfShift = 0;
    static constexpr unsigned kPhaseShift = kHalfShift + kHalfBits;
    static constexpr unsigned kChunkShift = kPhaseShift + kPhaseBits;
    static constexpr unsigned kSequenceShift = kChunkShift + kChunkBits;
    static constexpr unsigned kGroupShift = kSequenceShift + kSequenceBits;

    // Custom graphs number their own messages: a node's tag takes the place of chunk, phase and half.
    static constexpr unsigned kGraphTagBits = kSequenceShift;
    static constexpr uint64_t kGraphTagMask = (uint64_t{1} << kGraphTagBits) - 1;

    static constexpr uint64_t kMaxGroups = uint64_t{1} << kGroupBits;
    static constexpr uint64_t kMaxSequence = uint64_t{1} << kSequenceBits;
    static constexpr uint64_t kMaxChunks = uint64_t{1} << kChunkBits;
    static constexpr uint64_t kMaxPhases = uint64_t{1} << kPhaseBits;

    uint32_t group = 0;     // dense index of the communicator
    uint32_t sequence = 0;  // collectives this rank issued on the communicator before, modulo kMaxSequence
    uint32_t chunk = 0;
    uint32_t phase = 0;
    uint32_t half = 0;  // direct all-reduce: 1 for its all-gather half

    constexpr uint64_t encode() const {
        return kCollectiveTagBit | field(group, kGroupShift, kGroupBits) |
               field(sequence, kSequenceShift, kSequenceBits) | field(chunk, kChunkShift, kChunkBits) |
               field(phase, kPhaseShift, kPhaseBits) | field(half, kHalfShift, kHalfBits);
    }

    // Group and sequence of this tag with a custom graph node's own tag in the low bits.
    constexpr uint64_t encodeGraphTag(uint64_t nodeTag) const {
        return CollectiveTag{group, sequence, 0, 0, 0}.encode() | (nodeTag & kGraphTagMask);
    }

    static constexpr CollectiveTag decode(uint64_t tag) {
        return {extract(tag, kGroupShift, kGroupBits), extract(tag, kSequenceShift, kSequenceBits),
                extract(tag, kChunkShift, kChunkBits), extract(tag, kPhaseShift, kPhaseBits),
                extract(tag, kHalfShift, kHalfBits)};
    }

    friend constexpr bool operator==(const CollectiveTag& a, const CollectiveTag& b) {
        return a.group == b.group && a.sequence == b.sequence && a.chunk == b.chunk && a.phase == b.phase &&
               a.half == b.half;
    }

private:
    static constexpr uint64_t field(uint32_t value, unsigned shift, unsigned bits) {
        return (uint64_t{value} & ((uint64_t{1} << bits) - 1)) << shift;
    }
    static constexpr uint32_t extract(uint64_t tag, unsigned shift, unsigned bits) {
        return static_cast<uint32_t>(tag >> shift & ((uint64_t{1} << bits) - 1));
    }
};

static_assert(CollectiveTag::kGroupShift + CollectiveTag::kGroupBits == 63,
              "the fields must fill the 63 bits below kCollectiveTagBit exactly");
static_assert(kCollectiveTagBit == uint64_t{1} << 63, "collective tags own bit 63");
static_assert(CollectiveTag::kSequenceBits < 32 && CollectiveTag::kChunkBits < 32 &&
                  CollectiveTag::kGroupBits < 32,
              "every field must fit the uint32_t that holds it");
// Pins the layout so that a width change is a deliberate edit of this header, not a side effect.
static_assert(CollectiveTag{1, 2, 3, 4, 1}.encode() ==
                  (kCollectiveTagBit | uint64_t{1} << 47 | uint64_t{2} << 22 | uint64_t{3} << 6 |
                   uint64_t{4} << 1 | 1),
              "tag layout");
static_assert(CollectiveTag::decode(CollectiveTag{65535, (1u << 25) - 1, 65535, 31, 1}.encode()) ==
                  CollectiveTag{65535, (1u << 25) - 1, 65535, 31, 1},
              "decode inverts encode");
static_assert(CollectiveTag{7, 9, 0, 0, 0}.encodeGraphTag(~uint64_t{0}) ==
                  (CollectiveTag{7, 9, 0, 0, 0}.encode() | CollectiveTag::kGraphTagMask),
              "a graph node's tag cannot reach the group and sequence bits");

}  // namespace mlnet

#endif
