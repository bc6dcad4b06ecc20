// Output-queued shared-buffer switch: per-flow ECMP on shortest paths, SwitchMmu admission with PFC
// pause/resume (refreshed while congested) and RED/ECN marking at dequeue, INT stamping for HPCC, strict
// priority for class 0 (ACKs and other control) and round-robin or deficit round-robin among data classes.
// Drops are counted and traced with their reason.
#ifndef MLNET_ROCE_SWITCH_H
#define MLNET_ROCE_SWITCH_H

#include <vector>

#include "ns3/node.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include "fresh-stream-draws.h"
#include "network/routing.h"
#include "roce-net-device.h"
#include "roce-port-owner.h"
#include "roce-timing.h"
#include "switch-mmu.h"

namespace mlnet::roce {

enum class DataScheduler { RoundRobin, DeficitRoundRobin };

struct SwitchSettings {
    bool intEnabled = false;
    bool queueIntegral = false;  // keep each port's queue integral (fast-forward reads it; INT implies it)
    // 0: INT records at full width (ours). m >= 1: in the HPCC reference's field units (its IntHop): bytes
    // sent in units of 128·m B and the queue in units of 80·m B, both truncated (m is its INT_MULTI).
    uint32_t intFieldMulti = 0;
    DataScheduler scheduler = DataScheduler::RoundRobin;
    uint32_t dwrrQuantumBytes = 1500;
    uint16_t pauseQuanta = 0xffff;
    // Renew a pause before its quanta run out while the queue stays over the threshold. false: one pause
    // per crossing (the reference, whose NICs stay paused until the resume).
    bool refreshPauses = true;
    TimePs queueSampleIntervalPs = 0;  // 0: no queue samples
    TimePs queueSampleStartPs = 0;     // samples are kept only inside [start, end]
    TimePs queueSampleEndPs = kNeverPs;
    bool queueHistograms = false;  // time-weighted egress queue histogram per port (run summaries)
    // Forward a frame once its header is in, on ingress ports whose egress ports are no faster (where real
    // switches cut through); otherwise, and by default (the HPCC lineage), store and forward.
    bool cutThrough = false;
};

// Time a queue spent at each length, in log-linear buckets (four per power of two), for percentiles that do
// not depend on how often anything sampled.
class QueueHistogram {
public:
    static constexpr int kBuckets = 4 * 64 + 1;
    static int Bucket(uint64_t bytes);
    static uint64_t BucketUpperBytes(int bucket);
    void Add(uint64_t bytes, TimePs duration) { m_ps[Bucket(bytes)] += duration; }
    void Merge(const QueueHistogram& other);
    // The smallest queue length at or below which the queue spent `fraction` of the time (bucket upper
    // bound).
    uint64_t QuantileBytes(double fraction) const;
    // The queue's mean over the time recorded, each bucket counted at its upper bound (at most a quarter
    // above the true mean): enough to tell which port held the most.
    double MeanBytes() const;
    TimePs TotalPs() const;

private:
    TimePs m_ps[kBuckets] = {};
};

class RoceSwitch final : public ns3::Node, public RocePortOwner {
public:
    static ns3::TypeId GetTypeId();
    RoceSwitch();
    // Fixes the stream of the ECN marking draws (ns-3's AssignStreams convention); returns the streams used
    // (1).
    int64_t AssignStreams(int64_t stream);

    // Wiring (RoceNetworkHelper): ports in device order, the buffer model, routes, and the shared packet
    // pool.
    void Configure(std::vector<ns3::Ptr<RoceNetDevice>> ports, MmuConfig mmu, SwitchSettings settings,
                   PacketPool* pool, uint32_t nodeId);
    // Marking draws shared by every switch in the reference's numbering (FreshStreamDraws), instead of this
    // switch's own random variable; one is also taken for every PFC pause and resume the reference would
    // send (not for our refreshes). nullptr: our own.
    void SetReferenceDraws(FreshStreamDraws* draws) { m_referenceDraws = draws; }
    // Routes of the network (shared by every switch), and this switch's vertex in it.
    // For packets that carry no route (RoceRoute).
    void SetRouting(const Routing* routing, uint32_t vertex) {
        m_routing = routing;
        m_vertex = vertex;
    }
    // An NPU that forwards others' traffic (multi-dimensional and switchless networks) is this switch with
    // its own NIC inside: frames for `localHost` go to the NIC, and every port also serves the NIC's frames.
    void AttachLocalNic(RocePortOwner* nic, uint32_t localHost) {
        m_localNic = nic;
        m_localHost = localHost;
        for (Port& p : m_ports) {
            p.device->SetLocalHost(localHost);
        }
    }

    RocePacket* Dequeue(uint32_t port, uint8_t pausedMask) override;
    // Every queue of the port is empty. Not for an NPU's ports: its NIC is asked too.
    bool NothingToSend(uint32_t port) const override { return !m_localNic && m_ports[port].nonEmpty == 0; }
    void Receive(uint32_t port, RocePacket* packet) override;

    // Egress port chosen for a flow (tests and path tracing).
    uint32_t Route(RocePacket& packet) const;  // advances the packet along its route

    const SwitchMmu& Mmu() const { return *m_mmu; }
    uint64_t Drops() const { return m_drops; }
    uint64_t EcnMarks() const { return m_ecnMarks; }
    uint64_t PausesSent() const { return m_pausesSent; }
    uint32_t NodeId() const { return m_nodeId; }
    uint32_t NumPorts() const { return static_cast<uint32_t>(m_ports.size()); }
    ns3::Ptr<RoceNetDevice> PortDevice(uint32_t port) const { return m_ports[port].device; }

    uint32_t Vertex() const { return m_vertex; }

    uint64_t MaxQueueBytes(uint32_t port) const { return m_ports[port].maxQueueBytes; }
    // With SwitchSettings::queueHistograms: the port's queue over time, up to now.
    QueueHistogram QueueTime(uint32_t port) const;
    // Fast-forward: the time integral of the port's egress queue up to now (byte x ns), from which the mean
    // queue over a window follows.
    double QueueIntegralByteNs(uint32_t port) const;
    // Fast-forward skipped `ps` of network time in which every queue stood as it stands now: the histograms
    // count that time.
    void CountSkippedTime(TimePs ps);

    // Trace signatures.
    typedef void (*PfcCallback)(uint32_t switchNode, uint32_t port, uint8_t priority, bool pause);
    typedef void (*DropCallback)(uint32_t switchNode, uint32_t ingressPort, const RocePacket* packet,
                                 DropReason reason);
    typedef void (*MarkCallback)(uint32_t switchNode, uint32_t egressPort, const RocePacket* packet,
                                 uint64_t queueBytes);
    typedef void (*QueueSampleCallback)(uint32_t switchNode, uint32_t port, uint64_t queueBytes);

private:
    // Line-aligned, what every enqueue and dequeue reads in the first line, the queues in the next two (a
    // class's queue shares a line with at most three others), the rest after: a frame touches two lines of
    // its port, not the four of a field order by topic.
    struct alignas(64) Port {
        ns3::Ptr<RoceNetDevice> device;
        uint8_t nonEmpty = 0;     // bit q: queues[q] holds a frame
        bool localFirst = false;  // alternates the local NIC and forwarded data on NPU ports
        int current = 1;          // data class the scheduler is serving
        uint64_t txBytes = 0;
        double queueByteNs = 0;  // time integral of the egress queue (INT)
        TimePs queueChangedPs = 0;
        uint64_t maxQueueBytes = 0;
        TimePs nextSamplePs =
            kNeverPs;  // the next queue sample (the window's start first; kNeverPs after it)
        PacketQueue queues[kNumPriorities];
        uint64_t deficit[kNumPriorities] = {};
        bool refreshPending[kNumPriorities] = {};
    };
    // SwitchSettings::queueHistograms: a port's queue over time. Kept apart from Port, which a frame reads:
    // inline, its 2 KB would spread the ports of a switch over a page each.
    struct PortHistogram {
        QueueHistogram histogram;
        TimePs sincePs = 0;
        uint64_t bytes = 0;
    };
    int PickDataClass(Port& port, uint8_t pausedMask);
    void SendPause(uint32_t port, uint8_t priority);
    void RefreshPause(uint64_t portAndPriority);
    // At every queue change: the port's histogram and, when one is due, a queue sample. The test inline,
    // the work out of line (this runs twice per frame and switch).
    void Sample(uint32_t port) {
        if (m_settings.queueHistograms || nowPs() >= m_ports[port].nextSamplePs) {
            SampleDue(port);
        }
    }
    void SampleDue(uint32_t port);
    void Histogram(uint32_t port);
    // The reference's ECN rule with its draws (SetReferenceDraws).
    void MarkAsTheReference(RocePacket& packet, uint32_t portIndex, uint8_t q);
    // Adds queueBytes x (now - last change) to the port's queue integral: call with the queue as it was since
    // the last change.
    void IntegrateQueue(Port& port, uint64_t queueBytes);

    std::vector<Port> m_ports;
    std::vector<PortHistogram> m_histograms;  // one per port with queueHistograms, else none
    std::unique_ptr<SwitchMmu> m_mmu;
    SwitchSettings m_settings;
    PacketPool* m_pool = nullptr;
    uint32_t m_nodeId = 0;
    const Routing* m_routing = nullptr;
    uint32_t m_vertex = 0;
    RocePortOwner* m_localNic = nullptr;
    uint32_t m_localHost = UINT32_MAX;
    ns3::Ptr<ns3::UniformRandomVariable> m_random;
    FreshStreamDraws* m_referenceDraws = nullptr;
    uint64_t m_drops = 0;
    uint64_t m_ecnMarks = 0;
    uint64_t m_pausesSent = 0;
    ns3::TracedCallback<uint32_t, uint32_t, uint8_t, bool> m_pfcTrace;
    ns3::TracedCallback<uint32_t, uint32_t, const RocePacket*, DropReason> m_dropTrace;
    ns3::TracedCallback<uint32_t, uint32_t, const RocePacket*, uint64_t> m_ecnTrace;
    ns3::TracedCallback<uint32_t, uint32_t, uint64_t> m_queueSampleTrace;
};

}  // namespace mlnet::roce

#endif
