#include "collective-report.h"

#include <string>

namespace mlnet {

nlohmann::ordered_json collectivesJson(const std::vector<CollectiveRecord>& records) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const CollectiveRecord& c : records) {
        const nlohmann::ordered_json unfinished;
        out.push_back({{"rank", c.rank},
                       {"node", c.nodeId},
                       {"type", std::string(toString(c.type))},
                       {"size_bytes", c.sizeBytes},
                       {"communicator", c.group},
                       {"chunks", c.chunks},
                       {"start_ns", c.startNs},
                       {"end_ns", c.finished ? nlohmann::ordered_json(c.endNs) : unfinished},
                       {"duration_ns", c.finished ? nlohmann::ordered_json(c.endNs - c.startNs) : unfinished},
                       {"bytes_sent_per_dim", c.bytesSentPerDim}});
        if (!c.nccl.empty()) {
            out.back()["nccl"] = c.nccl;  // NCCL's algorithm/protocol and channels
        }
    }
    return out;
}

void addInNetworkReduction(nlohmann::ordered_json& report, uint64_t reductions, uint64_t bytesIn,
                           uint64_t bytesOut) {
    if (reductions > 0 || bytesIn > 0) {
        report["in_network_reduction"] = {
            {"reductions", reductions}, {"bytes_in", bytesIn}, {"bytes_out", bytesOut}};
    }
}

}  // namespace mlnet
