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
    // Time integral of queueBytes up to this moment (byte·ns). The difference of two records over their time
    // difference is the port's mean queue over the interval, independent of who sampled it: a paced flow's
    // own packets never queue behind each other, so point readings of the queue taken at its own departures
    // see less queue the larger its share of the port (a bias that makes faster flows faster under HPCC).
    uint64_t queueByteNs = 0;
};

}  // namespace mlnet::cc

#endif
