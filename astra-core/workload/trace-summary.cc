#include "trace-summary.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <numeric>
#include <sstream>

namespace mlnet {

TraceSummary summarize(const TraceSet& set) {
    TraceSummary s;
    s.ranks = set.numRanks();
    s.communicators = set.groups.size();
    for (const RankTrace& trace : set.ranks) {
        uint64_t computeMicros = 0;
        s.fileBytes += trace.fileBytes;
        for (const TraceNode& node : trace.nodes) {
            ++s.nodes;
            ++s.nodesByType[static_cast<int>(node.type)];
            if (node.isCpuSideComm()) {
                ++s.cpuSideCommNodes;
            } else if (node.type == NodeType::Collective) {
                auto& v = s.collectives[static_cast<int>(node.collective)];
                ++v.count;
                v.bytes += node.commSizeBytes;
            } else if (node.type == NodeType::Send) {
                ++s.pointToPoint.count;
                s.pointToPoint.bytes += node.commSizeBytes;
            } else if (node.type == NodeType::Compute) {
                computeMicros += node.durationMicros;
            }
        }
        s.computeMicrosPerRank.push_back(computeMicros);
    }
    return s;
}

std::string formatText(const TraceSummary& s, const Diagnostics& diag) {
    std::ostringstream out;
    out << "ranks: " << s.ranks << "\n";
    out << "nodes: " << s.nodes << " (" << s.fileBytes << " bytes of trace)\n";
    for (int t = 0; t < kNumNodeTypes; ++t) {
        if (s.nodesByType[t]) {
            out << "  " << toString(static_cast<NodeType>(t)) << ": " << s.nodesByType[t] << "\n";
        }
    }
    if (s.cpuSideCommNodes) {
        out << "  (" << s.cpuSideCommNodes
            << " CPU-side communication records, replayed as CPU operations)\n";
    }
    out << "collectives (calls summed over ranks, bytes = sum of comm_size):\n";
    bool any = false;
    for (int c = 0; c < kNumCollectiveTypes; ++c) {
        if (s.collectives[c].count) {
            any = true;
            out << "  " << toString(static_cast<CollectiveType>(c)) << ": " << s.collectives[c].count
                << " calls, " << s.collectives[c].bytes << " bytes\n";
        }
    }
    if (!any) {
        out << "  none\n";
    }
    out << "communicators: " << s.communicators << "\n";
    out << "point-to-point: " << s.pointToPoint.count << " messages, " << s.pointToPoint.bytes << " bytes\n";
    out << "compute time per rank (sum of COMP_NODE duration_micros):\n";
    if (s.ranks <= 32) {
        for (std::size_t r = 0; r < s.computeMicrosPerRank.size(); ++r) {
            out << "  rank " << r << ": " << s.computeMicrosPerRank[r] << " us\n";
        }
    } else if (!s.computeMicrosPerRank.empty()) {
        auto [lo, hi] = std::minmax_element(s.computeMicrosPerRank.begin(), s.computeMicrosPerRank.end());
        uint64_t total =
            std::accumulate(s.computeMicrosPerRank.begin(), s.computeMicrosPerRank.end(), uint64_t{0});
        out << "  min " << *lo << " us (rank " << lo - s.computeMicrosPerRank.begin() << "), max " << *hi
            << " us (rank " << hi - s.computeMicrosPerRank.begin() << "), mean " << total / s.ranks
            << " us\n";
    }
    out << "warnings: " << diag.warningCount() << "\n";
    return out.str();
}

std::string formatJson(const TraceSummary& s, const Diagnostics& diag, bool valid) {
    nlohmann::ordered_json j;
    j["valid"] = valid;
    j["ranks"] = s.ranks;
    j["nodes"] = s.nodes;
    j["trace_bytes"] = s.fileBytes;
    nlohmann::ordered_json types = nlohmann::ordered_json::object();
    for (int t = 0; t < kNumNodeTypes; ++t) {
        types[std::string(toString(static_cast<NodeType>(t)))] = s.nodesByType[t];
    }
    j["nodes_by_type"] = types;
    j["cpu_side_comm_nodes"] = s.cpuSideCommNodes;
    nlohmann::ordered_json colls = nlohmann::ordered_json::object();
    for (int c = 0; c < kNumCollectiveTypes; ++c) {
        if (s.collectives[c].count) {
            colls[std::string(toString(static_cast<CollectiveType>(c)))] = {
                {"calls", s.collectives[c].count}, {"bytes", s.collectives[c].bytes}};
        }
    }
    j["collectives"] = colls;
    j["communicators"] = s.communicators;
    j["point_to_point"] = {{"messages", s.pointToPoint.count}, {"bytes", s.pointToPoint.bytes}};
    j["compute_micros_per_rank"] = s.computeMicrosPerRank;
    nlohmann::ordered_json errors = nlohmann::ordered_json::array(),
                           warnings = nlohmann::ordered_json::array();
    for (const Diagnostic& d : diag.kept()) {
        (d.severity == Severity::Error ? errors : warnings).push_back(d.text);
    }
    j["error_count"] = diag.errorCount();
    j["errors"] = errors;
    j["warning_count"] = diag.warningCount();
    j["warnings"] = warnings;
    return j.dump(2) + "\n";
}

}  // namespace mlnet
