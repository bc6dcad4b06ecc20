// A RoCE port: serializes frames at the line rate (preamble and inter-frame gap included), honours received
// IEEE 802.1Qbb pause frames per priority for their full pause time (quanta at the link rate, refreshed by
// new frames, cleared by zero quanta), sends its own PFC frames ahead of all data, and asks its owner (NIC or
// switch) for the next frame whenever the link is free.
#ifndef MLNET_ROCE_NET_DEVICE_H
#define MLNET_ROCE_NET_DEVICE_H

#include <vector>

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/traced-callback.h"

#include "flagged-traced-callback.h"
#include "frame-charges.h"
#include "roce-channel.h"
#include "roce-packet.h"
#include "roce-port-owner.h"
#include "roce-timing.h"

namespace mlnet::roce {

class PcapWriter;

class alignas(64) RoceNetDevice : public ns3::NetDevice {
public:
    static ns3::TypeId GetTypeId();
    RoceNetDevice();

    // Wiring (done by RoceNetworkHelper).
    void Setup(RocePortOwner* owner, uint32_t port, PacketPool* pool);
    void Attach(ns3::Ptr<RoceChannel> channel);
    ns3::Ptr<RoceChannel> GetRoceChannel() const { return m_channel; }
    uint64_t RateBps() const { return m_rateBps; }
    TimePs CableDelayPs() const { return m_delayPs; }
    // When the last frame this port sent is whole at the far end (its end on the wire plus the cable's
    // delay); after now while a frame is being sent or is on its way. 0 before the first frame.
    TimePs LastFrameArrivalPs() const { return m_doneAtPs ? m_doneAtPs + m_delayPs : 0; }
    // The "DataRate" attribute (a zero rate is refused: serialization divides by it).
    void SetDataRate(ns3::DataRate rate);
    ns3::DataRate GetDataRate() const { return ns3::DataRate(m_rateBps); }
    uint32_t Port() const { return m_port; }

    // Cut-through reception: frames are handed to the owner when their first kCutThroughHeaderBytes are in,
    // not their last bit (a switch port whose egress ports are no faster than it). Off by default.
    void SetCutThrough(bool on);
    // What frames cost on this port: the per-frame overhead of its serialization and its PFC frames' size.
    void SetFrameCharges(const FrameCharges& charges);
    // A pause frame with nonzero quanta holds its classes until a resume frame, whatever its quanta (the
    // HPCC reference's PFC). false (default): for the quanta's time at this port's rate (802.1Qbb).
    void SetPauseUntilResume(bool on) { m_pauseUntilResume = on; }
    // A frame is on its way to this port: its owner may start fetching the state the frame will need (a
    // NIC's QP), which on a large run is out of cache. Only a hint: nothing may depend on it, and the frame
    // may still be lost on the cable. By default the owner hears of a frame when it starts on the cable.
    // The hint is told what the owner needs to pick that state, copied from the frame when it left: by the
    // time the frame before it arrives (SetArrivalHintAtPreviousFrame) the frame itself is out of cache
    // again, and reading it would stall the hint on the very miss it is meant to hide.
    struct ExpectedFrame {
        const RocePacket* packet;  // not to be read by the hint (a late one: the device asks for its lines)
        const IntHop* hops;        // packet->hops: the INT records an ACK echoes
        uint32_t dstQp;
        PacketKind kind;
        uint8_t intHops;
    };
    using ArrivalHint = void (*)(void* owner, const ExpectedFrame& frame);
    void SetArrivalHint(ArrivalHint hint, void* owner);
    // true: when the frame before it on the cable arrives instead (one frame time ahead, or at once when the
    // cable was empty). On a large run a cable's delay is tens of thousands of events, and lines fetched that
    // early are gone again by the time the frame arrives (k8 all-to-all HPCC: 0.91x CPU); on a small one
    // keeping the frames in flight only costs (k4 all-to-all: 1.03x).
    void SetArrivalHintAtPreviousFrame(bool on);
    // Frames for this host are consumed by the owner, so they arrive whole even on cut-through ports.
    void SetLocalHost(uint32_t host);
    static constexpr uint32_t kCutThroughHeaderBytes = 64;

    // The frame the owner expects to send after the one it is handing over (its queue's new head), or null:
    // carried by the end-of-frame event, whose argument the event loop fetches when it pops the entry before
    // it in the same lane. Only a hint.
    void HintNextFrame(const RocePacket* packet) { m_nextFrameHint = packet; }
    // Try to start a transmission now (the owner has something new to send). Most calls (every frame a
    // switch queues behind another) find a frame on the wire with its end-of-frame poll scheduled, which
    // dequeues then: that is told inline, without a call.
    void Kick() {
        if (!(m_busy && m_donePending)) {
            TryStart();
        }
    }
    // Sends a PFC frame for the priorities in `classes` with `quanta` (0 resumes), ahead of any data.
    void SendPause(uint8_t classes, uint16_t quanta);
    bool IsPaused(uint8_t priority) const;
    uint8_t PausedMask() const;

    // From the channel.
    void NotifyLinkChange(bool up);
    // What every frame needs of the cable (the far device and how it receives, the delay, whether frames
    // may be lost, its failure count) is mirrored here by the channel whenever it changes (attach,
    // attributes, up/down, the far device's reception settings), so that a frame's transmission reads this
    // device only and its delivery the receiving one.
    void MirrorCable(RoceNetDevice* peer, TimePs delayPs, bool lossy, uint32_t epoch) {
        m_peer = peer;
        m_peerReception = peer ? peer->m_reception : Reception{};
        m_delayPs = delayPs;
        m_lossy = lossy;
        m_linkEpoch = epoch;
    }

    // Every frame this port sends is also written to `writer` as real Ethernet/IPv4/UDP/RoCEv2 or PFC bytes.
    // `hostNodeIds` maps the packets' host indices to topology node ids, which the IP addresses are made
    // from.
    void SetPcap(PcapWriter* writer, uint32_t nodeId, uint32_t mtuPayloadBytes, bool withInt,
                 const std::vector<uint32_t>* hostNodeIds) {
        m_pcap = writer;
        m_capturing = writer != nullptr;
        m_hostNodeIds = hostNodeIds;
        m_nodeId = nodeId;
        m_pcapMtu = mtuPayloadBytes;
        m_pcapInt = withInt;
    }
    uint32_t NodeId() const { return m_nodeId; }

    // Statistics.
    uint64_t TxBytes() const { return m_txBytes; }  // frame bytes sent
    uint64_t TxFrames() const { return m_txFrames; }
    uint64_t TxDataFrames() const { return m_txDataFrames; }
    uint64_t PauseFramesReceived() const { return m_pauseRx; }
    // Time any priority of this port has spent paused by received PFC frames, up to now.
    TimePs PausedPs() const;
    uint64_t PauseFramesSent() const { return m_pauseTx; }

    // ns3::NetDevice. Frames enter through the owner, so the generic Send path is not used.
    void SetIfIndex(const uint32_t index) override { m_ifIndex = index; }
    uint32_t GetIfIndex() const override { return m_ifIndex; }
    ns3::Ptr<ns3::Channel> GetChannel() const override;
    void SetAddress(ns3::Address address) override { m_address = ns3::Mac48Address::ConvertFrom(address); }
    ns3::Address GetAddress() const override { return m_address; }
    bool SetMtu(const uint16_t mtu) override {
        m_mtu = mtu;
        return true;
    }
    uint16_t GetMtu() const override { return m_mtu; }
    bool IsLinkUp() const override { return m_linkUp; }
    void AddLinkChangeCallback(ns3::Callback<void> callback) override {
        m_linkChange.ConnectWithoutContext(callback);
    }
    bool IsBroadcast() const override { return false; }
    ns3::Address GetBroadcast() const override { return ns3::Mac48Address::GetBroadcast(); }
    bool IsMulticast() const override { return false; }
    ns3::Address GetMulticast(ns3::Ipv4Address) const override { return ns3::Mac48Address::GetBroadcast(); }
    ns3::Address GetMulticast(ns3::Ipv6Address) const override { return ns3::Mac48Address::GetBroadcast(); }
    bool IsPointToPoint() const override { return true; }
    bool IsBridge() const override { return false; }
    bool Send(ns3::Ptr<ns3::Packet>, const ns3::Address&, uint16_t) override { return false; }
    bool SendFrom(ns3::Ptr<ns3::Packet>, const ns3::Address&, const ns3::Address&, uint16_t) override {
        return false;
    }
    ns3::Ptr<ns3::Node> GetNode() const override { return m_node; }
    void SetNode(ns3::Ptr<ns3::Node> node) override { m_node = node; }
    bool NeedsArp() const override { return false; }
    void SetReceiveCallback(ns3::NetDevice::ReceiveCallback) override {}
    void SetPromiscReceiveCallback(ns3::NetDevice::PromiscReceiveCallback) override {}
    bool SupportsSendFrom() const override { return false; }

    // Trace signatures.
    typedef void (*PauseCallback)(uint32_t port, uint8_t priority, bool pause, uint64_t quanta);
    typedef void (*TxCallback)(const RocePacket* packet);

protected:
    void DoDispose() override;

private:
    // How this port receives, as a sending device needs to know it per frame (mirrored into the device at
    // the cable's other end): whom to hint of an arrival, and when a frame becomes available to the owner
    // after its first bit arrives.
    struct Reception {
        ArrivalHint hint = nullptr;
        void* hintOwner = nullptr;
        TimePs cutThroughPs = 0;  // 0: store and forward
        uint32_t localHost = UINT32_MAX;
        bool hintAtPreviousFrame = false;
        // At its last bit (the whole frame) for store-and-forward ports and for frames the owner consumes
        // itself (an NPU's own), else once the header is in.
        TimePs ArrivalPs(const RocePacket& packet, TimePs frameTimePs) const {
            return cutThroughPs && cutThroughPs < frameTimePs && packet.dstHost != localHost ? cutThroughPs
                                                                                             : frameTimePs;
        }
    };
    // This port's reception settings changed: the device at the cable's other end mirrors them again.
    void ReceptionChanged();
    // The owner's side of a frame, called by m_ownerKind.
    RocePacket* OwnerDequeue(uint8_t pausedMask);
    bool OwnerHasNothingToSend() const;
    void OwnerReceive(RocePacket* packet);
    void StartTransmission(RocePacket* packet);
    // Puts the frame on the cable towards m_peer (or loses it there) and schedules its arrival.
    void Propagate(RocePacket* packet, TimePs txPs);
    // With m_reception.hintAtPreviousFrame: takes a frame now on the cable towards this port into
    // m_inFlight; true when a frame before it is still there, whose arrival will hint this one.
    bool HintAfterPrevious(const ExpectedFrame& frame);
    // The frame's arrival at this device (the event of a delivery: its object is the receiving device).
    void Deliver(uint64_t packet);
    void ReceiveFrame(RocePacket* packet);          // a frame that arrived whole and on time
    void TransmitComplete(uint64_t nextFrameHint);  // the hint is for the event loop's prefetch only
    // Kick() when the wire is idle, or busy with its end-of-frame poll skipped.
    void TryStart();
    void PauseExpired(uint64_t generation);
    void ScheduleWake(TimePs atPs);

    // Grouped by who reads them per frame (the class is line-aligned; ns-3's NetDevice takes the first 32
    // bytes of line 0): line 0 what Kick and a delivery read, line 1 the transmission, line 2 its accounting
    // and the cable with the far device's reception. A frame costs three lines of its sending device and
    // one of its receiving device, not the seven of a field order by topic.
    RocePortOwner* m_owner = nullptr;
    uint32_t m_port = 0;
    // A frame is on the wire; after a skipped poll it stays set past the frame's end, until the next Kick()
    // finds that moment gone by.
    bool m_busy = false;
    // The end of the frame on the wire and the poll then: scheduled (pending), or skipped with its place in
    // the event order kept (owner had nothing to send).
    bool m_donePending = false;
    bool m_dequeuing = false;
    bool m_linkUp = true;
    bool m_lossy = false;  // the cable may lose frames (an error rate, or down): the channel decides each one
    bool m_txTraced = false;   // the Tx trace has sinks (m_txTrace keeps it)
    bool m_capturing = false;  // m_pcap is set
    // Which of the model's owners m_owner is: the per-frame calls into it (Dequeue, NothingToSend, Receive)
    // are then direct calls the compiler can inline (both classes are final), not virtual ones through a
    // base-class thunk.
    enum class OwnerKind : uint8_t { Other, Switch, Nic };
    OwnerKind m_ownerKind = OwnerKind::Other;
    uint32_t m_linkEpoch = 0;     // the cable's failure count: a frame sent before a failure is lost
    TimePs m_lastPauseEndPs = 0;  // the latest of m_pausedUntil: no priority is paused from then on

    PacketQueue m_control;
    const RocePacket* m_nextFrameHint = nullptr;
    TimePs m_doneAtPs = 0;  // the end of the latest frame on the wire
    uint64_t m_doneUid = 0;
    uint64_t m_rateBps = 100'000'000'000ull;
    FrameCharges m_charges;
    // framedPsPerByte(m_charges, m_rateBps), kept by the two setters (0: the frame time takes
    // chargedWireTimePs's division).
    TimePs m_psPerFramedByte = framedPsPerByte(m_charges, m_rateBps);
    uint64_t m_txBytes = 0;

    uint64_t m_txFrames = 0;
    uint64_t m_txDataFrames = 0;
    RoceNetDevice* m_peer = nullptr;  // the cable's far end (MirrorCable)
    TimePs m_delayPs = 0;             // the cable's propagation delay (MirrorCable)
    Reception m_peerReception;        // the far end's m_reception (MirrorCable)

    alignas(64) Reception m_reception;  // how this port receives (the source of what peers mirror)
    // With m_reception.hintAtPreviousFrame: the frames on the cable towards this port, oldest first. A frame
    // that finds the ring empty or full is hinted at once.
    static constexpr uint32_t kInFlightSlots = 16;
    uint32_t m_inFlightHead = 0;
    uint32_t m_inFlightCount = 0;
    ExpectedFrame m_inFlight[kInFlightSlots] = {};
    PcapWriter* m_pcap = nullptr;
    FlaggedTracedCallback<const RocePacket*> m_txTrace{&m_txTraced};
    PacketPool* m_pool = nullptr;
    ns3::Ptr<RoceChannel> m_channel;
    ns3::Ptr<ns3::Node> m_node;
    bool m_pauseUntilResume = false;
    uint16_t m_mtu = 1500;
    uint32_t m_ifIndex = 0;
    ns3::Mac48Address m_address;
    TimePs m_pausedUntil[kNumPriorities] = {};
    TimePs m_pauseStart[kNumPriorities] = {};  // start of the pause in force (while m_pausedUntil is ahead)
    TimePs m_pausedPs = 0;                     // pauses that ended
    TimePs m_wakeAt = 0;
    uint64_t m_wakeGeneration = 0;
    bool m_wakePending = false;
    uint32_t m_nodeId = 0;
    uint32_t m_pcapMtu = 0;
    bool m_pcapInt = false;
    const std::vector<uint32_t>* m_hostNodeIds = nullptr;
    // The Tx trace and the capture, out of line: inlined into StartTransmission they gave it a 776-byte stack
    // frame that every frame paid for.
    [[gnu::noinline, gnu::cold]] void TraceTx(const RocePacket* packet);
    [[gnu::noinline, gnu::cold]] void Capture(const RocePacket& packet);
    uint64_t m_pauseRx = 0;
    uint64_t m_pauseTx = 0;
    ns3::TracedCallback<> m_linkChange;
    ns3::TracedCallback<uint32_t, uint8_t, bool, uint64_t> m_pauseTrace;
};

}  // namespace mlnet::roce

#endif
