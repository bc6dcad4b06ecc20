// In-band network telemetry of one switch hop, as HPCC reads it. Full-width fields: no line-rate table, no
// wrapping of time, byte counters or queue depth.
#ifndef MLNET_CONGESTION_INT_HOP_H
#define MLNET_CONGESTION_INT_HOP_H

#include <cstdint>

namespace mlnet::cc {

struct IntHop {
    uint64_t timeNs;      // when the packet left the egress port
    uint64_t txBytes;     // bytes the egress port had sent before this packet
    uint64_t queueBytes;  // egress queue length over all priorities at that moment
    uint64_t rateBps;     // egress line rate
};

}  // namespace mlnet::cc

#endif
