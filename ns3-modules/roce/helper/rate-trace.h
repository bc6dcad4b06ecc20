// --rate-trace of mlnet-flows and mlnet-ns3: every change of a queue pair's rate or window, one line each,
// "time_ns src_node flow rate_bps window_bytes" (scripts/plot-rates reads it). Given a switch egress port,
// only the flows whose data crosses that port, each also at its first and its last frame through it (with its
// rate then), so that a plot of them spans their time at the port (scripts/plot-congestion); those lines are
// held until Commit(), as which flows cross the port is known only when their frames do.
#ifndef MLNET_ROCE_RATE_TRACE_H
#define MLNET_ROCE_RATE_TRACE_H

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "result-writers.h"
#include "roce-fabric.h"

namespace mlnet::roce {

// A switch's egress port: the switch's node id in the topology (as in qlen.txt and pfc.txt) and the port.
struct SwitchPort {
    uint32_t nodeId = 0, port = 0;
};
// "NODE:PORT"; nullopt unless both are whole numbers.
std::optional<SwitchPort> parseSwitchPort(const std::string& text);

class RateTrace {
public:
    // Every queue pair of the fabric, streamed to `path`; with `port`, only the flows through it. Errors (a
    // port the fabric has not) name `option`, the flag that gave it.
    RateTrace(RoceFabric& fabric, const std::string& path, std::optional<SwitchPort> port,
              const std::string& option, Diagnostics& diag);
    RateTrace(const RateTrace&) = delete;
    RateTrace& operator=(const RateTrace&) = delete;
    // Writes what is held and puts the file in place; false (reported) on a write error.
    bool Commit();
    // Flows seen at the port (0 without one).
    std::size_t FlowsThroughPort() const { return m_flows.size(); }

private:
    struct NicContext {
        RateTrace* trace;
        uint32_t nodeId;
    };
    struct Record {
        TimePs timePs;
        uint32_t srcNode;
        uint64_t flow, rateBps, windowBytes;
    };
    struct FlowAtPort {
        uint32_t srcNode;
        TimePs lastPs;
        uint64_t rateBps, windowBytes;
    };
    static void OnRate(NicContext* context, uint64_t flow, uint64_t rateBps, uint64_t windowBytes);
    static void OnTx(RateTrace* trace, const RocePacket* packet);
    static std::string Line(const Record& r);

    RoceFabric& m_fabric;
    std::unique_ptr<LineStream> m_out;
    bool m_portOnly = false;
    std::vector<NicContext> m_contexts;  // one per NIC, bound to its trace source
    std::unordered_map<uint64_t, FlowAtPort> m_flows;
    std::vector<Record> m_held;
};

}  // namespace mlnet::roce

#endif
