// RoCEv2 host NIC: reliable-connected queue pairs (64-bit sizes and sequence numbers), per-QP rate pacing and
// optional window from its congestion-control state machine, O(1) round robin among eligible QPs (one ring
// per port and priority; paced QPs wait in a heap, window-bound ones are parked until an ACK), ACK
// coalescing, NACK with go-back-N, a retransmission timeout, receiver-side CNPs rate-limited per QP, and an
// HPCC-compatible mode in which the ECN echo and INT ride on ACKs.
//
// A NIC may have several ports (an NPU with one port per link of a multi-dimensional network, or a scale-up
// and a scale-out port): a QP leaves on the port its route starts with and stays there. Connections are set
// up by the caller, as a connection manager would: OpenReceive at the destination NIC, then OpenConnection at
// the source. A connection carries messages in order as one byte stream (a packet never spans two messages);
// each message completes at the sender when its last byte is acknowledged and at the receiver when its last
// byte has arrived in order. StartFlow is the one-message connection of the HPCC-style experiments, which
// closes itself.
#ifndef MLNET_ROCE_NIC_H
#define MLNET_ROCE_NIC_H

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "ns3/event-id.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include "congestion-control.h"
#include "network/routing.h"
#include "roce-net-device.h"
#include "roce-port-owner.h"
#include "roce-route.h"
#include "util/pools.h"

namespace mlnet::roce {

// How a NIC port picks the queue pair that sends next.
enum class NicArbitration : uint8_t {
    // Round robin over the QPs that may send now; paced ones wait in a heap, window-bound ones until an ACK.
    // O(1) per packet.
    ReadyRing,
    // The HPCC reference's: every QP of the port in the order they opened, scanned from the one after the
    // last served for the first that may send now; finished QPs leave the order when a scan meets them; when
    // none may send, one wake-up at the earliest pacing time, unless one is pending. O(QPs) per packet.
    ScanAll,
};

struct NicSettings {
    uint32_t mtuPayloadBytes = 1000;  // payload per data packet
    FrameCharges frames;              // what data, ACK and CNP frames are charged (real RoCEv2 by default)
    // The reference's HPCC: a rate change on an ACK moves the QP's next send time by the last frame's
    // serialization at the new rate minus at the old (off: the next send keeps the time its last frame set).
    bool shiftPacingOnRateChange = false;
    uint64_t ackIntervalBytes = 1;  // ACK when this many in-order bytes are unacknowledged (1: every packet)
    uint64_t ackChunkBytes = 0;     // also ACK at every multiple of this offset (0: off)
    TimePs nackIntervalPs = 500'000'000;  // minimum gap between NACKs for the same expected byte
    TimePs cnpIntervalPs = 50'000'000;    // receiver sends at most one CNP per QP per interval (50 us)
    TimePs rtoPs = 1'000'000'000;         // retransmission timeout (1 ms); 0: none, go-back-N on NAKs only
    bool ecnEchoOnAck = false;            // HPCC-compatible: CE echoed on ACKs instead of CNPs
    bool intEnabled = false;              // data packets carry an INT stack, echoed on ACKs (HPCC)
    uint8_t ackPriority = 0;              // class of ACK/NACK/CNP (0: strict priority)
    // ACKs, NACKs and CNPs cross the switches in their data's class, and ackPriority only names the class
    // whose pause holds them at this NIC (the reference: its switches never see ACK_HIGH_PRIO).
    bool ackClassFromData = false;
    NicArbitration arbitration = NicArbitration::ReadyRing;
};

// Completion of one message at its sender (the last byte acknowledged).
struct FlowCompletion {
    uint64_t flowId;  // the message
    uint32_t srcHost, dstHost;
    uint16_t udpSrcPort;
    uint64_t sizeBytes;
    TimePs startPs, finishPs;
    uint32_t dstContext;  // the receive context of the connection at dstHost
    bool closed;          // the connection closed with this message (one-message connections)
};

class RoceNic final : public ns3::Object, public RocePortOwner {
public:
    static ns3::TypeId GetTypeId();
    RoceNic();

    using CcFactory = std::function<std::unique_ptr<cc::CongestionControl>(const cc::FlowParams&)>;
    // `ports` are the host's devices in port order; `routing` picks a QP's port (and an ACK's) when there are
    // several; with `spec` (may be null) its packets carry their routes through the switches. When `owner` is
    // given, it owns the devices (an NPU's forwarding switch) and asks this NIC for frames; otherwise the NIC
    // owns them.
    void Setup(uint32_t host, std::vector<ns3::Ptr<RoceNetDevice>> ports, PacketPool* pool,
               NicSettings settings, CcFactory ccFactory, const Routing* routing, const TopologySpec* spec,
               RocePortOwner* owner = nullptr);

    // Receiving side of connection `connectionId` from srcHost. Returns the context's index, which the
    // sender's OpenConnection names. Closed by CloseReceive once the sender is done (late duplicates are then
    // dropped).
    using Received = std::function<void(uint64_t messageId, TimePs atPs)>;
    // flowDstPort: the destination port HPCC flow files give a flow (ECMP key under the reference's hashing).
    uint32_t OpenReceive(uint64_t connectionId, uint32_t srcHost, uint16_t udpSrcPort, uint16_t flowDstPort);
    // The next message of sizeBytes on the connection; `received` fires once, when its last byte has arrived
    // in order (from an event, at once, for an empty message that is already complete).
    void ExpectMessage(uint32_t receiveContext, uint64_t messageId, uint64_t sizeBytes, Received received);
    void CloseReceive(uint32_t receiveContext);

    // Opens connection `connectionId` to `dstHost`, whose receive context is `dstContext`; `flow` carries
    // path facts for the CC. `carried`: the flow's congestion control so far, which goes on here instead of
    // a new one (a fluid flow's, moved to packets; cc::CongestionControl::resumeOnNewConnection). Returns
    // the QP.
    uint32_t OpenConnection(uint64_t connectionId, uint32_t dstHost, uint32_t dstContext, uint8_t priority,
                            uint16_t udpSrcPort, uint16_t flowDstPort, const cc::FlowParams& flow,
                            std::unique_ptr<cc::CongestionControl> carried = nullptr);
    // Queues a message of sizeBytes on QP `qp` now; `done` fires when its last byte is acknowledged.
    using Done = std::function<void(const FlowCompletion&)>;
    void SendMessage(uint32_t qp, uint64_t messageId, uint64_t sizeBytes, Done done);
    // Frees a QP with no message left (a persistent connection the caller no longer needs).
    void CloseConnection(uint32_t qp);
    // Opens a connection, sends one message on it and closes it once that message is acknowledged.
    uint32_t StartFlow(uint64_t flowId, uint32_t dstHost, uint32_t dstContext, uint64_t sizeBytes,
                       uint8_t priority, uint16_t udpSrcPort, uint16_t flowDstPort,
                       const cc::FlowParams& flow, Done done,
                       std::unique_ptr<cc::CongestionControl> carried = nullptr);
    bool ConnectionIdle(uint32_t qp) const { return m_qps[qp].head == m_qps[qp].messages.size(); }
    // Runs when a one-message connection closes, before its message's own callback: whoever opened the
    // receive side closes it here.
    void SetConnectionClosedHook(Done hook) { m_closed = std::move(hook); }

    RocePacket* Dequeue(uint32_t port, uint8_t pausedMask) override;
    // No control frame, no QP ready, and a wake-up armed for the earliest paced QP (a poll that finds nothing
    // arms it): whatever makes a QP ready or paced then (an ACK, a new message, a timer, that wake-up)
    // prompts the device, which puts a skipped poll back in its place. Under NicArbitration::ScanAll the
    // scan itself decides, so never.
    bool NothingToSend(uint32_t portIndex) const override {
        const Port& port = m_ports[portIndex];
        return m_settings.arbitration == NicArbitration::ReadyRing && port.control.empty() &&
               port.ringsNonEmpty == 0 &&
               (port.pacing.empty() || (port.wakePending && port.wakeAtPs <= port.pacing.front().first));
    }
    void Receive(uint32_t port, RocePacket* packet) override;

    uint32_t Host() const { return m_host; }
    uint32_t NumPorts() const { return static_cast<uint32_t>(m_ports.size()); }
    ns3::Ptr<RoceNetDevice> Device(uint32_t port = 0) const { return m_ports[port].device; }
    uint64_t ActiveFlows() const { return m_activeQps; }
    uint64_t DeliveredBytes() const { return m_deliveredBytes; }  // in-order payload accepted as a receiver
    uint64_t Timeouts() const { return m_timeouts; }
    uint64_t MessagesAcknowledged() const { return m_messagesAcknowledged; }  // sends completed
    uint64_t NacksSent() const { return m_nacksSent; }
    uint64_t CnpsSent() const { return m_cnpsSent; }
    uint64_t OutOfOrderDrops() const { return m_outOfOrder; }
    uint64_t RetransmittedBytes() const { return m_retransmittedBytes; }

    // Bytes of message `flowId` acknowledged so far (its size once finished or unknown here: the caller
    // tracks completions). For measurements; scans the QPs.
    uint64_t AckedBytes(uint64_t flowId) const;

    // The rate and window of QP `qp` if it still carries connection `flowId` (a data frame's srcQp and flow),
    // for traces that meet a flow on its way.
    bool FlowRate(uint32_t qp, uint64_t flowId, uint64_t& rateBps, uint64_t& windowBytes) const;

    // Fast-forward (RoceFabricFastForward). The progress of every open QP, in QP order.
    struct QpProgress {
        uint32_t host = 0, qp = 0, generation = 0, dstHost = 0;
        bool busy = false;         // a message is unacknowledged
        uint64_t ackedBytes = 0;   // acknowledged so far, bytes skipped included
        uint64_t unsentBytes = 0;  // of the message being sent, beyond the highest byte sent
        uint64_t rateBps = 0;      // its congestion control's sending rate now
        bool skippable = false;    // one message in progress and nothing being resent: SkipBytes may apply
    };
    void CollectProgress(std::vector<QpProgress>& out) const;
    // Takes `bytes` out of the message QP `qp` is sending (gives them back when negative), at this NIC and at
    // `receiver`, the NIC of its receive context, as if they had been sent, acknowledged and delivered: the
    // packets in flight, the CC state and the sequence numbers stay as they are, the message ends sooner.
    void SkipBytes(uint32_t qp, int64_t bytes, RoceNic& receiver);
    // Skipped time without congestion signals: every open QP's congestion control moves on by it
    // (cc::CongestionControl::skipQuietTime; negative: taken back).
    void SkipQuietTime(int64_t deltaNs);
    // The same for one QP: a flow that ran alone on its path (as a fluid flow) before it came here.
    void SkipQuietTime(uint32_t qp, int64_t deltaNs) { m_qps[qp].cc->skipQuietTime(deltaNs); }

    // What each unfinished QP is doing, for hang reports.
    std::string DescribeActive() const;

    typedef void (*RateCallback)(uint64_t flowId, uint64_t rateBps, uint64_t windowBytes);

private:
    enum class QpState : uint8_t { Free, Ready, Pacing, Blocked, Idle };
    struct OutgoingMessage {
        uint64_t id;
        uint64_t endSeq;  // first byte after the message in the connection's stream
        uint64_t sizeBytes;
        TimePs startPs;
        Done done;
    };
    // Asks for every cache line of [object, object + bytes) at once: with thousands of QPs their state is out
    // of cache, and reading it field by field would take one miss after the other.
    static void PrefetchLines(const void* object, std::size_t bytes) {
        const char* base = static_cast<const char*>(object);
        for (std::size_t offset = 0; offset < bytes; offset += 64) {
            __builtin_prefetch(base + offset);
        }
    }
    // The device's arrival hint: fetches the receive context of data, and for an ACK or NACK its QP, the
    // QP's CC state and the INT records the CC will read.
    static void ExpectFrame(void* nic, const RoceNetDevice::ExpectedFrame& frame);
    // Two hot lines, then the rest: an ACK (OnAck, ArmCcTimer, Activate) reads only the first two, so with
    // thousands of QPs out of cache it costs two misses, not the four of a field order by topic.
    struct alignas(64) QueuePair {
        // Line 1: identity and the send state every path reads.
        uint64_t flowId = 0;  // the connection, carried in packets: tells a reused QP slot from its last use
        uint32_t dstHost = 0;
        uint32_t dstQp = 0;  // receive context at the peer
        uint32_t port = 0;
        uint16_t udpSrcPort = 0;
        uint8_t priority = 3;
        QpState state = QpState::Free;
        uint64_t sizeBytes = 0, sndNxt = 0, sndUna = 0, highestSent = 0;
        TimePs nextAvailPs = 0;
        // Line 2: congestion control, timers, message bounds and the ring links.
        TimePs lastProgressPs = 0;
        std::unique_ptr<cc::CongestionControl> cc;
        TimePs ccTimerPs = 0;
        // messages[head].endSeq, or never: every ACK asks whether it completes a message, and the message
        // array is one more cache miss per ACK when thousands of QPs are active.
        uint64_t headEndSeq = UINT64_MAX;
        // The bounds of messages[sending] as SeekSending last found them: [end of the message before (0 for
        // the first), its end), an empty range when no message is being sent. The next packet's boundary is
        // then found without reading the message array. Written only with `sending`; endSeq values never
        // change.
        uint64_t sendingStartSeq = 0, sendingEndSeq = 0;
        uint32_t lastFrameBytes = 0;  // of the last data frame sent (read by ACKs: shiftPacingOnRateChange)
        uint32_t generation = 0;      // invalidates stale timers of a reused slot
        uint32_t prev = 0, next = 0;  // ring links (Ready state)
        // Line 3 on: what only data packets and message boundaries read.
        RoceRoute route;  // of its data packets
        bool closeWhenDone = false;
        TimePs startPs = 0;
        // Unacknowledged messages in order; messages[head] is the oldest. `sending` is the one sndNxt is in.
        std::vector<OutgoingMessage> messages;
        std::size_t head = 0, sending = 0;
    };
    static constexpr std::size_t kQpHotBytes = 128;
    static_assert(offsetof(QueuePair, lastProgressPs) == 64 && offsetof(QueuePair, route) == kQpHotBytes,
                  "the QP's hot fields fill its first two cache lines");
    struct IncomingMessage {
        uint64_t id;
        uint64_t endSeq;
        Received received;
    };
    struct RxContext {
        bool active = false;
        uint32_t port = 0;  // where this context's ACKs leave
        RoceRoute route;    // of its ACKs, NACKs and CNPs (the data's source port)
        uint16_t udpSrcPort = 0;
        uint64_t flowId = 0;
        uint32_t srcHost = 0, srcQp = 0;
        uint64_t expected = 0;
        uint64_t unacked = 0;
        bool ceSinceAck = false;
        TimePs lastNackPs = 0;
        uint64_t lastNackSeq = UINT64_MAX;
        TimePs lastCnpPs = 0;
        bool cnpSent = false;
        std::vector<IncomingMessage> messages;  // expected, in order; messages[head] is the next to complete
        std::size_t head = 0;
        // messages[head].endSeq, or never: every data packet asks whether it completes a message, and the
        // message array is one more cache miss per packet when thousands of contexts are active.
        uint64_t headEndSeq = UINT64_MAX;
        uint64_t expectedEnd = 0;  // end of the last expected message
    };
    // Per port: its device, control frames waiting, one ring of Ready QPs per priority and the paced QPs.
    struct Port {
        ns3::Ptr<RoceNetDevice> device;
        PacketQueue control;
        uint32_t ringHead[kNumPriorities];
        uint8_t ringsNonEmpty = 0;  // bit p: ringHead[p] names a QP
        int lastPriority = 0;
        std::vector<std::pair<TimePs, uint32_t>> pacing;  // min-heap on next-available time
        TimePs wakeAtPs = 0;
        uint32_t wakeGeneration = 0;
        bool wakePending = false;
        // NicArbitration::ScanAll: the port's QPs (index, generation) in the order they opened, and the
        // position served last.
        std::vector<std::pair<uint32_t, uint32_t>> scanOrder;
        uint32_t scanLast = 0;
    };

    void OnData(RocePacket* p);
    void OnAck(RocePacket* p);
    void OnCnp(RocePacket* p);
    // shiftPacingOnRateChange: the rate went from rateBefore to the CC's current rate.
    void ShiftPacing(QueuePair& q, uint64_t rateBefore);
    // Queues an ACK, NACK or CNP for `data`. With reuseData the reply is built in data's own slot (the INT
    // records it echoes are already there) and data is gone afterwards.
    void SendControl(PacketKind kind, uint32_t rxIndex, uint64_t seq, RocePacket* data, bool reuseData);
    RocePacket* BuildData(uint32_t qp);
    // Makes the QP eligible (ring, pacing heap or parked; under NicArbitration::ScanAll only the device is
    // prompted); `kick` asks the device to send, which callers inside Dequeue must not do.
    void Activate(uint32_t qp, bool kick = true);
    RocePacket* DequeueScanning(uint32_t port, uint8_t pausedMask);
    void RingInsert(uint32_t qp);
    void RingRemove(uint32_t qp);
    void Reschedule(uint32_t qp);
    void WakeAt(uint32_t port, TimePs atPs);
    void Wake(uint64_t generationAndPort);
    void ArmRtoScan();
    void RtoScan(uint64_t);
    void ArmCcTimer(uint32_t qp);
    void CcTimer(uint64_t generationAndQp);
    // Completes the messages the cumulative ACK covers; frees a one-message QP when it is done. Returns false
    // when the QP was freed.
    bool CompleteMessages(uint32_t qp);
    // Fires the receive callbacks of the messages the in-order stream now covers.
    void DeliverCompleted(uint32_t receiveContext);
    // Moves q.sending to the message sndNxt is in.
    void SeekSending(QueuePair& q);
    void CompleteEmpty(uint32_t qp, uint32_t generation);
    void ReceiveEmpty(uint32_t rx, uint64_t flowId);
    void FreeQp(uint32_t qp);
    bool WindowOpen(const QueuePair& q) const;
    // Slot `qp` still holds the connection that had `generation` (timers and the scan order name QPs by
    // both).
    bool SameConnection(uint32_t qp, uint32_t generation) const {
        return m_qps[qp].generation == generation && m_qps[qp].state != QpState::Free;
    }
    // The port a flow of this host towards dstHost leaves on.
    // flowKey: Routing::flowKey of the direction.
    uint32_t PortTowards(uint32_t dstHost, uint32_t flowKey) const;

    uint32_t m_host = 0;
    std::vector<Port> m_ports;
    PacketPool* m_pool = nullptr;
    NicSettings m_settings;
    CcFactory m_ccFactory;
    const Routing* m_routing = nullptr;
    const TopologySpec* m_spec = nullptr;  // null: packets carry no route
    SlotPool<QueuePair> m_qps;             // a QP's index is carried in packets (srcQp / dstQp)
    SlotPool<RxContext> m_rx;
    // Per QP slot: where its CC state is (q.cc and its stateBytes(); empty while free). The arrival hint
    // fetches the state from here together with the QP, where reading q.cc would wait for the QP's line.
    struct CcLines {
        const void* object = nullptr;
        uint32_t bytes = 0;
    };
    std::vector<CcLines> m_ccLines;
    // Per QP slot: bytes fast-forward took out of its messages (SkipBytes); empty without fast-forward, and
    // apart from the QP, whose lines the packets read.
    std::vector<uint64_t> m_skippedBytes;
    uint64_t SkippedBytes(uint32_t qp) const { return qp < m_skippedBytes.size() ? m_skippedBytes[qp] : 0; }
    bool m_rtoScanArmed = false;
    uint64_t m_activeQps = 0;
    uint64_t m_deliveredBytes = 0;
    uint64_t m_timeouts = 0;
    uint64_t m_messagesAcknowledged = 0;
    uint64_t m_nacksSent = 0;
    uint64_t m_cnpsSent = 0;
    uint64_t m_outOfOrder = 0;
    uint64_t m_retransmittedBytes = 0;
    Done m_closed;
    std::vector<IncomingMessage> m_completedScratch;
    ns3::TracedCallback<uint64_t, uint64_t, uint64_t> m_rateTrace;
};

}  // namespace mlnet::roce

#endif
