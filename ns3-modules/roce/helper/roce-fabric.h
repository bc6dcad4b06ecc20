// Builds the RoCE network of a TopologySpec: a device at each end of every cable, a NIC per host (one port
// per cable of the host), a shared-buffer switch per switch vertex, and, where hosts forward
// (multi-dimensional and switchless networks), a forwarding switch inside each NPU with its NIC behind it.
// Routes come from the description's Routing, computed once. The fabric starts messages and reports on the
// network; it never stops or destroys the simulator (the flow runner and the bridge decide when a run ends).
#ifndef MLNET_ROCE_FABRIC_H
#define MLNET_ROCE_FABRIC_H

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ns3/node.h"

#include "episode-memo.h"
#include "fabric-settings.h"
#include "network/routing.h"
#include "network/topology-spec.h"
#include "roce-channel.h"
#include "roce-net-device.h"
#include "roce-nic.h"
#include "roce-switch.h"
#include "scale-up-fluid.h"
#include "uncontended-fluid.h"
#include "util/diagnostics.h"

namespace mlnet::roce {

class PcapWriter;

// A PFC frame as the reference logs it: at the device that received it.
struct PfcEvent {
    TimePs timePs;
    uint32_t nodeId;  // original id of the node
    bool isSwitch;
    uint32_t port;  // 0-based device index (pfc.txt writes the reference's 1-based ifindex)
    uint8_t priority;
    bool pause;
};

class RoceFabric {
public:
    // Errors (a port rate without ECN thresholds, ...) go to diag; check diag.hasErrors() before use.
    RoceFabric(std::shared_ptr<const TopologySpec> spec, FabricSettings settings, Diagnostics& diag);
    ~RoceFabric();
    // Puts the pcap capture (FabricSettings::pcapPath) in place; without it, the capture is discarded. False
    // (reported to the diagnostics the fabric was built with) on a write error.
    bool FinishCapture();
    RoceFabric(const RoceFabric&) = delete;
    RoceFabric& operator=(const RoceFabric&) = delete;

    // What a fabric of `spec` takes, for the check before it is built (util/memory-limit.h): measured on
    // fat-trees (k = 8..64) and Clos networks of 256-1,024 hosts, about 4.5 KB per port (both ends of every
    // cable: the device, its switch or NIC share, queues and routes) over a base of 20 MB; k=64's 393,216
    // ports took 1.72 GB.
    static uint64_t EstimateMemoryBytes(const TopologySpec& spec) {
        return 20'000'000 + 4'500 * 2 * static_cast<uint64_t>(spec.cables.size());
    }

    const TopologySpec& Spec() const { return *m_spec; }
    const Routing& Routes() const { return *m_routing; }
    const FabricSettings& Settings() const { return m_settings; }
    uint32_t NumHosts() const { return m_spec->numHosts(); }
    uint32_t NodeIdOfHost(uint32_t host) const { return m_spec->vertices[host].originalId; }
    // Host index of an original node id, or UINT32_MAX when the id is not a host.
    uint32_t HostOfNodeId(uint32_t nodeId) const {
        return nodeId < m_hostOfNodeId.size() ? m_hostOfNodeId[nodeId] : UINT32_MAX;
    }
    RoceNic& Nic(uint32_t host) { return *m_nics[host]; }
    const RoceNic& Nic(uint32_t host) const { return *m_nics[host]; }
    // Every switch, including the forwarding switches of NPUs, in vertex order.
    const std::vector<ns3::Ptr<RoceSwitch>>& Switches() const { return m_switches; }

    // The random streams of the fabric: one per switch (ECN marking) in vertex order, then one per cable
    // (loss). The constructor assigns streams 0 .. StreamsUsed() - 1, so results depend on the seed
    // (RngSeedManager) and the network only; AssignStreams moves them. Returns the streams used.
    int64_t AssignStreams(int64_t stream);
    int64_t StreamsUsed() const { return m_streamsUsed; }

    // Opens a connection from srcHost to dstHost (a queue pair with its own UDP source port) and starts a
    // message of sizeBytes on it now. `sent` fires at the sender's last ACK; `received`, if given, when the
    // last byte has arrived in order at dstHost. The connection closes when the sender is done.
    // `flowDstPort`: the destination port of an HPCC flow file's flow (100 in the reference's own inputs and
    // in ASTRA-sim's ns-3 backend); the reference's ECMP hashes it.
    void StartMessage(uint64_t messageId, uint32_t srcHost, uint32_t dstHost, uint64_t sizeBytes,
                      uint8_t priority, std::function<void(const FlowCompletion&)> sent,
                      RoceNic::Received received = nullptr, uint16_t flowDstPort = kDefaultFlowDstPort);
    static constexpr uint16_t kDefaultFlowDstPort = 100;
    // From this many ports on (both ends of every cable), the fabric puts the heap it is built in on huge
    // pages (adviseHugePagesForHeap), once per process, unless FabricSettings::hugePageHeap is off. Smaller
    // ones keep 4 KB pages: their state fits in what the TLB covers (the k=4 fat-tree's 96 ports: 3.5 MB of
    // heap, 0.96x CPU on huge pages), and 2 MB pages would only round their memory up (13 MB became 15-17).
    // The k=8 fat-tree's 768: 0.88x CPU.
    static constexpr std::size_t kHugePageMinPorts = 256;
    // From this many ports on, a NIC hears of a frame on its way when the frame before it on the cable
    // arrives, not when it leaves the far end (RoceNetDevice::SetArrivalHintAtPreviousFrame): the k=8
    // fat-tree's all-to-all HPCC 0.91x CPU, the k=4 one's 1.03x.
    static constexpr std::size_t kLateArrivalHintMinPorts = 256;

    // Path facts between two hosts (the route of the first flow port): base RTT = two propagation delays plus
    // one MTU frame per hop; ideal FCT = base RTT + (size + per-packet headers) at the bottleneck rate.
    // Its line rate is left 0: the NIC sets the rate of the port a flow leaves on.
    cc::FlowParams FlowParamsOf(uint32_t srcHost, uint32_t dstHost) const;
    TimePs IdealFctPs(uint32_t srcHost, uint32_t dstHost, uint64_t sizeBytes) const;

    // Takes the cable between two nodes (original ids) down at `atPs`: frames on it and later ones are lost;
    // routes stay. False when the nodes share no cable.
    bool ScheduleLinkDown(uint32_t nodeA, uint32_t nodeB, TimePs atPs);

    // Bytes move that no packet shows, so a hang check must not count the time as lost: a fast-forward jump
    // is running (the network's state is of a later time than the simulator's clock), a replayed episode's
    // or a scale-up fluid message is on its way.
    bool NetworkAhead() const;
    // With FabricSettings::fastForward: the jumps' account, closed (call before reading results). Null
    // without fast-forward.
    const FastForwardStats* FinishFastForward();
    const FastForwardStats* FastForwardResult() const {
        return m_fastForward ? &m_fastForward->Stats() : nullptr;
    }
    // With FabricSettings::memoizeEpisodes: what was replayed instead of simulated. Null without it.
    const EpisodeMemoStats* EpisodeMemoResult() const { return m_memo ? &m_memo->Stats() : nullptr; }
    // The fluid scale-up domains (FabricSettings::scaleUp), or null when they are RoCE links or absent.
    const ScaleUpFluid* ScaleUpModel() const { return m_scaleUp.get(); }
    ScaleUpFluid* ScaleUpModel() { return m_scaleUp.get(); }
    // The fluid stand-ins for messages alone on their path (FabricSettings::fluidUncontended), or null.
    const UncontendedFluid* UncontendedModel() const { return m_uncontended.get(); }

    // PFC frames received so far, in order; empty once a sink takes them (SetPfcSink).
    const std::vector<PfcEvent>& Pfc() const { return m_pfc; }
    // Hands every later PFC frame to `sink` instead of keeping it: long runs stream pfc.txt.
    void SetPfcSink(std::function<void(const PfcEvent&)> sink) { m_pfcSink = std::move(sink); }
    uint64_t PauseFramesReceived() const { return m_pauseFrames; }
    uint64_t TotalDrops() const;
    uint64_t DataPacketHops() const;
    // In-order payload bytes accepted by all NICs: what the hang detectors watch.
    uint64_t DeliveredBytes() const;
    uint64_t PoolPacketsIssued() const { return m_pool->issued(); }
    // Every unfinished queue pair, and the paused switch ports with any PFC wait-for cycle (a PFC deadlock).
    std::string DescribeActive() const;
    // The frame on a wire or a cable now that arrives last: the network still moves, however slowly (a dead
    // link or a PFC deadlock has none). nullopt when every wire and cable is empty.
    struct FrameOnTheWay {
        uint32_t nodeId = 0, port = 0;  // the sending port
        uint64_t rateBps = 0;
        TimePs delayPs = 0;
        TimePs arrivalPs = 0;
    };
    std::optional<FrameOnTheWay> LatestFrameOnTheWay() const;
    std::string DescribePauseCycle() const;

private:
    struct Path {
        uint32_t hops = 0;
        TimePs delayPs = 0;
        uint64_t bottleneckBps = 0;
        uint64_t payloadTxNs =
            0;  // one MTU payload serialized on every hop, each truncated to ns (the reference's)
    };
    Path PathBetween(uint32_t srcHost, uint32_t dstHost) const;
    static constexpr std::size_t kMaxCachedPaths = 1u << 20;  // about 48 MB of pairs at most
    mutable std::unordered_map<uint64_t, Path> m_paths;
    mutable std::vector<uint32_t> m_pathCables;
    uint32_t LongestRouteHops() const;
    bool ConfigurePorts(uint32_t vertex, const std::vector<ns3::Ptr<RoceNetDevice>>& devices,
                        uint64_t nicRateBps, MmuConfig& mmu, Diagnostics& diag) const;
    // A buffer that leaves no shared pool, or ECN thresholds beyond the buffer, is a configuration error.
    bool CheckBuffer(uint32_t vertex, const MmuConfig& mmu, Diagnostics& diag) const;
    // A switch's reduction engine (TopologySpec::engines).
    bool IsEngine(uint32_t vertex) const { return m_spec->vertices[vertex].reductionEngine; }
    static void RecordPause(RoceFabric* self, uint32_t nodeId, bool isSwitch, uint32_t port, uint8_t priority,
                            bool pause, uint64_t quanta);

    std::shared_ptr<const TopologySpec> m_spec;
    std::unique_ptr<Routing> m_routing;
    FabricSettings m_settings;
    std::unique_ptr<PacketPool> m_pool;
    std::unique_ptr<FreshStreamDraws> m_referenceDraws;  // FabricSettings::referenceMarkingDraws
    std::unique_ptr<PcapWriter> m_pcap;
    std::vector<uint32_t> m_hostOfNodeId;
    std::vector<uint32_t> m_hostNodeIds;       // by host index, for pcap addresses
    std::vector<ns3::Ptr<ns3::Node>> m_nodes;  // by vertex
    std::vector<ns3::Ptr<RoceSwitch>> m_switches;
    std::vector<ns3::Ptr<RoceNic>> m_nicObjects;
    std::vector<RoceNic*> m_nics;
    std::vector<std::vector<ns3::Ptr<RoceNetDevice>>> m_devices;  // by vertex, in port order
    std::vector<ns3::Ptr<RoceChannel>> m_channels;                // by cable
    int64_t m_streamsUsed = 0;
    // What a new connection's congestion control is told: the network-wide facts or its own path's.
    cc::FlowParams FlowParamsFor(uint32_t srcHost, uint32_t dstHost) const;
    cc::FlowParams m_globalFlow;
    // A connection's UDP source port: per source host (ours), or per (source, destination) pair from 10000
    // as the reference numbers them (with its ECMP hashing, whose paths depend on the port).
    uint16_t NextSourcePort(uint32_t srcHost, uint32_t dstHost);
    FlowPortAllocator m_flowPorts;
    std::unordered_map<uint64_t, uint16_t> m_pairPorts;
    struct Connection {
        uint32_t qp = 0, receiveContext = 0;
    };
    std::unordered_map<uint64_t, Connection> m_connections;  // reuseConnections: by (src, dst, priority)
    uint64_t m_nextConnection = uint64_t{1} << 62;           // ids apart from message ids
    void TakeDown(uint32_t cable);
    // A message on a queue pair of its own, from UDP source port `sport`; returns the QP (at srcHost).
    // `carried`: its congestion control so far (RoceNic::OpenConnection).
    uint32_t StartOnOwnQp(uint64_t messageId, uint32_t srcHost, uint32_t dstHost, uint64_t sizeBytes,
                          uint8_t priority, uint16_t sport, uint16_t flowDstPort, RoceNic::Done sent,
                          RoceNic::Received received,
                          std::unique_ptr<cc::CongestionControl> carried = nullptr);
    // What makes a running episode unclean for the memo: marks, pauses, drops, timeouts, NACKs, resends.
    uint64_t Disturbances() const;
    // Its switches' part (pause frames, ECN marks, drops): O(switches), cheap enough to poll often.
    uint64_t SwitchDisturbances() const;
    std::unique_ptr<FabricFastForward> m_fastForward;
    std::unique_ptr<EpisodeMemo> m_memo;
    std::unique_ptr<ScaleUpFluid> m_scaleUp;
    std::unique_ptr<UncontendedFluid> m_uncontended;
    std::vector<PfcEvent> m_pfc;
    std::function<void(const PfcEvent&)> m_pfcSink;
    uint64_t m_pauseFrames = 0;
};

// Sets ns-3's time resolution to picoseconds and selects our event scheduler (must run before any ns3::Time
// is created; idempotent).
void UsePicosecondTime();

// One simulation's lifetime: picosecond time from the start, Simulator::Destroy at the end (after the fabric,
// when declared before it), so tools and tests need no Destroy on every return path.
class SimulatorSession {
public:
    SimulatorSession() { UsePicosecondTime(); }
    ~SimulatorSession();
    SimulatorSession(const SimulatorSession&) = delete;
    SimulatorSession& operator=(const SimulatorSession&) = delete;
};

}  // namespace mlnet::roce

#endif
