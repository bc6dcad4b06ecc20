// Turns one parsed Chakra Node record into a TraceNode, checking every attribute the simulator reads:
// presence per node type, value type (any integral encoding is accepted, with range checks) and meaning
// (ranks, communicator ids).
#ifndef MLNET_WORKLOAD_NODE_DECODER_H
#define MLNET_WORKLOAD_NODE_DECODER_H

#include <cstdint>
#include <string>

#include "trace-options.h"
#include "trace-types.h"
#include "util/diagnostics.h"

namespace ChakraProtoMsg {
class Node;
class AttributeProto;
}  // namespace ChakraProtoMsg

namespace mlnet {

class NodeDecoder {
public:
    // numRanks 0 means unknown (peer ranks are then only checked for width).
    NodeDecoder(RankTrace& trace, uint32_t numRanks, const TraceReadOptions& options, Diagnostics& diag);

    // Appends the decoded node to the trace. Returns false (after reporting) when the record is invalid.
    bool decode(const ChakraProtoMsg::Node& record);

    uint64_t cpuSideCommNodes() const { return m_cpuSideCommNodes; }
    uint64_t firstCpuSideCommNode() const { return m_firstCpuSideCommNode; }

private:
    enum Attr {
        kIsCpuOp,
        kCommType,
        kCommSize,
        kCommSrc,
        kCommDst,
        kCommTag,
        kCommPriority,
        kPgName,
        kCommGroup,
        kInvolvedDim,
        kTensorSize,
        kNumOps,
        kNumAttrs
    };

    bool readUnsigned(Attr attr, uint64_t max, uint64_t& value);
    bool requireUnsigned(Attr attr, uint64_t max, uint64_t& value);
    bool readFlag(Attr attr, bool& value);
    bool readGroup(GroupId& group);
    bool readInvolvedDims(uint32_t& mask);
    bool readPeer(Attr attr, Rank& peer);
    bool checkOwnRank(Attr attr);
    bool decodeProcessGroups(const ChakraProtoMsg::Node& record);
    std::string where(Attr attr) const;

    RankTrace& m_trace;
    uint32_t m_numRanks;
    const TraceReadOptions& m_options;
    Diagnostics& m_diag;
    uint64_t m_nodeId = 0;
    NodeType m_nodeType = NodeType::Invalid;
    const ChakraProtoMsg::AttributeProto* m_attrs[kNumAttrs] = {};
    uint64_t m_cpuSideCommNodes = 0;
    uint64_t m_firstCpuSideCommNode = 0;
};

}  // namespace mlnet

#endif
