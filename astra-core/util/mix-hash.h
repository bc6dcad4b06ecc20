// One way to fold values into a 64-bit digest, for keys compared within a run (hash-table keys, sets of queue
// pairs, messages and their paths); never written out. The final multiply spreads every input bit over the
// top bits, which FlatIndex takes.
#ifndef MLNET_UTIL_MIX_HASH_H
#define MLNET_UTIL_MIX_HASH_H

#include <cstdint>

namespace mlnet {

inline uint64_t MixHash(uint64_t h, uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ull;
}

}  // namespace mlnet

#endif
