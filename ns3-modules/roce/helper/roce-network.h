// Builds a RoCE network from an HPCC-format topology (hosts with one NIC port, switches with a port per
// cable), computes shortest-path ECMP routes once, and runs flows on it with a hang detector. This is the
// helper scenarios and mlnet-flows use; it hides the wiring of devices, channels, NICs, switches and buffers.
#ifndef MLNET_ROCE_NETWORK_H
#define MLNET_ROCE_NETWORK_H

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ns3/node.h"

#include "flow-file.h"
#include "roce-channel.h"
#include "roce-net-device.h"
#include "roce-nic.h"
#include "roce-switch.h"
#include "util/diagnostics.h"

namespace mlnet::roce {

class PcapWriter;

// ECN thresholds for ports of one line rate.
struct EcnRule {
    uint64_t rateBps;
    uint64_t kminBytes, kmaxBytes;
    double pmax;
};

struct RoceNetworkConfig {
    NicSettings nic;
    SwitchSettings switches;
    uint64_t bufferBytes = 32ull << 20;
    uint64_t reserveBytes = 4096;
    bool pfcEnabled = true;
    bool ecnEnabled = true;
    std::vector<EcnRule> ecn;  // every switch port's rate needs a rule when ECN is on
    // Headroom per port = factor x (bytes the peer can still send after a pause is triggered): two
    // propagation delays of line rate plus two maximum frames (the frame on the wire each way).
    double headroomFactor = 1.5;
    // The reference's alpha: 1/8, halved shift per doubling of the port rate above the NIC rate.
    uint32_t alphaShift = 3;
    uint64_t windowBytes = 0;   // fixed window for "none" (HAS_WIN); 0: none
    bool globalBaseRtt = true;  // base RTT/BDP of the longest host pair for every flow (GLOBAL_T)
    RoceNic::CcFactory ccFactory;
    uint64_t seed = 1;
    TimePs hangCheckPs = 10'000'000'000ull;  // 10 ms without delivery progress while flows remain: stop
    std::string pcapPath;                    // empty: no capture
};

struct FctRecordPs {
    uint64_t flowId;
    uint32_t srcNode, dstNode;
    uint16_t sport, dport;
    uint64_t sizeBytes;
    TimePs startPs, finishPs, idealPs;
};

struct PfcEvent {
    TimePs timePs;
    uint32_t nodeId;
    bool isSwitch;
    uint32_t port;
    uint8_t priority;
    bool pause;
};

class RoceNetwork {
public:
    // Errors (unsupported topology, missing ECN rule, ...) go to diag; check diag.hasErrors() before use.
    RoceNetwork(const HpccTopologyFile& topology, RoceNetworkConfig config, Diagnostics& diag);
    ~RoceNetwork();

    uint32_t NumHosts() const { return static_cast<uint32_t>(m_hostNodeIds.size()); }
    // Host index of a node id of the topology file, or UINT32_MAX.
    uint32_t HostOfNode(uint32_t nodeId) const { return m_hostOfNode[nodeId]; }
    uint32_t NodeOfHost(uint32_t host) const { return m_hostNodeIds[host]; }
    RoceNic& Nic(uint32_t host) { return *m_nics[host]; }
    const std::vector<ns3::Ptr<RoceSwitch>>& Switches() const { return m_switches; }

    // Schedules a message; completions are recorded in Fct().
    void AddFlow(uint32_t srcNode, uint32_t dstNode, uint64_t sizeBytes, uint8_t priority, uint16_t dport,
                 TimePs startPs, std::function<void(const FctRecordPs&)> done = nullptr);

    // Takes the cable between two nodes down at `atPs` (frames on it and later ones are lost; routes stay).
    bool ScheduleLinkDown(uint32_t nodeA, uint32_t nodeB, TimePs atPs);

    // Runs until every flow finished, `stopPs` is reached, or the hang detector fires. Returns true if every
    // flow finished.
    bool Run(TimePs stopPs);
    const std::string& HangReport() const { return m_hangReport; }

    // Path facts between two hosts (shortest path): base RTT = two propagation delays plus one MTU frame per
    // hop; ideal FCT = base RTT + (size + per-packet headers) at the bottleneck rate.
    cc::FlowParams FlowParamsOf(uint32_t srcHost, uint32_t dstHost) const;
    TimePs IdealFctPs(uint32_t srcHost, uint32_t dstHost, uint64_t sizeBytes) const;

    const std::vector<FctRecordPs>& Fct() const { return m_fct; }
    const std::vector<PfcEvent>& Pfc() const { return m_pfc; }
    uint64_t FlowsStarted() const { return m_flowsStarted; }
    uint64_t FlowsFinished() const { return m_fct.size(); }
    uint64_t TotalDrops() const;
    uint64_t DataPacketHops() const { return m_dataHops; }
    uint64_t PoolPacketsIssued() const { return m_pool->issued(); }

private:
    struct Path {
        uint32_t hops = 0;
        uint64_t delayNs = 0;
        uint64_t bottleneckBps = 0;
    };
    Path PathBetween(uint32_t srcHost, uint32_t dstHost) const;
    static void RecordPause(RoceNetwork* self, uint32_t nodeId, bool isSwitch, uint32_t port,
                            uint8_t priority, bool pause, uint64_t quanta);
    void ComputeRoutes();
    void StartFlow(uint64_t flowId);
    void CheckProgress();
    std::string DescribePauseCycle() const;

    RoceNetworkConfig m_config;
    std::unique_ptr<PacketPool> m_pool;
    std::unique_ptr<PcapWriter> m_pcap;
    uint32_t m_numNodes = 0;
    std::vector<uint32_t> m_hostNodeIds;
    std::vector<uint32_t> m_hostOfNode;
    std::vector<ns3::Ptr<ns3::Node>> m_nodes;  // by node id
    std::vector<ns3::Ptr<RoceSwitch>> m_switches;
    std::vector<int32_t> m_switchOfNode;
    std::vector<ns3::Ptr<RoceNic>> m_nicObjects;
    std::vector<RoceNic*> m_nics;
    // Adjacency: per node id, (neighbour node, local port, cable).
    struct Adjacent {
        uint32_t node;
        uint32_t port;
        uint32_t cable;
    };
    std::vector<std::vector<Adjacent>> m_adjacent;
    std::vector<HpccTopologyFile::Cable> m_cables;
    std::vector<ns3::Ptr<RoceChannel>> m_channels;
    std::vector<std::vector<uint16_t>> m_hopsToHost;  // per host: hop count from every node
    cc::FlowParams m_globalFlow;
    struct PendingFlow {
        uint32_t srcHost, dstHost;
        uint16_t dport;
        uint8_t priority;
        uint64_t sizeBytes;
        std::function<void(const FctRecordPs&)> done;
    };
    std::vector<PendingFlow> m_flows;
    std::vector<uint32_t> m_nextSport;  // per source host
    std::vector<FctRecordPs> m_fct;
    std::vector<PfcEvent> m_pfc;
    uint64_t m_flowsStarted = 0;
    uint64_t m_dataHops = 0;
    uint64_t m_lastProgress = 0;
    std::string m_hangReport;
    bool m_hung = false;
};

// Sets ns-3's time resolution to picoseconds (must run before any ns3::Time is created; idempotent).
void UsePicosecondTime();

}  // namespace mlnet::roce

#endif
