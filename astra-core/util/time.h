// The simulator's units of time and the one place they convert. The training-loop core and the analytical
// networks count whole nanoseconds (ASTRA-sim's cycle); the packet model counts picoseconds, because a 1 kB
// frame at 100 Gb/s lasts 86.56 ns and serialization must not be rounded per frame.
#ifndef MLNET_UTIL_TIME_H
#define MLNET_UTIL_TIME_H

#include <cstdint>

namespace mlnet {

using TimeNs = uint64_t;
using TimePs = uint64_t;

inline constexpr uint64_t kPsPerNs = 1000;
// The packet model's "not scheduled" / "no such time": later than every event.
inline constexpr TimePs kNeverPs = UINT64_MAX;

// Saturates at kNeverPs (2^64 ps is 213 days, well inside the core's limit below): a time beyond it stays
// "never" instead of wrapping to a small one.
constexpr TimePs nsToPs(TimeNs ns) {
    return ns > kNeverPs / kPsPerNs ? kNeverPs : ns * kPsPerNs;
}
constexpr TimePs addPs(TimePs a, TimePs b) {
    return a > kNeverPs - b ? kNeverPs : a + b;
}
// Truncates: an event at 1.9 ns happened during nanosecond 1.
constexpr TimeNs psToNs(TimePs ps) {
    return ps / kPsPerNs;
}

// Simulated times of the training-loop core end at 2^62 ns (146 years), so that a time plus a delay still
// fits 64 bits. Times computed as doubles (size / bandwidth, ops / rate) saturate there rather than wrap; a
// run that reaches the limit reports that an input is beyond any physical range.
inline constexpr TimeNs kTimeLimitNs = TimeNs{1} << 62;
inline TimeNs saturatedNs(double ns) {
    return !(ns < static_cast<double>(kTimeLimitNs)) ? kTimeLimitNs : ns > 0 ? static_cast<TimeNs>(ns) : 0;
}

// Exact products of 64-bit quantities (bits x 10^12, bytes x rates) before a division.
__extension__ typedef unsigned __int128 Uint128;

}  // namespace mlnet

#endif
