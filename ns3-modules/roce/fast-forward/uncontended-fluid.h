// Messages alone on their path as fluid flows (FabricSettings::fluidUncontended): a RoCE flow that meets no
// other flow at any switch queue sends at its line rate from its first packet to its last, marks nothing,
// pauses nothing, and its congestion control never moves (cc::CongestionControl::lineRateWhenAlone); what
// the packet model would give for it is a closed form. Under HPCC, whose telemetry steers even a lone flow,
// each fluid flow runs its congestion control on the fluid links' telemetry instead (fluid-steering.h); its
// source's links are then its own rate and its NIC's cable, and a switch port that gets less than those send
// moves it to packets as under any algorithm (the packets' HPCC reacts to the queue built there in its first
// round trip, which a fluid flow lacks). Collectives on rails are mostly such flows (a ring's step from one
// NIC to the next), and the packets they cost are most of a large step's.
//
// Rule, checked when a message starts: no cable of its data or ACK path carries a packet-level message's data
// or ACKs (packets see no fluid load, and fluid flows see no packets), and at
// every switch on it the egress cable's fluid flows all enter the switch from the same ingress cable as this
// one, which is no faster than the egress: then no switch queue can build, so the only sharing is at the
// source NIC, whose round robin the fluid model's max-min share stands for. Such a message is a FluidLinks
// flow of its frames' bytes on those cables; it is received one path latency after its last byte leaves
// (propagation, and one frame per store-and-forward hop) and acknowledged one ACK path latency later.
// Everything else runs at packet level, and so does a fluid flow once the rates say a switch would queue its
// packets after all: it gets less than its share of its source's link from a switch port whose ACKs (those
// of the host behind it) leave it less than the source sends (ACK pressure). A packet-level message that
// would share a cable with fluid flows first turns them into packet-level messages (the bytes they have left,
// on a queue pair of their own from the same UDP port, so the same path; nothing of theirs is in flight or
// queued, the approximation; their CC state is a lone flow's, or under HPCC the one the fluid flow ran), and
// so on for the cables those now occupy: wherever flows meet, the packet model decides.
//
// Where the network is congested the fluid flows would mostly be moved back (and every move perturbs a run
// whose outcome depends on every packet's timing), so, as the episode memo does, none starts within 200 us
// of a start that saw new marks, pauses or drops anywhere, nor once more than a fifth of them (after the
// first 16) have been moved.
//
// A fluid flow's ACKs are a load on its reverse path, an ACK frame per acknowledged packet, served ahead of
// data as the NICs send control frames first (FluidLinks' loads): a ring's NICs each send data and ACKs,
// and the ACKs take about 7 % of a link at a 1 KB MTU (more with the INT records HPCC's ACKs echo). A
// switch's shared buffer holds none of a fluid flow's bytes.
#ifndef MLNET_ROCE_UNCONTENDED_FLUID_H
#define MLNET_ROCE_UNCONTENDED_FLUID_H

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core-fluid-clock.h"
#include "fluid-steering.h"
#include "network/fluid-links.h"
#include "network/routing.h"
#include "network/topology-spec.h"
#include "roce-nic.h"
#include "util/pools.h"

namespace mlnet::roce {

// What the fluid side carried in a run, for summary.json.
struct UncontendedFluidStats {
    uint64_t messages = 0;            // started as fluid flows
    uint64_t bytes = 0;               // their payload
    uint64_t converted = 0;           // of them, moved to packet level when traffic met them
    uint64_t heldDownstream = 0;      // of those, because a switch could not take what their source sent
    uint64_t convertedBytes = 0;      // the payload those still had to send then
    uint64_t packetMessages = 0;      // messages started at packet level
    uint64_t packetHops = 0;          // data packet-hops the fluid bytes stand for
    uint64_t ratePasses = 0;          // max-min recomputations
    uint64_t steeredAcks = 0;         // ACKs made for their congestion control (fluid-steering.h)
    uint64_t steeredRateChanges = 0;  // of them, those that moved a flow's rate
};

class UncontendedFluid : private CoreFluidClock {
public:
    // The fabric's side: a message's UDP source port (the allocator advances as for a packet-level message),
    // and starting a message at packet level on a queue pair of its own, whose congestion control moves on
    // by `aloneNs` of quiet time (cc::CongestionControl::skipQuietTime: the message ran alone that long), or
    // is `steered`, the one its fluid flow ran (fluid-steering.h), when there is one.
    struct Fabric {
        std::function<uint16_t(uint32_t src, uint32_t dst)> sourcePort;
        std::function<void(uint64_t id, uint32_t src, uint32_t dst, uint64_t sizeBytes, uint8_t priority,
                           uint16_t sport, uint16_t flowDstPort, int64_t aloneNs,
                           std::unique_ptr<cc::CongestionControl> steered, RoceNic::Done sent,
                           RoceNic::Received received)>
            start;
        // Marks, pauses and drops so far: a count whose growth means the network is congested somewhere.
        std::function<uint64_t()> congestion;
        // Set where the congestion control steers even a lone flow (fluid-steering.h): each fluid flow runs
        // it, with the parameters its queue pair would get.
        FluidSteering::Factory steer;
        FluidSteering::ParamsOf flowParams;
    };
    // `cutThrough`: switches forward a frame once its header is in.
    // Refuses nothing: the fabric checks the settings (one queue pair per message).
    UncontendedFluid(const TopologySpec& spec, const Routing& routing, const NicSettings& nic,
                     bool cutThrough, Fabric fabric);

    // RoceFabric::StartMessage with one queue pair per message.
    void Start(uint64_t messageId, uint32_t src, uint32_t dst, uint64_t sizeBytes, uint8_t priority,
               uint16_t flowDstPort, RoceNic::Done sent, RoceNic::Received received);
    // A cable goes down: the fluid flows on it go on at packet level (and meet the dead link), and no fluid
    // flow uses it again.
    void CableDown(uint32_t cable);

    // Payload delivered by fluid flows (the hang detector's progress, the delivered total).
    uint64_t DeliveredBytes() const { return m_deliveredBytes; }
    // A fluid message is on its way, or a packet-level one waits for its instant's end: bytes move that no
    // packet shows.
    bool Moving() const { return m_fluidInFlight > 0 || !m_waiting.empty(); }
    UncontendedFluidStats Stats() const;

private:
    struct Message {
        uint64_t id = 0, sizeBytes = 0, wireBytes = 0;
        uint64_t order = 0;  // its place among the messages started (they go to packet level in that order)
        uint32_t src = 0, dst = 0;
        uint8_t priority = 0;
        uint16_t sport = 0, dport = 0;
        TimePs startPs = 0;
        TimePs dataLatencyPs = 0, ackLatencyPs = 0, roundTripPs = 0;
        uint32_t ackFrameBytes = 0;   // its ACKs' frames (with the INT records they echo)
        double ackWeight = 0;         // ACK wire bytes per data wire byte (full frames)
        std::vector<uint32_t> links;  // directed cables of the data path (2 x cable + direction)
        std::vector<uint32_t> acks;   // and of its ACK path
        bool fluid = false;           // on the fluid links; else a packet-level message
        bool holding = false;         // counted on its links (fluid: m_fluidOn; packet: m_packetUsers)
        bool reached = false;         // gathered by Drain, to go to packet level
        RoceNic::Done sent;
        RoceNic::Received received;
    };

    void heldDownstream(uint32_t id) override;
    void ConvertHeld(uint64_t);

    bool Alone(const Message& m) const;
    bool Quiet();  // the network has been free of marks, pauses and drops for kQuietPs, and moves are rare
    static constexpr TimePs kQuietPs = 200'000'000;
    static constexpr TimePs kCongestionPollPs = 10'000'000;  // how stale the congestion count may be
    static constexpr uint64_t kConversionGrace = 16;
    uint64_t m_congestion = 0;
    TimePs m_congestionPolledPs = 0, m_congestedAtPs = 0;
    void StartFluid(uint32_t slot);  // on its data links, and its ACKs on m_ackLinks
    // Packet-level starts queue, and go to their NICs in start order (StartQueued) once everything the
    // call moves to packet level has queued: the queue pairs of a NIC then stand in the order the full model
    // makes them. At an instant at which a fluid flow started they wait for the instant's end (an event after
    // those queued for it): a later start at that instant may still move the fluid flow to packet level,
    // and its NIC must then start sending before the later messages' NICs, as in the full model (a switch
    // draws its marks from one random stream for all its ports, so the order of arrivals at one picosecond
    // decides which packet gets which draw).
    void StartPacket(uint32_t slot, uint64_t sizeBytes, int64_t aloneNs,
                     std::unique_ptr<cc::CongestionControl> steered = nullptr);
    struct WaitingStart {
        uint32_t slot = 0;
        uint64_t sizeBytes = 0;
        int64_t aloneNs = 0;
        std::unique_ptr<cc::CongestionControl> steered;
    };
    void StartQueued();  // at the end of each call that starts packets (Start, ConvertHeld, CableDown)
    void StartWaiting(uint64_t);
    void StartOnNic(WaitingStart start);
    TimePs m_fluidStartedPs = UINT64_MAX;  // when a fluid flow last started
    bool m_waitingForInstantEnd = false;
    std::vector<WaitingStart> m_waiting;
    // Fluid flows whose data or ACKs use a cable of this (packet-level) message's data or ACK path go to
    // packet level, and those on the cables they then occupy (Drain: the cables in m_work).
    void Convert(const Message& packet);
    void Drain();
    void ConvertOne(uint32_t slot);
    void Release(uint32_t slot);  // off its links
    void Departed(uint64_t slot);
    void Received(uint64_t slot);
    void Acknowledged(uint64_t slot);
    void PacketSent(uint32_t slot, const FlowCompletion& done);
    TimePs FrameTimePs(uint32_t link, uint64_t frameBytes) const;
    uint64_t RateBps(uint32_t link) const { return m_spec.cables[link / 2].rateBps; }

    const TopologySpec& m_spec;
    const Routing& m_routing;
    NicSettings m_nic;
    bool m_cutThrough;
    Fabric m_fabric;
    FluidLinks m_fluid;
    std::unique_ptr<FluidSteering> m_steering;
    std::vector<uint32_t> m_packetUsers;  // per directed cable: packet-level messages' data and ACKs on it
    std::vector<std::vector<uint32_t>> m_fluidOn;      // per directed cable: fluid messages' data on it
    std::vector<std::vector<uint32_t>> m_fluidAcksOn;  // and their ACKs
    std::vector<uint32_t> m_ingress;                   // per directed cable: where its fluid flows come from
    std::vector<char> m_down;                          // per cable
    SlotPool<Message> m_messages;                      // slot = fluid flow id
    std::vector<uint32_t> m_work, m_held, m_reached;
    double m_acksPerPacket = 0;  // ACKs per full data frame
    uint64_t m_deliveredBytes = 0, m_fluidInFlight = 0, m_started = 0;
    UncontendedFluidStats m_stats;
};

}  // namespace mlnet::roce

#endif
