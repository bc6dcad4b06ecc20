#include "fluid-links.h"

#include <algorithm>

namespace mlnet {

uint32_t FluidLinks::addLink(double bandwidthBytesPerNs, double latencyNs) {
    m_links.emplace_back();
    m_links.back().bandwidthBytesPerNs = bandwidthBytesPerNs;
    m_links.back().latencyNs = latencyNs;
    return static_cast<uint32_t>(m_links.size() - 1);
}

void FluidLinks::start(uint32_t id, const std::vector<uint32_t>& route, uint64_t sizeBytes) {
    static const std::vector<uint32_t> kNoLoads;
    start(id, route, sizeBytes, kNoLoads, 0);
}

void FluidLinks::start(uint32_t id, const std::vector<uint32_t>& route, uint64_t sizeBytes,
                       const std::vector<uint32_t>& loadLinks, double loadFactor, uint32_t sourceLinks) {
    if (id >= m_flows.size()) {
        m_flows.resize(id + 1);
    }
    ++m_counters.flowsStarted;
    Flow& flow = m_flows[id];
    flow.pathLatencyNs = 0;
    for (uint32_t link : route) {
        flow.pathLatencyNs += m_links[link].latencyNs;
    }
    const double nowNs = m_clock.nowNs();
    if (route.empty() || sizeBytes == 0) {
        ++m_counters.flowsCompleted;
        m_clock.atArrival(nowNs + flow.pathLatencyNs, arrival(id));
        return;
    }
    flow.hops.clear();
    for (uint32_t link : route) {
        m_links[link].carriedBytes += sizeBytes;
        std::vector<LinkFlow>& onLink = m_links[link].flows;
        flow.hops.push_back({link, static_cast<uint32_t>(onLink.size())});
        onLink.push_back({id, static_cast<uint32_t>(flow.hops.size() - 1)});
    }
    flow.sourceHops = std::clamp<uint32_t>(sourceLinks, 1, static_cast<uint32_t>(route.size()));
    flow.loads.clear();
    flow.loadFactor = loadFactor;
    for (uint32_t link : loadLinks) {
        std::vector<LinkFlow>& onLink = m_links[link].loads;
        flow.loads.push_back({link, static_cast<uint32_t>(onLink.size())});
        onLink.push_back({id, static_cast<uint32_t>(flow.loads.size() - 1)});
    }
    flow.remainingBytes = static_cast<double>(sizeBytes);
    flow.rateBytesPerNs = 0;
    flow.updatedNs = nowNs;
    flow.active = true;
    ++m_activeFlows;
    markDirty(flow, nowNs);
}

void FluidLinks::markDirty(const Flow& flow, double changeNs) {
    for (const Hop& hop : flow.hops) {
        m_changes.push_back({hop.link, changeNs});
    }
    for (const Hop& hop : flow.loads) {
        m_changes.push_back({hop.link, changeNs});
    }
    if (!m_recomputeScheduled) {
        m_recomputeScheduled = true;
        m_clock.soon(makeCallback<&FluidLinks::recompute>(this));
    }
}

void FluidLinks::collectComponent(uint32_t seedLink) {
    const uint32_t component = static_cast<uint32_t>(m_componentChangeNs.size());
    m_componentChangeNs.push_back(0);
    m_stack.clear();
    m_stack.push_back(seedLink);
    m_links[seedLink].stamp = m_epoch;
    while (!m_stack.empty()) {
        const uint32_t link = m_stack.back();
        m_stack.pop_back();
        LinkState& ls = m_links[link];
        if (ls.flows.empty() && ls.loads.empty()) {
            continue;
        }
        (ls.flows.empty() ? m_componentLoadLinks : m_componentLinks).push_back(link);
        ls.component = component;
        for (const std::vector<LinkFlow>* list : {&ls.flows, &ls.loads}) {
            for (const LinkFlow& lf : *list) {
                Flow& flow = m_flows[lf.flow];
                if (flow.stamp == m_epoch) {
                    continue;
                }
                flow.stamp = m_epoch;
                flow.component = component;
                m_componentFlows.push_back(lf.flow);
                for (const std::vector<Hop>* hops : {&flow.hops, &flow.loads}) {
                    for (const Hop& hop : *hops) {
                        if (m_links[hop.link].stamp != m_epoch) {
                            m_links[hop.link].stamp = m_epoch;
                            m_stack.push_back(hop.link);
                        }
                    }
                }
            }
        }
    }
}

void FluidLinks::recompute(uint64_t) {
    m_recomputeScheduled = false;
    ++m_epoch;
    m_componentLinks.clear();
    m_componentLoadLinks.clear();
    m_componentFlows.clear();
    m_componentChangeNs.clear();
    for (const Change& change : m_changes) {
        LinkState& ls = m_links[change.link];
        if (ls.flows.empty() && ls.loads.empty()) {
            accrue(ls, change.timeNs);
            ls.carried = {};  // idle: in no component
        }
        if (ls.stamp != m_epoch) {
            const std::size_t before = m_componentFlows.size();
            collectComponent(change.link);
            m_counters.largestComponentFlows =
                std::max<uint64_t>(m_counters.largestComponentFlows, m_componentFlows.size() - before);
        }
    }
    // New rates apply from a component's latest change: exact for departures alone, and where a start and a
    // departure meet in one nanosecond the departure's bandwidth is released late rather than early, so no
    // link is ever oversubscribed.
    for (const Change& change : m_changes) {
        const LinkState& ls = m_links[change.link];
        if (!ls.flows.empty() || !ls.loads.empty()) {
            double& t = m_componentChangeNs[ls.component];
            t = std::max(t, change.timeNs);
        }
    }
    m_changes.clear();
    if (m_componentFlows.empty()) {
        return;
    }
    ++m_counters.rateRecomputations;
    m_counters.flowRateUpdates += m_componentFlows.size();
    waterFill();
    account();

    m_held.clear();
    for (uint32_t id : m_componentFlows) {
        Flow& flow = m_flows[id];
        if (flow.heldDownstream) {
            m_held.push_back(id);
        }
        if (flow.newRateBytesPerNs == flow.rateBytesPerNs) {
            continue;  // same trajectory: its pending finish event stays valid
        }
        const double changeNs = std::max(m_componentChangeNs[flow.component], flow.updatedNs);
        flow.remainingBytes =
            std::max(0.0, flow.remainingBytes - flow.rateBytesPerNs * (changeNs - flow.updatedNs));
        flow.updatedNs = changeNs;
        flow.rateBytesPerNs = flow.newRateBytesPerNs;
        flow.finishNs = changeNs + flow.remainingBytes / flow.rateBytesPerNs;
        ++flow.generation;
        const uint64_t arg = uint64_t{flow.generation} << 32 | id;
        m_clock.atDeparture(flow.finishNs, makeCallback<&FluidLinks::onFinish>(this, arg));
    }
    for (uint32_t id : m_held) {
        m_clock.heldDownstream(id);
    }
}

// The links' sent bytes at the old rates up to their component's change, then what they carry from there.
void FluidLinks::account() {
    for (const std::vector<uint32_t>* links : {&m_componentLinks, &m_componentLoadLinks}) {
        for (uint32_t link : *links) {
            LinkState& ls = m_links[link];
            accrue(ls, m_componentChangeNs[ls.component]);
            ls.carried = {};
            for (const LinkFlow& lf : ls.flows) {
                ls.carried.flows += m_flows[lf.flow].newRateBytesPerNs;
            }
            for (const LinkFlow& lf : ls.loads) {
                const Flow& f = m_flows[lf.flow];
                ls.carried.loads += f.loadFactor * f.newRateBytesPerNs;
            }
        }
    }
}

// Progressive filling: repeatedly saturate the link with the smallest fair share among its unfrozen flows,
// freeze those flows at that share and charge it to their other links. A link's share never decreases while
// filling, so stale heap entries are simply skipped.
void FluidLinks::waterFill() {
    bool loaded = false;
    for (uint32_t link : m_componentLinks) {
        loaded = loaded || !m_links[link].loads.empty();
    }
    // Loads ahead of the shared traffic come from the flows' rates: the previous ones first (none for a new
    // flow), then twice the ones the pass before found: each pass multiplies the error by the load factor
    // (ACKs: a 7 % load is within 0.04 % after three).
    fill(loaded ? Loads::Previous : Loads::None);
    if (loaded) {
        fill(Loads::New);
        fill(Loads::New);
    }
}

void FluidLinks::fill(Loads loads) {
    auto later = [](const Share& a, const Share& b) {
        return a.bytesPerNs != b.bytesPerNs ? a.bytesPerNs > b.bytesPerNs : a.link > b.link;
    };
    m_heap.clear();
    for (uint32_t link : m_componentLinks) {
        LinkState& ls = m_links[link];
        ls.residualBytesPerNs = ls.bandwidthBytesPerNs;
        for (const LinkFlow& lf : ls.loads) {
            const Flow& f = m_flows[lf.flow];
            ls.residualBytesPerNs -=
                f.loadFactor * (loads == Loads::Previous ? f.rateBytesPerNs : f.newRateBytesPerNs);
        }
        // What the loads leave, never nothing: a flow must keep moving.
        ls.residualBytesPerNs = std::max(ls.residualBytesPerNs, ls.bandwidthBytesPerNs * 1e-6);
        ls.unfrozen = static_cast<uint32_t>(ls.flows.size());
        m_heap.push_back({ls.residualBytesPerNs / ls.unfrozen, link});
    }
    for (uint32_t id : m_componentFlows) {
        m_flows[id].frozen = false;
    }
    std::make_heap(m_heap.begin(), m_heap.end(), later);
    while (!m_heap.empty()) {
        std::pop_heap(m_heap.begin(), m_heap.end(), later);
        const Share share = m_heap.back();
        m_heap.pop_back();
        LinkState& ls = m_links[share.link];
        if (ls.unfrozen == 0) {
            continue;
        }
        // Freezing a flow at the smallest share leaves every other link of it a share at least as large,
        // so a queued share is a lower bound: a link whose share rose since is queued again at its share
        // now, rather than at every freeze (the same order, far fewer heap moves).
        const double now = ls.residualBytesPerNs / ls.unfrozen;
        if (now != share.bytesPerNs) {
            m_heap.push_back({now, share.link});
            std::push_heap(m_heap.begin(), m_heap.end(), later);
            continue;
        }
        // The true share is at least bandwidth / flows (without loads); the bound only guards against
        // rounding driving the residual to zero, which would leave a flow that never finishes.
        const double rate =
            loads != Loads::None
                ? std::max(share.bytesPerNs,
                           ls.bandwidthBytesPerNs * 1e-6 / static_cast<double>(ls.flows.size()))
                : std::max(share.bytesPerNs, ls.bandwidthBytesPerNs / static_cast<double>(ls.flows.size()));
        for (const LinkFlow& lf : ls.flows) {
            Flow& flow = m_flows[lf.flow];
            if (flow.frozen) {
                continue;
            }
            flow.frozen = true;
            flow.newRateBytesPerNs = rate;
            // Loaded flows only (the RoCE stand-ins): frozen here, below the share each of its source's
            // links still offers, its source would send faster than this link takes it.
            flow.heldDownstream = loads != Loads::None;
            for (uint32_t k = 0; k < flow.sourceHops && flow.heldDownstream; ++k) {
                const LinkState& source = m_links[flow.hops[k].link];
                flow.heldDownstream = flow.hops[k].link != share.link && source.unfrozen > 0 &&
                                      source.residualBytesPerNs / source.unfrozen > rate * (1 + kHeldMargin);
            }
            for (const Hop& hop : flow.hops) {
                if (hop.link == share.link) {
                    continue;
                }
                LinkState& other = m_links[hop.link];
                other.residualBytesPerNs = std::max(0.0, other.residualBytesPerNs - rate);
                --other.unfrozen;
            }
        }
        ls.unfrozen = 0;
    }
}

double FluidLinks::remainingBytes(uint32_t id) const {
    const Flow& flow = m_flows[id];
    // A flow whose first rate pass has not run yet has sent nothing.
    return std::max(
        0.0, flow.remainingBytes - flow.rateBytesPerNs * std::max(0.0, m_clock.nowNs() - flow.updatedNs));
}

FluidLinks::Sent FluidLinks::sentBytes(uint32_t link) const {
    const LinkState& ls = m_links[link];
    const double elapsedNs = std::max(0.0, m_clock.nowNs() - ls.sentAtNs);
    return {ls.sent.flows + ls.carried.flows * elapsedNs, ls.sent.loads + ls.carried.loads * elapsedNs};
}

void FluidLinks::accrue(LinkState& ls, double untilNs) {
    if (untilNs > ls.sentAtNs) {
        ls.sent.flows += ls.carried.flows * (untilNs - ls.sentAtNs);
        ls.sent.loads += ls.carried.loads * (untilNs - ls.sentAtNs);
        ls.sentAtNs = untilNs;
    }
}

void FluidLinks::setBandwidth(uint32_t link, double bytesPerNs) {
    LinkState& ls = m_links[link];
    const double before = ls.bandwidthBytesPerNs;
    ls.bandwidthBytesPerNs = bytesPerNs;
    if (ls.flows.empty() && ls.loads.empty()) {
        return;
    }
    // A link below both bandwidths (by more than rounding) was no flow's bottleneck and is none now: max-min
    // rates stay (a pending pass recomputes them anyway).
    constexpr double kRounding = 1e-6;
    if (carriedBytesPerNs(link) < std::min(before, bytesPerNs) * (1 - kRounding)) {
        return;
    }
    m_changes.push_back({link, m_clock.nowNs()});
    if (!m_recomputeScheduled) {
        m_recomputeScheduled = true;
        m_clock.soon(makeCallback<&FluidLinks::recompute>(this));
    }
}

double FluidLinks::stop(uint32_t id) {
    Flow& flow = m_flows[id];
    const double nowNs = m_clock.nowNs();
    const double remaining = remainingBytes(id);
    for (const Hop& hop : flow.hops) {
        m_links[hop.link].carriedBytes -= static_cast<uint64_t>(remaining);
    }
    unlink(flow);
    ++flow.generation;
    --m_activeFlows;
    markDirty(flow, nowNs);
    return remaining;
}

void FluidLinks::unlinkHops(std::vector<Hop>& hops, std::vector<LinkState>& links,
                            std::vector<LinkFlow> LinkState::*list, std::vector<Flow>& flows,
                            std::vector<Hop> Flow::*own) {
    for (const Hop& hop : hops) {
        std::vector<LinkFlow>& onLink = links[hop.link].*list;
        const LinkFlow moved = onLink.back();
        onLink[hop.slot] = moved;
        (flows[moved.flow].*own)[moved.hop].slot = hop.slot;
        onLink.pop_back();
    }
}

void FluidLinks::unlink(Flow& flow) {
    unlinkHops(flow.hops, m_links, &LinkState::flows, m_flows, &Flow::hops);
    unlinkHops(flow.loads, m_links, &LinkState::loads, m_flows, &Flow::loads);
    flow.active = false;
}

void FluidLinks::onFinish(uint64_t arg) {
    const uint32_t id = static_cast<uint32_t>(arg);
    Flow& flow = m_flows[id];
    if (!flow.active || flow.generation != static_cast<uint32_t>(arg >> 32)) {
        ++m_counters.staleFinishEvents;
        return;
    }
    unlink(flow);
    --m_activeFlows;
    ++m_counters.flowsCompleted;
    markDirty(flow, flow.finishNs);
    m_clock.atArrival(flow.finishNs + flow.pathLatencyNs, arrival(id));
}

}  // namespace mlnet
