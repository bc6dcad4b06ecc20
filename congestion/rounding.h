// Rounding of the rates an algorithm publishes.
#ifndef MLNET_CONGESTION_ROUNDING_H
#define MLNET_CONGESTION_ROUNDING_H

#include <cmath>
#include <cstdint>

namespace mlnet::cc {

// std::llround without its library call (every ACK of some algorithms publishes a rate): below 2^52 a
// double's fraction is exact, so truncating and comparing the remainder with one half rounds halves away
// from zero exactly as llround does. Anything else (negative, 2^52 and above, NaN) goes to llround.
inline uint64_t roundToUint(double x) {
    if (x >= 0 && x < 4503599627370496.0) {
        const uint64_t whole = static_cast<uint64_t>(x);
        return whole + (x - static_cast<double>(whole) >= 0.5 ? 1 : 0);
    }
    return static_cast<uint64_t>(std::llround(x));
}

}  // namespace mlnet::cc

#endif
