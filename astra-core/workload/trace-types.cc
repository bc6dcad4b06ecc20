#include "trace-types.h"

#include <algorithm>

namespace mlnet {

std::string_view toString(NodeType type) {
    switch (type) {
        case NodeType::Invalid:
            return "INVALID_NODE";
        case NodeType::Metadata:
            return "METADATA_NODE";
        case NodeType::MemLoad:
            return "MEM_LOAD_NODE";
        case NodeType::MemStore:
            return "MEM_STORE_NODE";
        case NodeType::Compute:
            return "COMP_NODE";
        case NodeType::Send:
            return "COMM_SEND_NODE";
        case NodeType::Recv:
            return "COMM_RECV_NODE";
        case NodeType::Collective:
            return "COMM_COLL_NODE";
    }
    return "UNKNOWN_NODE";
}

std::string_view toString(CollectiveType type) {
    switch (type) {
        case CollectiveType::AllReduce:
            return "ALL_REDUCE";
        case CollectiveType::Reduce:
            return "REDUCE";
        case CollectiveType::AllGather:
            return "ALL_GATHER";
        case CollectiveType::Gather:
            return "GATHER";
        case CollectiveType::Scatter:
            return "SCATTER";
        case CollectiveType::Broadcast:
            return "BROADCAST";
        case CollectiveType::AllToAll:
            return "ALL_TO_ALL";
        case CollectiveType::ReduceScatter:
            return "REDUCE_SCATTER";
        case CollectiveType::ReduceScatterBlock:
            return "REDUCE_SCATTER_BLOCK";
        case CollectiveType::Barrier:
            return "BARRIER";
    }
    return "UNKNOWN_COLLECTIVE";
}

std::optional<NodeIndex> RankTrace::find(uint64_t id) const {
    auto it = std::lower_bound(idIndex.begin(), idIndex.end(), id,
                               [](const auto& entry, uint64_t key) { return entry.first < key; });
    if (it == idIndex.end() || it->first != id) {
        return std::nullopt;
    }
    return it->second;
}

}  // namespace mlnet
