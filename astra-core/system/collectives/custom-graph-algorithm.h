// MSCCL-style custom implementations: per collective type, one Chakra graph per position in the communicator
// (SEND/RECV/COMP nodes; comm_src/comm_dst are positions). A rank's run of its graph replaces the whole
// collective: one phase, outside the dimension queues, whose nodes issue as soon as their parents are done.
#ifndef MLNET_SYSTEM_COLLECTIVES_CUSTOM_GRAPH_ALGORITHM_H
#define MLNET_SYSTEM_COLLECTIVES_CUSTOM_GRAPH_ALGORITHM_H

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "system/collectives/phase-algorithm.h"
#include "workload/trace-set.h"

namespace mlnet {

struct CustomCollectives {
    const TraceSet* allReduce = nullptr;
    const TraceSet* reduceScatter = nullptr;
    const TraceSet* allGather = nullptr;
    const TraceSet* allToAll = nullptr;
    const TraceSet* forType(CollectiveType type) const;
};

// The children of every node of a graph, built on first use: traces store parents only, and every run of a
// graph walks it forwards.
class CustomGraphIndex {
public:
    struct Children {
        std::vector<uint32_t> begin;  // children of node i are nodes[begin[i] .. begin[i + 1])
        std::vector<NodeIndex> nodes;
    };
    const Children& of(const RankTrace& graph);

private:
    std::unordered_map<const RankTrace*, Children> m_children;
};

class CustomGraphAlgorithm final : public PhaseAlgorithm {
public:
    // The graph the next start() runs; the run's peers are the communicator, sent bytes count in its
    // dimension.
    void prepare(const RankTrace& graph, const CustomGraphIndex::Children& children) {
        m_graph = &graph;
        m_children = &children;
    }

private:
    void onStart() override;
    void startNode(NodeIndex index);
    void onNodeDone(uint64_t index);

    const RankTrace* m_graph = nullptr;
    const CustomGraphIndex::Children* m_children = nullptr;
    std::vector<uint32_t> m_pendingParents;
    uint32_t m_remaining = 0;
};

}  // namespace mlnet

#endif
