// Output-queued shared-buffer switch: per-flow ECMP on shortest paths, SwitchMmu admission with PFC
// pause/resume (refreshed while congested) and RED/ECN marking at dequeue, INT stamping for HPCC, strict
// priority for class 0 (ACKs and other control) and round-robin or deficit round-robin among data classes.
// Drops are counted and traced.
#ifndef MLNET_ROCE_SWITCH_H
#define MLNET_ROCE_SWITCH_H

#include <vector>

#include "ns3/node.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include "roce-net-device.h"
#include "roce-port-owner.h"
#include "switch-mmu.h"

namespace mlnet::roce {

enum class DataScheduler { RoundRobin, DeficitRoundRobin };

struct SwitchSettings {
    bool intEnabled = false;
    DataScheduler scheduler = DataScheduler::RoundRobin;
    uint32_t dwrrQuantumBytes = 1500;
    uint16_t pauseQuanta = 0xffff;
    TimePs queueSampleIntervalPs = 0;  // 0: no queue samples
    TimePs queueSampleStartPs = 0;     // samples are kept only inside [start, end]
    TimePs queueSampleEndPs = UINT64_MAX;
};

class RoceSwitch : public ns3::Node, public RocePortOwner {
public:
    static ns3::TypeId GetTypeId();
    RoceSwitch();

    // Wiring (RoceNetworkHelper): ports in device order, the buffer model, routes, and the shared packet
    // pool.
    void Configure(std::vector<ns3::Ptr<RoceNetDevice>> ports, MmuConfig mmu, SwitchSettings settings,
                   PacketPool* pool, uint32_t nodeId);
    // Egress ports towards every host: ports of host h are routePorts[routeBegin[h] .. routeBegin[h + 1]).
    void SetRoutes(std::vector<uint32_t> routeBegin, std::vector<uint16_t> routePorts, uint64_t ecmpSeed);

    RocePacket* Dequeue(uint32_t port, uint8_t pausedMask) override;
    void Receive(uint32_t port, RocePacket* packet) override;

    // Egress port chosen for a flow (tests and path tracing).
    uint32_t Route(const RocePacket& packet) const;

    const SwitchMmu& Mmu() const { return *m_mmu; }
    uint64_t Drops() const { return m_drops; }
    uint64_t EcnMarks() const { return m_ecnMarks; }
    uint64_t PausesSent() const { return m_pausesSent; }
    uint32_t NodeId() const { return m_nodeId; }
    uint32_t NumPorts() const { return static_cast<uint32_t>(m_ports.size()); }
    ns3::Ptr<RoceNetDevice> PortDevice(uint32_t port) const { return m_ports[port].device; }

    struct QueueSample {
        TimePs timePs;
        uint32_t port;
        uint64_t bytes;
    };
    const std::vector<QueueSample>& QueueSamples() const { return m_samples; }
    uint64_t MaxQueueBytes(uint32_t port) const { return m_ports[port].maxQueueBytes; }

    // Trace signatures.
    typedef void (*PfcCallback)(uint32_t switchNode, uint32_t port, uint8_t priority, bool pause);
    typedef void (*DropCallback)(uint32_t switchNode, uint32_t port, const RocePacket* packet);

private:
    struct Port {
        ns3::Ptr<RoceNetDevice> device;
        PacketQueue queues[kNumPriorities];
        uint64_t txBytes = 0;
        uint64_t queuedBytes = 0;
        double queueByteNs = 0;  // time integral of queuedBytes (INT)
        TimePs queueChangedPs = 0;
        uint64_t maxQueueBytes = 0;
        TimePs nextSamplePs = 0;
        int current = 1;  // data class the scheduler is serving
        uint64_t deficit[kNumPriorities] = {};
        bool refreshPending[kNumPriorities] = {};
    };
    int PickDataClass(Port& port, uint8_t pausedMask);
    void SendPause(uint32_t port, uint8_t priority);
    void RefreshPause(uint32_t port, uint8_t priority);
    void Sample(uint32_t port);
    // Adds queuedBytes x (now - last change) to the port's queue integral; call before changing queuedBytes.
    void IntegrateQueue(Port& port);

    std::vector<Port> m_ports;
    std::unique_ptr<SwitchMmu> m_mmu;
    SwitchSettings m_settings;
    PacketPool* m_pool = nullptr;
    uint32_t m_nodeId = 0;
    std::vector<uint32_t> m_routeBegin;
    std::vector<uint16_t> m_routePorts;
    uint64_t m_ecmpSeed = 0;
    ns3::Ptr<ns3::UniformRandomVariable> m_random;
    uint64_t m_drops = 0;
    uint64_t m_ecnMarks = 0;
    uint64_t m_pausesSent = 0;
    std::vector<QueueSample> m_samples;
    ns3::TracedCallback<uint32_t, uint32_t, uint8_t, bool> m_pfcTrace;
    ns3::TracedCallback<uint32_t, uint32_t, const RocePacket*> m_dropTrace;
    ns3::TracedCallback<uint32_t, uint32_t, const RocePacket*> m_ecnTrace;
};

// Deterministic flow hash over the RoCEv2 5-tuple (source/destination host, UDP source port, 4791, UDP).
uint64_t flowHash(const RocePacket& packet, uint64_t seed);

}  // namespace mlnet::roce

#endif
