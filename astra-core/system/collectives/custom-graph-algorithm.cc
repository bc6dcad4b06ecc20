#include "custom-graph-algorithm.h"

#include "workload/rank-trace-reader.h"

namespace mlnet {

const TraceSet* CustomCollectives::forType(CollectiveType type) const {
    switch (type) {
        case CollectiveType::AllReduce:
            return allReduce;
        case CollectiveType::ReduceScatter:
            return reduceScatter;
        case CollectiveType::AllGather:
            return allGather;
        case CollectiveType::AllToAll:
            return allToAll;
        default:
            return nullptr;
    }
}

const CustomGraphIndex::Children& CustomGraphIndex::of(const RankTrace& graph) {
    auto [it, inserted] = m_children.try_emplace(&graph);
    if (inserted) {
        Children& c = it->second;
        c.begin = childrenCsr(graph.parentBegin, graph.parents, c.nodes);
    }
    return it->second;
}

void CustomGraphAlgorithm::onStart() {
    const RankTrace& graph = *m_graph;
    const auto count = static_cast<uint32_t>(graph.nodes.size());
    m_pendingParents.resize(count);
    m_remaining = count;
    for (NodeIndex i = 0; i < count; ++i) {
        m_pendingParents[i] = static_cast<uint32_t>(graph.parentCount(i));
    }
    if (count == 0) {
        finishAfter(0);
        return;
    }
    for (NodeIndex i = 0; i < count; ++i) {
        if (m_pendingParents[i] == 0) {
            startNode(i);
        }
    }
}

void CustomGraphAlgorithm::startNode(NodeIndex index) {
    const TraceNode& node = m_graph->nodes[index];
    const Callback done = makeCallback<&CustomGraphAlgorithm::onNodeDone>(this, index);
    const uint64_t tag = run().tag.encodeGraphTag(node.tag);
    switch (node.type) {
        case NodeType::Send:
            sendTagged(peers().at(node.peer), tag, node.commSizeBytes, done);
            break;
        case NodeType::Recv:
            recvTagged(peers().at(node.peer), tag, node.commSizeBytes, done);
            break;
        case NodeType::Compute:
            after(node.durationMicros == 0 ? 1 : node.durationMicros * 1000, done);
            break;
        default:
            after(0, done);
            break;
    }
}

void CustomGraphAlgorithm::onNodeDone(uint64_t index) {
    const CustomGraphIndex::Children& c = *m_children;
    for (uint32_t k = c.begin[index]; k < c.begin[index + 1]; ++k) {
        if (--m_pendingParents[c.nodes[k]] == 0) {
            startNode(c.nodes[k]);
        }
    }
    if (--m_remaining > 0) {
        return;
    }
    finish();
}

}  // namespace mlnet
