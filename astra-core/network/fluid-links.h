// Max-min fair fluid flows over directed links: the engine of the congestion-aware analytical network, and of
// the packet model's scale-up domains (NVLink, credit-based and lossless, so flows share it without queues,
// marks or pauses). Each flow crosses a list of links; the flows in flight share every link max-min fairly,
// and a flow arrives one path latency after its last byte leaves (cut-through).
//
// Rates change only when flows start or finish, and then only for the flows that transitively share a link
// with the changed ones: disjoint traffic (a ring step) costs O(route length) per flow, however many flows
// are in flight. Starts and finishes of one instant are batched into one recomputation. Rates and remaining
// bytes are exact (double); the clock decides how event times are rounded.
#ifndef MLNET_NETWORK_FLUID_LINKS_H
#define MLNET_NETWORK_FLUID_LINKS_H

#include <cstdint>
#include <vector>

#include "common/callback.h"

namespace mlnet {

class FluidLinks {
public:
    // The simulator's clock as the fluid model sees it: exact times in nanoseconds.
    class Clock {
    public:
        virtual ~Clock() = default;
        virtual double nowNs() const = 0;
        // After the events already due now: one rate pass serves every start and finish of an instant.
        virtual void soon(Callback callback) = 0;
        // A flow's last byte leaves at `timeNs` at its current rate (a later rate change makes the event
        // stale): never run it early, or a link would be oversubscribed.
        virtual void atDeparture(double timeNs, Callback callback) = 0;
        virtual void atArrival(double timeNs, Callback callback) = 0;
        // After a rate pass: flow `id` is held below its share of its source's links (the first
        // `sourceLinks` of its route) by a later one that its source could overfill (packets would queue
        // there). Only flows started with loads are told.
        virtual void heldDownstream(uint32_t /*id*/) {}
    };

    // `arrived` is called with its arg replaced by the flow's id when the flow's last byte is at its end.
    FluidLinks(Clock& clock, Callback arrived) : m_clock(clock), m_arrived(arrived) {}

    // Returns the new link's index.
    uint32_t addLink(double bandwidthBytesPerNs, double latencyNs);
    uint32_t numLinks() const { return static_cast<uint32_t>(m_links.size()); }
    // Starts flow `id` (any id not in flight; ids index a table, so keep them dense) over `route`. An empty
    // route or no bytes arrive after the route's latency.
    void start(uint32_t id, const std::vector<uint32_t>& route, uint64_t sizeBytes);
    // The same, plus a load of `loadFactor` x the flow's rate on each of `loadLinks`, served ahead of the
    // shared traffic (a flow's ACKs on its reverse path): a link's flows share what such loads leave of it.
    // The loads are estimated from the previous rates, then once more from the new ones. The route's first
    // `sourceLinks` links are its source's (a rate limit of its own, its NIC's cable).
    void start(uint32_t id, const std::vector<uint32_t>& route, uint64_t sizeBytes,
               const std::vector<uint32_t>& loadLinks, double loadFactor, uint32_t sourceLinks = 1);
    // Whether flow `id` still has bytes to send (its arrival may still be pending after it is not).
    bool sending(uint32_t id) const { return id < m_flows.size() && m_flows[id].active; }
    // Takes a sending flow off its links now, without an arrival: the bytes it had left to send (its
    // pending finish event goes stale, the others' rates are recomputed).
    double stop(uint32_t id);
    // The bytes a sending flow has left now.
    double remainingBytes(uint32_t id) const;
    // A link's bandwidth changes now (a flow's own link standing for its sender's rate limit). Where the
    // link held back none of its flows and still does not, no rate moves and no pass runs.
    void setBandwidth(uint32_t link, double bytesPerNs);
    // What a link carries now, bytes/ns: its flows' rates and the loads on it.
    double carriedBytesPerNs(uint32_t link) const {
        return m_links[link].carried.flows + m_links[link].carried.loads;
    }
    // Bytes a link has sent so far at those rates (a port's counter), its flows' and its loads' apart.
    struct Sent {
        double flows = 0, loads = 0;
    };
    Sent sentBytes(uint32_t link) const;

    struct Counters {
        uint64_t flowsStarted = 0;
        uint64_t flowsCompleted = 0;         // last byte sent; arrival follows after the path latency
        uint64_t rateRecomputations = 0;     // water-filling passes, one per batch of simultaneous changes
        uint64_t flowRateUpdates = 0;        // flows whose rate was recomputed, summed over passes
        uint64_t largestComponentFlows = 0;  // most flows ever recomputed together
        uint64_t staleFinishEvents = 0;      // finish events superseded by a rate change
    };
    const Counters& counters() const { return m_counters; }
    std::size_t activeFlows() const { return m_activeFlows; }
    // Bytes of all flows routed over a link so far, for utilization and bandwidth-bound checks.
    uint64_t linkBytes(uint32_t link) const { return m_links[link].carriedBytes; }

private:
    struct Hop {
        uint32_t link;
        uint32_t slot;  // this flow's index in the link's flow list, for O(1) removal
    };
    struct Flow {
        std::vector<Hop> hops;   // keeps its capacity across reuse of the id
        std::vector<Hop> loads;  // links it loads ahead of the shared traffic
        double loadFactor = 0;
        double remainingBytes = 0;  // at updatedNs
        double rateBytesPerNs = 0;
        double newRateBytesPerNs = 0;
        double updatedNs = 0;
        double finishNs = 0;  // exact time the last byte leaves at the current rate
        double pathLatencyNs = 0;
        uint64_t stamp = 0;
        uint32_t component = 0;
        uint32_t generation = 0;  // finish events carry it; a rate change makes older ones stale
        uint32_t sourceHops = 1;  // the first hops, its source's links
        bool active = false;
        bool frozen = false;
        bool heldDownstream = false;  // the last pass: see Clock::heldDownstream
    };
    struct LinkFlow {
        uint32_t flow;
        uint32_t hop;  // index into the flow's hops
    };
    struct LinkState {
        std::vector<LinkFlow> flows;
        std::vector<LinkFlow> loads;  // hop: index into the flow's loads
        double bandwidthBytesPerNs = 0;
        double latencyNs = 0;
        double residualBytesPerNs = 0;
        Sent carried;  // bytes/ns since sentAtNs
        Sent sent;     // bytes up to sentAtNs
        double sentAtNs = 0;
        uint64_t carriedBytes = 0;
        uint64_t stamp = 0;
        uint32_t component = 0;
        uint32_t unfrozen = 0;
    };
    // A link whose flow set changed, and the exact time of the change (a departure's last byte can fall
    // between the instants on which events run).
    struct Change {
        uint32_t link;
        double timeNs;
    };
    // A link's fair share when it was queued (fill: at most one per link, never above the share now).
    struct Share {
        double bytesPerNs;
        uint32_t link;
    };

    void markDirty(const Flow& flow, double changeNs);
    void unlink(Flow& flow);  // off every link's lists
    static void unlinkHops(std::vector<Hop>& hops, std::vector<LinkState>& links,
                           std::vector<LinkFlow> LinkState::*list, std::vector<Flow>& flows,
                           std::vector<Hop> Flow::*own);
    void recompute(uint64_t);
    void collectComponent(uint32_t seedLink);
    void waterFill();
    void account();
    static void accrue(LinkState& link, double untilNs);
    enum class Loads : uint8_t { None, Previous, New };
    // How far below its first link's share a flow must be held to count as held downstream: ties (a ring
    // whose every link has the same share) are not.
    static constexpr double kHeldMargin = 1e-3;  // which rates the links' loads are taken from
    void fill(Loads loads);
    void onFinish(uint64_t arg);
    Callback arrival(uint32_t id) const {
        Callback done = m_arrived;
        done.arg = id;
        return done;
    }

    Clock& m_clock;
    Callback m_arrived;
    std::vector<Flow> m_flows;
    std::vector<LinkState> m_links;
    std::vector<Change> m_changes;
    std::vector<double> m_componentChangeNs;
    std::vector<uint32_t> m_held;
    std::vector<uint32_t> m_componentLinks;      // with flows
    std::vector<uint32_t> m_componentLoadLinks;  // with loads alone
    std::vector<uint32_t> m_componentFlows;
    std::vector<uint32_t> m_stack;
    std::vector<Share> m_heap;
    uint64_t m_epoch = 0;
    std::size_t m_activeFlows = 0;
    bool m_recomputeScheduled = false;
    Counters m_counters;
};

}  // namespace mlnet

#endif
