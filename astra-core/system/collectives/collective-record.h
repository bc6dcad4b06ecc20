// What the engine reports about each rank's part of each collective. Its own header because the phase
// algorithms count the bytes they send into it while the engine owns the list.
#ifndef MLNET_SYSTEM_COLLECTIVES_COLLECTIVE_RECORD_H
#define MLNET_SYSTEM_COLLECTIVES_COLLECTIVE_RECORD_H

#include <cstdint>
#include <string>
#include <vector>

#include "util/time.h"
#include "workload/trace-types.h"

namespace mlnet {

struct CollectiveRecord {
    Rank rank;
    uint64_t nodeId;
    CollectiveType type;
    uint64_t sizeBytes;
    GroupId group;
    TimeNs startNs;
    TimeNs endNs;
    bool finished;
    uint32_t chunks;
    std::vector<uint64_t> bytesSentPerDim;
    uint32_t commPriority =
        0;  // the node's comm_priority: the traffic class its messages take at packet level
    // Run by the NCCL model: its algorithm, protocol and channels ("Ring/LL128 x24"); empty otherwise.
    std::string nccl;
};

}  // namespace mlnet

#endif
