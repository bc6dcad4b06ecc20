// Fluid flows whose congestion control steers even a lone flow (cc::CongestionControl::lineRateWhenAlone
// false: HPCC). Its telemetry holds the most loaded switch port of a path near η of the port's rate, so a
// lone flow neither keeps its line rate nor settles at once. And k flows started together on one NIC keep
// the NIC full for about log(k)/log(1/η) commits: each commit cuts every rate by the port's utilisation
// over η, and the NIC stays at its line rate until the rates' sum falls below it. That is 40 commits for
// eight flows at η 0.95, most of a ring step's life; once some of them end, the others climb back only as
// fast as the algorithm lets them. No fixed share stands for that: on a 256-GPU step, capping the switch
// ports at η put the shared steps 4 % off and a data-parallel all-gather 8.5 %.
//
// So each such fluid flow runs the algorithm its queue pair would run (same parameters, base RTT and line
// rate) on ACKs made from the fluid links, on the packets' ACK clock (Tick). An ACK carries, for every
// switch port of the data path, the record the port would have stamped on the frame it acknowledges: the
// frame's moment and the bytes the port had sent by then at the rates the fluid links hold there (its
// flows and the ACK loads on it, in frames without the wire's preamble and gap, as a port counts them).
// No queue: fluid flows meet at no switch queue. The rate the algorithm sets is the bandwidth of a link of
// the flow's own, first on its route (the sender's pacing); max-min over the shared links does the rest,
// a NIC's round robin where the flows' rates exceed it, the port's share where they do not.
//
// A rate move under 0.1 % leaves the link as it is: a lone flow's commits then stop moving anything after
// a few round trips, and a flow held below its rate by its NIC costs no rate pass while its rate falls.
#ifndef MLNET_ROCE_FLUID_STEERING_H
#define MLNET_ROCE_FLUID_STEERING_H

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "congestion-control.h"
#include "network/fluid-links.h"
#include "network/topology-spec.h"
#include "roce-timing.h"

namespace mlnet::roce {

struct FluidSteeringStats {
    uint64_t acks = 0;         // synthetic ACKs handed to the flows' congestion control
    uint64_t rateChanges = 0;  // of them, those that moved a flow's own link
};

class FluidSteering {
public:
    // The flow's congestion control for a path between two hosts, and the parameters its queue pair would get
    // (the line rate is the port's the path leaves on, set here).
    using Factory = std::function<std::unique_ptr<cc::CongestionControl>(const cc::FlowParams&)>;
    using ParamsOf = std::function<cc::FlowParams(uint32_t src, uint32_t dst)>;

    // A port's INT counter counts frames without the wire's per-frame overhead (preamble, gap), which the
    // fluid links carry. `dataFrameBytes`: a full data frame (whose time at the line rate also separates the
    // first two ACKs). `telemetry`: switches stamp INT records (without them the ACKs carry none, as the
    // packets' do).
    FluidSteering(FluidLinks& fluid, const TopologySpec& spec, Factory factory, ParamsOf paramsOf,
                  uint32_t dataFrameBytes, uint32_t overheadBytes, bool telemetry);

    // The route fluid flow `id` starts on: a link of its own at its line rate, then its data path's
    // directed cables (each cable c is fluid links 2c and 2c + 1).
    const std::vector<uint32_t>& Route(uint32_t id, const std::vector<uint32_t>& path);
    // After FluidLinks::start of `wireBytes`: its congestion control starts at the line rate. `roundTripPs`:
    // from a frame's departure to its ACK's arrival on this path (the ACK clock; the algorithm's base RTT
    // may be the network's longest). The ACK loads on its ports are taken as frames of `ackFrameBytes` (its
    // own ACKs').
    void Begin(uint32_t id, uint32_t src, uint32_t dst, const std::vector<uint32_t>& path, double wireBytes,
               TimePs roundTripPs, uint32_t ackFrameBytes);
    // Its last byte has left, or it moved to packet level: no more ACKs.
    void End(uint32_t id);
    // It moves to packet level: End, and its congestion control, as the fluid telemetry left it, goes with
    // it.
    std::unique_ptr<cc::CongestionControl> HandOver(uint32_t id);

    const FluidSteeringStats& Stats() const { return m_stats; }

private:
    // What the flow's ACKs report: the moment its data passed, the bytes sent by then, and what its switch
    // ports had sent by then.
    struct Sample {
        double timeNs = 0;
        double sentBytes = 0;
        std::vector<double> portBytes;  // as INT counts them: frames, no wire overhead
    };
    struct Steered {
        std::unique_ptr<cc::CongestionControl> cc;
        uint32_t ownLink = UINT32_MAX;
        uint32_t generation = 0;  // events carry it: a later flow on the id makes them stale
        uint32_t phase = 0;       // Tick: what the next event does
        bool active = false;
        TimePs roundTripPs = 0, frameTimePs = 0;
        double wireBytes = 0;
        double ackShare = 0;          // frame bytes per wire byte of the ACK loads
        double rateBytesPerNs = 0;    // what the own link holds
        std::vector<uint32_t> ports;  // switch ports (fluid links) of the data path
        Sample early, late;           // the two moments the next ACKs report
        std::vector<cc::IntHop> hops;
    };
    void Tick(uint64_t arg);
    TimePs GapPs(uint32_t id) const;
    void Take(uint32_t id, Sample& sample);
    void Report(uint32_t id, const Sample& sample);
    void Next(uint32_t id, TimePs delayPs);
    bool FromSwitch(uint32_t directed) const;
    uint64_t LineRateBps(const std::vector<uint32_t>& path) const {
        return m_spec.cables[path[0] / 2].rateBps;
    }

    FluidLinks& m_fluid;
    const TopologySpec& m_spec;
    Factory m_factory;
    ParamsOf m_paramsOf;
    uint32_t m_dataWireBytes, m_overheadBytes;
    double m_dataShare;  // frame bytes per wire byte of the flows
    bool m_telemetry;
    std::vector<Steered> m_flows;  // by fluid flow id
    std::vector<uint32_t> m_route;
    FluidSteeringStats m_stats;
};

}  // namespace mlnet::roce

#endif
