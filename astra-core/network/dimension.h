// ASTRA-sim's multi-dimensional network as a list of dimensions (Ring, FullyConnected or Switch; dimension 0
// is the fastest-varying digit of the NPU id), shared by the topology description and the analytical model.
#ifndef MLNET_NETWORK_DIMENSION_H
#define MLNET_NETWORK_DIMENSION_H

#include <cstdint>

namespace mlnet {

enum class DimensionKind { Ring, FullyConnected, Switch };
const char* toString(DimensionKind kind);

struct Dimension {
    DimensionKind kind;
    uint32_t npus;
    double bandwidthBytesPerNs;
    // Fractional on purpose: ASTRA-sim keeps latency as a double and its reference configs use values like
    // 936.25.
    double latencyNs;
};

// ASTRA-sim's network convention: 1 GB = 2^30 bytes, so 50 GB/s = 53.687 B/ns.
inline double gigabytesPerSecondToBytesPerNs(double gigabytesPerSecond) {
    return gigabytesPerSecond * 1073741824.0 / 1e9;
}

}  // namespace mlnet

#endif
