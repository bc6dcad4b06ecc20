// The scale-up domains (GPUs on NVLink through an NVSwitch-class switch) as NVLink carries data, not as RoCE:
// NVLink is credit-based and lossless, so it has no queue that marks, no PFC and no congestion control; its
// flows share each link max-min (FluidLinks), and a message arrives one path latency after its last byte
// leaves. The fabric hands over every message whose route stays on cables of "scale-up" switches (messages
// between the GPUs of a server, and to and from its switch's reduction engine), so a step's tensor-parallel
// traffic costs a rate pass per message start and end instead of a packet per 4 KB per hop. Both of a
// message's ends complete at its arrival (NVLink stores are posted writes). No packet, PFC frame or ECN
// mark stands for these bytes; they count in the delivered and message totals.
#ifndef MLNET_ROCE_SCALE_UP_FLUID_H
#define MLNET_ROCE_SCALE_UP_FLUID_H

#include <cstdint>
#include <map>
#include <vector>

#include "core-fluid-clock.h"
#include "network/fluid-links.h"
#include "network/network-api.h"
#include "network/routing.h"
#include "network/topology-spec.h"
#include "roce-nic.h"
#include "util/pools.h"

namespace mlnet::roce {

struct ScaleUpStats {
    uint64_t messages = 0;
    uint64_t bytes = 0;
    uint64_t ratePasses = 0;           // max-min recomputations
    uint64_t largestSharingFlows = 0;  // most flows re-rated together
};

class ScaleUpFluid : private CoreFluidClock {
public:
    // The tier whose switches make a scale-up domain (topology-builders' addScaleUp, SimAI's NVSwitches).
    static constexpr const char* kTier = "scale-up";

    // Its events are core light events (RoceSimulatorImpl::ScheduleCoreCall): the simulator's clock, which
    // fast-forward does not shift.
    ScaleUpFluid(const TopologySpec& spec, const Routing& routing);
    // False when the network has no scale-up switch: nothing would ever move here.
    bool Any() const { return m_any; }
    // Moves the message here when its route stays on scale-up cables, taking `sent` and `received`; false
    // (both left as they were) otherwise.
    bool TryStart(uint64_t messageId, uint32_t srcHost, uint32_t dstHost, uint64_t sizeBytes,
                  RoceNic::Done& sent, RoceNic::Received& received);

    // A domain whose messages nothing else can disturb: one scale-up switch, cabled to hosts only, each of
    // them on no other scale-up switch (then every route inside is host, switch, host). False when `hosts`
    // are not all in one such domain.
    bool PrivateDomain(const std::vector<uint32_t>& hosts, NetworkApi::PrivateDomain& out) const;
    // Messages a collective replayed inside a private domain instead of sending them.
    void CountReplayed(uint64_t messages, uint64_t bytes);

    uint64_t DeliveredBytes() const { return m_deliveredBytes; }
    uint64_t InFlight() const { return m_pending.inUse(); }
    ScaleUpStats Stats() const;

private:
    struct Pending {
        uint64_t id = 0, sizeBytes = 0;
        uint32_t src = 0, dst = 0;
        uint32_t domain = UINT32_MAX;
        TimePs startPs = 0;
        RoceNic::Done sent;
        RoceNic::Received received;
    };
    void Arrived(uint64_t slot);
    bool ShareASwitch(uint32_t hostA, uint32_t hostB) const;
    bool IsScaleUpSwitch(uint32_t node) const;
    void FindPrivateDomains();

    struct Domain {
        uint64_t messagesStarted = 0, inFlight = 0;
        uint32_t layout = 0;  // index into m_layouts: its cables' rates and delays, in cable order
    };
    std::vector<Domain> m_domains;
    std::vector<uint32_t> m_domainOf;  // per host: its private domain, or UINT32_MAX
    std::vector<uint32_t> m_placeOf;   // per host: its place among its domain's cables
    std::map<std::vector<uint64_t>, uint32_t> m_layouts;
    mutable std::map<std::vector<uint64_t>, uint64_t> m_shapes;  // (layout, places of endpoints) -> shape

    const TopologySpec& m_spec;
    const Routing& m_routing;
    FluidLinks m_fluid;
    // Per cable and direction (2 x cable, + 1 from b to a): its fluid link, or UINT32_MAX for a cable of
    // no scale-up switch.
    std::vector<uint32_t> m_link;
    std::vector<std::vector<uint32_t>> m_switchesOf;  // per host: the scale-up switches it is cabled to
    SlotPool<Pending> m_pending;                      // slot = fluid flow id
    std::vector<uint32_t> m_cables, m_route;          // a route's directed cables, their fluid links
    uint64_t m_deliveredBytes = 0;
    uint64_t m_messages = 0, m_bytes = 0;
    bool m_any = false;
};

}  // namespace mlnet::roce

#endif
