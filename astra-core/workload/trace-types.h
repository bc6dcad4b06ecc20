// Compact, typed in-memory form of one rank's Chakra execution trace. Everything the simulator needs from a
// record is decoded once into TraceNode; strings other than node names are dropped unless asked for.
#ifndef MLNET_WORKLOAD_TRACE_TYPES_H
#define MLNET_WORKLOAD_TRACE_TYPES_H

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlnet {

// Values equal Chakra's NodeType enum on the wire.
enum class NodeType : uint8_t {
    Invalid = 0,
    Metadata = 1,
    MemLoad = 2,
    MemStore = 3,
    Compute = 4,
    Send = 5,
    Recv = 6,
    Collective = 7,
};
inline constexpr int kNumNodeTypes = 8;

// Values equal Chakra's CollectiveCommType enum (carried by the integer attribute comm_type).
enum class CollectiveType : uint8_t {
    AllReduce = 0,
    Reduce = 1,
    AllGather = 2,
    Gather = 3,
    Scatter = 4,
    Broadcast = 5,
    AllToAll = 6,
    ReduceScatter = 7,
    ReduceScatterBlock = 8,
    Barrier = 9,
};
inline constexpr int kNumCollectiveTypes = 10;

std::string_view toString(NodeType type);
std::string_view toString(CollectiveType type);  // Chakra spelling, e.g. "ALL_REDUCE"

using NodeIndex = uint32_t;  // dense position of a node within its rank's trace
using Rank = uint32_t;
using GroupId = uint32_t;  // communicator id from pg_name; 0 is the world group
inline constexpr GroupId kWorldGroup = 0;

struct TraceNode {
    enum Flags : uint8_t {
        kCpuOp = 1 << 0,  // is_cpu_op: occupies the CPU slot of the rank
        kHasTensorSize = 1 << 1,
        kHasNumOps = 1 << 2,
        // A communication node recorded on the CPU side (PyTorch's c10d::* operators): it carries no
        // communication attributes, so it is replayed as a CPU operation of its duration.
        kCpuSideComm = 1 << 3,
    };

    uint64_t id = 0;
    uint64_t durationMicros = 0;
    // comm_size for SEND/RECV/COLL nodes (bytes; for ALL_GATHER the per-rank input shard).
    uint64_t commSizeBytes = 0;
    uint64_t tensorSizeBytes = 0;  // tensor_size (memory nodes; roofline compute)
    uint64_t numOps = 0;           // num_ops (roofline compute)
    uint64_t tag = 0;              // comm_tag of SEND/RECV
    Rank peer = 0;                 // SEND: destination rank, RECV: source rank
    GroupId group = kWorldGroup;   // COLL: communicator
    uint32_t priority = 0;         // COLL: comm_priority
    uint32_t involvedDims = std::numeric_limits<uint32_t>::max();  // COLL: bit d = dimension d takes part
    uint32_t nameOffset = 0;                                       // into RankTrace::names
    uint32_t nameLength = 0;
    NodeType type = NodeType::Invalid;
    CollectiveType collective = CollectiveType::AllReduce;
    uint8_t flags = 0;

    bool isCpuOp() const { return flags & kCpuOp; }
    bool isCpuSideComm() const { return flags & kCpuSideComm; }
    // A GPU collective with its communication attributes, i.e. one the system layer must simulate.
    bool isSimulatedCollective() const { return type == NodeType::Collective && !isCpuSideComm(); }
};

// A communicator declared inside a trace by a PyTorch process-group METADATA node.
struct DeclaredGroup {
    GroupId id = 0;
    std::vector<Rank> ranks;  // empty: every rank
    uint64_t nodeId = 0;      // the METADATA node that declared it
};

struct RankTrace {
    std::string path;
    Rank rank = 0;
    std::string version;           // GlobalMetadata.version
    std::vector<TraceNode> nodes;  // file order
    // Enforced parents in CSR form: parents of nodes[i] are parents[parentBegin[i] .. parentBegin[i + 1]).
    std::vector<uint32_t> parentBegin;
    std::vector<NodeIndex> parents;
    std::string names;  // node names, concatenated
    std::vector<DeclaredGroup> declaredGroups;
    // Statistics kept for reports.
    uint64_t danglingCtrlDeps = 0;
    bool ctrlDepsIgnored = false;  // the file's ctrl_deps could not be an execution order and were dropped
    uint64_t fileBytes = 0;

    std::string_view name(const TraceNode& node) const {
        return std::string_view(names).substr(node.nameOffset, node.nameLength);
    }
    std::size_t parentCount(NodeIndex i) const { return parentBegin[i + 1] - parentBegin[i]; }
    const NodeIndex* parentsBegin(NodeIndex i) const { return parents.data() + parentBegin[i]; }
    const NodeIndex* parentsEnd(NodeIndex i) const { return parents.data() + parentBegin[i + 1]; }
    // Dense index of the node with this id, if present. Uses idIndex, kept sorted by id.
    std::optional<NodeIndex> find(uint64_t id) const;

    std::vector<std::pair<uint64_t, NodeIndex>> idIndex;  // sorted by id
};

}  // namespace mlnet

#endif
