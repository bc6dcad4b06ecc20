// One way to fold values into a 64-bit digest, for the keys fast-forward and the episode memo compare within
// a run (sets of queue pairs, messages and their paths); never written out.
#ifndef MLNET_ROCE_STATE_HASH_H
#define MLNET_ROCE_STATE_HASH_H

#include <cstdint>

namespace mlnet::roce {

inline uint64_t MixHash(uint64_t h, uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ull;
}

}  // namespace mlnet::roce

#endif
