// Figures that describe a trace set at a glance, as printed by mlnet-check.
#ifndef MLNET_WORKLOAD_TRACE_SUMMARY_H
#define MLNET_WORKLOAD_TRACE_SUMMARY_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "trace-set.h"
#include "util/diagnostics.h"

namespace mlnet {

struct TraceSummary {
    struct Volume {
        uint64_t count = 0;
        uint64_t bytes = 0;  // sum of comm_size over the calls of every rank
    };
    uint32_t ranks = 0;
    uint64_t nodes = 0;
    std::array<uint64_t, kNumNodeTypes> nodesByType{};
    std::array<Volume, kNumCollectiveTypes> collectives{};
    Volume pointToPoint;  // SENDs
    uint64_t cpuSideCommNodes = 0;
    uint64_t communicators = 0;                  // including the world group
    std::vector<uint64_t> computeMicrosPerRank;  // sum of COMP_NODE duration_micros, GPU and CPU
    uint64_t fileBytes = 0;
};

TraceSummary summarize(const TraceSet& set);
std::string formatText(const TraceSummary& summary, const Diagnostics& diag);
std::string formatJson(const TraceSummary& summary, const Diagnostics& diag, bool valid);

}  // namespace mlnet

#endif
