// The HPCC-format topology and flow files (roce-model.md §6.2, §6.3) with node ids kept as written: the flow
// file and the outputs (fct.txt, pfc.txt) name nodes by those ids, whereas astra-core's loadHpccTopology
// renumbers hosts into NPUs 0..H-1 for the training-loop core.
#ifndef MLNET_ROCE_FLOW_FILE_H
#define MLNET_ROCE_FLOW_FILE_H

#include <cstdint>
#include <string>
#include <vector>

#include "util/diagnostics.h"

namespace mlnet::roce {

struct HpccTopologyFile {
    uint32_t numNodes = 0;
    std::vector<uint32_t> switchIds;  // as listed in the file
    struct Cable {
        uint32_t a, b;
        uint64_t rateBps;
        uint64_t delayNs;
        double errorRate;  // per packet, 0..1
        int line = 0;      // in the topology file, for later messages
    };
    std::vector<Cable> cables;  // in file order; each is one full-duplex link
    std::vector<bool> isHost;   // indexed by node id
    std::string path;           // the file read, for messages of later checks
};

// Reads "<nodes> <switches> <links>", the switch ids (on one or more lines), then <links> lines
// "<a> <b> <rate> <delay> <error rate>" (rates such as 100Gbps, delays such as 1000ns / 0.001ms / 1us, error
// rates in 0..1). Lines after the last link are ignored with a warning, as the reference ignores them.
// Errors: malformed header or fields, ids out of range, a switch listed twice, a cable from a node to itself
// or repeated between the same pair (the reference keeps only the last), a host without a cable to a switch,
// or a host with no path through switches to the first host. A warning when a host id is 65536 or more, which
// the fct.txt IP form cannot hold. Returns an empty numNodes on errors.
HpccTopologyFile loadHpccTopologyFile(const std::string& path, Diagnostics& diag);

struct FlowSpec {
    uint32_t srcNode, dstNode;
    uint8_t priority;  // pg: 802.1p class 0..7
    uint16_t dport;
    uint64_t sizeBytes;
    uint64_t startNs;
};

// Reads the flow count F, then F lines "<src> <dst> <pg> <dport> <size bytes> <start s>". Start times are
// decimal seconds converted exactly to ns (digits below 1 ns are rounded, with one warning). Errors, each
// naming the file and line: a node that is not a host of isHost (indexed by node id), src == dst, pg outside
// 0..7, dport above 65535, size 0 or above 2^64 - 1, a start earlier than the previous flow's (the reference
// requires sorted starts), fewer than F flow lines. More lines than F: a warning, and only F are read, as the
// reference does.
std::vector<FlowSpec> loadFlowFile(const std::string& path, const std::vector<bool>& isHost,
                                   Diagnostics& diag);

}  // namespace mlnet::roce

#endif
