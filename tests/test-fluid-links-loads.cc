// FluidLinks' loads served ahead of the shared traffic (a fluid flow's ACKs on its reverse path): a link's
// flows share what the loads leave, and a flow taken off its links gives back the bytes it had left.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "network/fluid-links.h"

namespace mlnet {
namespace {

// A clock that runs the fluid model's events in time order.
class TestClock : public FluidLinks::Clock {
public:
    double nowNs() const override { return m_now; }
    void soon(Callback c) override { m_events.push_back({m_now, c}); }
    void atDeparture(double t, Callback c) override { m_events.push_back({t, c}); }
    void atArrival(double t, Callback c) override { m_events.push_back({t, c}); }
    void heldDownstream(uint32_t id) override { held.push_back(id); }
    std::vector<uint32_t> held;  // every heldDownstream call, in order
    void runUntil(double endNs) {
        while (true) {
            std::size_t next = m_events.size();
            for (std::size_t i = 0; i < m_events.size(); ++i) {
                if (m_events[i].t <= endNs && (next == m_events.size() || m_events[i].t < m_events[next].t)) {
                    next = i;
                }
            }
            if (next == m_events.size()) {
                m_now = endNs;
                return;
            }
            const Event e = m_events[next];
            m_events.erase(m_events.begin() + static_cast<std::ptrdiff_t>(next));
            m_now = e.t;
            e.c();
        }
    }

private:
    struct Event {
        double t;
        Callback c;
    };
    double m_now = 0;
    std::vector<Event> m_events;
};

struct Arrivals {
    std::vector<double> atNs = std::vector<double>(8, -1);
    TestClock* clock = nullptr;
    void arrived(uint64_t id) { atNs[id] = clock->nowNs(); }
};

// Two NICs in a ring of two, each sending 1,000 bytes per ns of capacity to the other: each link carries one
// flow and the other's ACKs at a tenth of its rate, served first, so each flow runs at 1 / 1.1.
TEST(FluidLinksLoads, FlowsShareWhatTheLoadsAheadOfThemLeave) {
    TestClock clock;
    Arrivals a;
    a.clock = &clock;
    FluidLinks fluid(clock, makeCallback<&Arrivals::arrived>(&a));
    const uint32_t ab = fluid.addLink(1.0, 0), ba = fluid.addLink(1.0, 0);
    fluid.start(0, {ab}, 1'100'000, {ba}, 0.1);
    fluid.start(1, {ba}, 1'100'000, {ab}, 0.1);
    clock.runUntil(1e9);
    EXPECT_NEAR(a.atNs[0], 1'210'000, 1'210'000 * 1e-3);  // 1.1 MB at 1/1.1 byte per ns
    EXPECT_NEAR(a.atNs[1], 1'210'000, 1'210'000 * 1e-3);
}

// A flow whose ACKs load a link another flow is alone on does not get that link's fair share: the loaded
// link's flow keeps all but the load (the max-min share would split it evenly between the two).
TEST(FluidLinksLoads, ALoadIsNotAShare) {
    TestClock clock;
    Arrivals a;
    a.clock = &clock;
    FluidLinks fluid(clock, makeCallback<&Arrivals::arrived>(&a));
    const uint32_t fast = fluid.addLink(1.0, 0), slow = fluid.addLink(0.5, 0);
    fluid.start(0, {slow}, 500'000, {fast}, 0.1);  // 0.5 byte per ns; its load on `fast` is 0.05
    fluid.start(1, {fast}, 950'000, {}, 0);        // 0.95 byte per ns
    clock.runUntil(1e9);
    EXPECT_NEAR(a.atNs[0], 1'000'000, 1e-3 * 1'000'000);
    EXPECT_NEAR(a.atNs[1], 1'000'000, 1e-3 * 1'000'000);
}

// A flow is held downstream where a link past its source's own (a rate limit of its own and its NIC's cable,
// `sourceLinks` 2) takes less than those offer: a load of 0.1 on the third link holds it at 0.9. Where its
// own limit (0.8) or its NIC's share (0.5, a second flow on it) is the lower, nothing downstream holds it;
// with the default of one source link, its NIC's cable holding it counts as downstream.
TEST(FluidLinksLoads, AFlowIsHeldDownstreamOnlyPastItsSourcesLinks) {
    struct Case {
        double ownBytesPerNs;
        bool nicShared;
        uint32_t sourceLinks;
        bool held;
    };
    for (const Case c : {Case{1.0, false, 2, true}, Case{0.8, false, 2, false}, Case{1.0, true, 2, false},
                         Case{1.0, true, 1, true}}) {
        SCOPED_TRACE(std::to_string(c.ownBytesPerNs) + (c.nicShared ? " shared" : "") + " source links " +
                     std::to_string(c.sourceLinks));
        TestClock clock;
        Arrivals a;
        a.clock = &clock;
        FluidLinks fluid(clock, makeCallback<&Arrivals::arrived>(&a));
        const uint32_t own = fluid.addLink(c.ownBytesPerNs, 0), nic = fluid.addLink(1.0, 0);
        const uint32_t port = fluid.addLink(1.0, 0), other = fluid.addLink(1.0, 0);
        fluid.start(1, {other}, 1'000'000, {port}, 0.1);
        if (c.nicShared) {
            fluid.start(2, {nic}, 1'000'000, {}, 0);
        }
        fluid.start(0, {own, nic, port}, 1'000'000, {}, 0, c.sourceLinks);
        clock.runUntil(1000);
        EXPECT_EQ(std::count(clock.held.begin(), clock.held.end(), 0u) > 0, c.held);
        EXPECT_EQ(std::count(clock.held.begin(), clock.held.end(), 1u), 0);
    }
}

// Stopping a flow half-way returns the bytes it had left and speeds up the one it shared a link with.
TEST(FluidLinksLoads, StoppingAFlowGivesBackWhatItHadLeft) {
    TestClock clock;
    Arrivals a;
    a.clock = &clock;
    FluidLinks fluid(clock, makeCallback<&Arrivals::arrived>(&a));
    const uint32_t link = fluid.addLink(1.0, 0);
    fluid.start(0, {link}, 1'000'000, {}, 0);
    fluid.start(1, {link}, 1'000'000, {}, 0);
    clock.runUntil(500'000);  // each has sent 250,000 bytes at half the link
    ASSERT_TRUE(fluid.sending(0));
    EXPECT_NEAR(fluid.stop(0), 750'000, 1);
    EXPECT_FALSE(fluid.sending(0));
    clock.runUntil(1e9);
    EXPECT_EQ(a.atNs[0], -1);                          // no arrival for a stopped flow
    EXPECT_NEAR(a.atNs[1], 1'250'000, 1e-6 * 1.25e6);  // the rest at the whole link
}

// A link of a flow's own stands for its sender's rate limit: changing its bandwidth moves the max-min rates,
// unless the link held the flow back neither before nor after (then no pass runs). A link counts what it
// has sent, its flows' bytes and its loads' apart.
TEST(FluidLinksLoads, BandwidthChangesMoveTheRatesAndLinksCountWhatTheySent) {
    TestClock clock;
    Arrivals a;
    a.clock = &clock;
    FluidLinks fluid(clock, makeCallback<&Arrivals::arrived>(&a));
    const uint32_t shared = fluid.addLink(1.0, 0), reverse = fluid.addLink(1.0, 0),
                   cap = fluid.addLink(0.2, 0);
    fluid.start(0, {cap, shared}, 1'000'000, {}, 0);
    fluid.start(1, {shared}, 1'000'000, {reverse}, 0.1);
    clock.runUntil(100'000);  // 0.2 and 0.8 bytes per ns
    EXPECT_DOUBLE_EQ(fluid.carriedBytesPerNs(shared), 1.0);
    EXPECT_NEAR(fluid.sentBytes(shared).flows, 100'000, 1e-6);
    EXPECT_NEAR(fluid.sentBytes(reverse).loads, 8'000, 1e-6);
    fluid.setBandwidth(cap, 0.6);  // 0.5 each from here
    clock.runUntil(200'000);
    EXPECT_NEAR(fluid.remainingBytes(0), 930'000, 1e-6);
    EXPECT_NEAR(fluid.sentBytes(shared).flows, 200'000, 1e-6);
    EXPECT_NEAR(fluid.sentBytes(reverse).loads, 13'000, 1e-6);
    const uint64_t passes = fluid.counters().rateRecomputations;
    fluid.setBandwidth(cap, 0.9);  // above the 0.5 the shared link leaves it, as 0.6 was: nothing moves
    clock.runUntil(200'000);
    EXPECT_EQ(fluid.counters().rateRecomputations, passes);
    clock.runUntil(1e9);
    EXPECT_NEAR(a.atNs[1], 1'940'000, 1e-3);                 // 870,000 bytes left at 0.5
    EXPECT_NEAR(a.atNs[0], 1'940'000 + 60'000 / 0.9, 1e-3);  // then alone, at its own link's 0.9
    EXPECT_NEAR(fluid.sentBytes(shared).flows, 2'000'000, 1e-3);
    EXPECT_DOUBLE_EQ(fluid.carriedBytesPerNs(shared), 0.0);
}

}  // namespace
}  // namespace mlnet
