// The HPCC-format flow file: "<count>", then one flow per line "<src> <dst> <pg> <dport> <size bytes> <start
// s>", with nodes named by the topology's original ids (as fct.txt and pfc.txt name them).
#ifndef MLNET_ROCE_FLOW_FILE_H
#define MLNET_ROCE_FLOW_FILE_H

#include <cstdint>
#include <string>
#include <vector>

#include "network/topology-spec.h"
#include "util/diagnostics.h"

namespace mlnet::roce {

struct FlowSpec {
    uint32_t srcNode, dstNode;
    uint8_t priority;  // pg: 802.1p class 0..7
    uint16_t dport;
    uint64_t sizeBytes;
    uint64_t startNs;
    int line = 0;  // in the flow file it was read from (0: not read from a file)
};

// Reads the flow count F, then F lines "<src> <dst> <pg> <dport> <size bytes> <start s>". Start times are
// decimal seconds converted exactly to ns (digits below 1 ns are rounded, with one warning). Errors, each
// naming the file and line: a node that is not a host of the topology, src == dst, pg outside
// 0..7, dport above 65535, size 0 or above 2^64 - 1, a start earlier than the previous flow's (the reference
// requires sorted starts), fewer than F flow lines. More lines than F: a warning, and only F are read, as the
// reference does.
// referenceStarts: start seconds are read as the HPCC reference reads them, through a double and truncated to
// the ns (2.000017887 becomes 2000017886 ns), instead of exactly.
std::vector<FlowSpec> loadFlowFile(const std::string& path, const TopologySpec& topology, Diagnostics& diag,
                                   bool referenceStarts = false);

// The reference's reading of a start time in seconds: the nearest double, times 1e9 exactly, rounded down.
uint64_t referenceStartNs(double seconds);

// The file loadFlowFile reads back exactly: the count, then one line per flow with the start in seconds to
// the nanosecond ("2.000012345"). Flows must be sorted by start (the reference starts them in file order).
std::string formatFlowFile(const std::vector<FlowSpec>& flows);

}  // namespace mlnet::roce

#endif
