// HPCC over several INT hops (the busiest hop, per-hop line rates, path changes, sampled feedback, per-hop
// rates), driven by scripted ACKs; every expected value is derived here from the HPCC paper's rules
// (Algorithm 1, per-hop variant in the reference simulator's MULTI_RATE mode).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "cc-timely-hpcc-test-util.h"
#include "hpcc.h"

namespace mlnet::cc {
namespace {

TEST(Hpcc, MultiHopTakesMaxUtilisationAndItsInterval) {
    HpccRun r;
    const std::vector<IntHop> a = {hop(1000, 0, 0), hop(1000, 0, 10'000),
                                   hop(1000, 0, 0, 400'000'000'000ull)};
    // hop 0: τ 6 us, 50 Gb/s; hop 1: τ 3 us, 100 Gb/s + queue 10 000 B (the maximum); hop 2: τ 2 us at a 400G
    // port.
    const std::vector<IntHop> b = {hop(7000, 37'500, 0), hop(4000, 37'500, 20'000),
                                   hop(3000, 80'000, 0, 400'000'000'000ull)};
    r.first(a);
    r.ack(b, false);
    const double u0 = hopU(a[0], b[0]);
    const double u1 = hopU(a[1], b[1]);
    const double u2 = hopU(a[2], b[2]);
    EXPECT_NEAR(u0, 0.5, 1e-12);
    EXPECT_NEAR(u1, 1.0 + 10'000.0 * 8 / (kLine * kTs), 1e-12);
    EXPECT_NEAR(u2, 0.8, 1e-12);
    ASSERT_GT(u1, u0);
    ASSERT_GT(u1, u2);
    // The EWMA uses the argmax hop's τ (3 us), not the longest (6 us) or shortest (2 us).
    const double u = ewma(1.0, u1, 3000);
    EXPECT_NEAR(r.cc.utilisation(), u, 1e-12);
    EXPECT_GT(std::abs(u - ewma(1.0, u1, 6000)), 1e-3);
    EXPECT_NEAR(r.rate(), clampRate(kLine / (u / kEta) + kWai), kRateTol);
}

TEST(Hpcc, QueueTermUsesTheHopsOwnLineRate) {
    HpccRun r;
    constexpr uint64_t k400G = 400'000'000'000ull;
    const IntHop h0 = hop(0, 0, 200'000, k400G);
    const IntHop h1 = hop(20'000, 500'000, 100'000, k400G);
    r.first({h0});
    r.ack({h1}, false);
    // 200 Gb/s on a 400G port is 0.5; 100 000 B (the smaller reading) over 400 Gb/s · 10 us is 0.2.
    const double u = 500'000 * 8 / 20e-6 / 400e9 + 100'000.0 * 8 / (400e9 * kTs);
    EXPECT_NEAR(u, 0.7, 1e-12);
    EXPECT_NEAR(hopU(h0, h1), u, 1e-12);
    EXPECT_NEAR(r.cc.utilisation(), u, 1e-12);
}

TEST(Hpcc, MoreThanFiveHops) {
    HpccRun r;
    std::vector<IntHop> a;
    std::vector<IntHop> b;
    for (uint64_t i = 0; i < 7; ++i) {
        a.push_back(hop(100 * i, 1'000'000 * i, 0));
        // Every hop 50 Gb/s over 20 us, except the last with a 30 000 B queue in both records.
        b.push_back(hop(100 * i + 20'000, 1'000'000 * i + 125'000, 0));
    }
    a[6].queueBytes = 30'000;
    b[6].queueBytes = 30'000;
    r.first(a);
    r.ack(b, true);
    const double u6 = hopU(a[6], b[6]);
    EXPECT_NEAR(u6, 0.5 + 0.24, 1e-12);
    EXPECT_NEAR(r.cc.utilisation(), u6, 1e-12);
    // c < 1 at stage 0 < maxStage: additive from line rate, capped.
    EXPECT_EQ(r.cc.rateBps(), kLineBps);
    EXPECT_EQ(r.cc.stage(), 1u);
    // Congest the seventh hop: the rate must react to it.
    std::vector<IntHop> c = b;
    for (uint64_t i = 0; i < 7; ++i) {
        c[i].timeNs += 20'000;
        c[i].txBytes += 125'000;
    }
    c[6].txBytes += 125'000;
    c[6].queueBytes = 250'000;
    r.ack(c, false);
    const double u = hopU(b[6], c[6]);
    EXPECT_NEAR(u, 1.0 + 0.24, 1e-12);
    EXPECT_NEAR(r.rate(), clampRate(kLine / (u / kEta) + kWai), kRateTol);
}

TEST(Hpcc, PathChangeReinitialisesSnapshot) {
    HpccRun r;
    r.first({hop(0, 0, 0), hop(0, 0, 0)});
    // Three hops now: new path. No rate change, no EWMA step; the records become the new baseline.
    const std::vector<IntHop> p1 = {hop(5000, 900'000, 0), hop(5000, 900'000, 0), hop(5000, 900'000, 0)};
    r.ack(p1, false);
    EXPECT_EQ(r.cc.rateBps(), kLineBps);
    EXPECT_EQ(r.cc.utilisation(), 1.0);
    const std::vector<IntHop> p2 = {hop(25'000, 900'000 + 250'000, 125'000), hop(25'000, 900'000, 0),
                                    hop(25'000, 900'000, 0)};
    r.ack(p2, false);
    // Against p1: hop 0 ran at line rate, queue term uses min(125 000, 0) = 0, so u = 1.0.
    EXPECT_NEAR(r.cc.utilisation(), hopU(p1[0], p2[0]), 1e-12);
    EXPECT_NEAR(r.cc.utilisation(), 1.0, 1e-12);
    const double rate = clampRate(kLine / (1.0 / kEta) + kWai);
    EXPECT_NEAR(r.rate(), rate, kRateTol);
    // Same hop count but a counter that went backwards: another port, so re-initialise again.
    const std::vector<IntHop> p3 = {hop(30'000, 10, 0), hop(30'000, 900'500, 0), hop(30'000, 900'500, 0)};
    r.ack(p3, false);
    EXPECT_NEAR(r.rate(), rate, kRateTol);
    EXPECT_NEAR(r.cc.utilisation(), 1.0, 1e-12);
    const std::vector<IntHop> p4 = {hop(50'000, 10 + 125'000, 0), hop(50'000, 900'500, 0),
                                    hop(50'000, 900'500, 0)};
    r.ack(p4, false);
    EXPECT_NEAR(r.cc.utilisation(), 0.5, 1e-12);  // 125 000 B over 20 us from p3, not from p2
    const double rate4 = clampRate(kLine / (0.5 / kEta) + kWai);
    EXPECT_NEAR(r.rate(), rate4, kRateTol);
    // A shorter path is a new path too, even though its first hops would pass the monotonicity checks.
    const std::vector<IntHop> p5 = {hop(70'000, 135'010 + 250'000, 0), hop(70'000, 900'500 + 250'000, 0)};
    r.ack(p5, false);
    EXPECT_NEAR(r.rate(), rate4, kRateTol);
    EXPECT_NEAR(r.cc.utilisation(), 0.5, 1e-12);
}

TEST(Hpcc, SampleFeedbackUsesOnlyQueuedHopsOnFastReact) {
    HpccParams p = hpccTestParams();
    p.sampleFeedback = true;
    HpccRun r(p);
    const std::vector<IntHop> a = {hop(0, 0, 0), hop(0, 0, 20'000)};
    r.first(a);
    // Hop 0 is busier (line rate) but reports no queue: a fast-react ACK skips it.
    const std::vector<IntHop> b = {hop(20'000, 250'000, 0), hop(20'000, 125'000, 20'000)};
    r.ack(b, false);
    const double u1 = hopU(a[1], b[1]);
    EXPECT_NEAR(u1, 0.5 + 0.16, 1e-12);
    EXPECT_NEAR(r.cc.utilisation(), u1, 1e-12);
    // A commit ACK uses every hop; hop 0's record was not replaced, so its interval still starts at a[0].
    // Measured from a[0] hop 0 ran at 75 Gb/s; from b[0] it would read 50 Gb/s.
    const std::vector<IntHop> c = {hop(40'000, 375'000, 0), hop(40'000, 125'000 + 50'000, 20'000)};
    r.ack(c, true);
    const double u0 = hopU(a[0], c[0]);
    EXPECT_NEAR(u0, 0.75, 1e-12);
    ASSERT_GT(std::abs(u0 - hopU(b[0], c[0])), 0.2);
    ASSERT_GT(u0, hopU(b[1], c[1]));
    EXPECT_NEAR(r.cc.utilisation(), ewma(u1, u0, 40'000), 1e-12);
}

TEST(Hpcc, PerHopRatesTakeTheMinimum) {
    HpccParams p = hpccTestParams();
    p.multiRate = true;
    p.maxStage = 0;
    HpccRun r(p);
    const std::vector<IntHop> a = {hop(0, 0, 0), hop(0, 0, 0)};
    r.first(a);
    ASSERT_EQ(r.cc.hopStates().size(), 2u);
    // hop 0: τ 5 us at 80 Gb/s (u 0.8); hop 1: τ 2.5 us at 110 Gb/s (u 1.1). Each hop has its own EWMA and τ.
    const std::vector<IntHop> b = {hop(5000, 50'000, 0), hop(2500, 34'375, 0)};
    r.ack(b, true);
    const double s0 = ewma(1.0, hopU(a[0], b[0]), 5000);
    const double s1 = ewma(1.0, hopU(a[1], b[1]), 2500);
    EXPECT_NEAR(s0, 0.9, 1e-12);
    EXPECT_NEAR(s1, 1.025, 1e-12);
    EXPECT_NEAR(r.cc.hopStates()[0].u, s0, 1e-12);
    EXPECT_NEAR(r.cc.hopStates()[1].u, s1, 1e-12);
    const double r0 = clampRate(kLine / (s0 / kEta) + kWai);
    const double r1 = clampRate(kLine / (s1 / kEta) + kWai);
    EXPECT_EQ(r0, kLine);
    EXPECT_NEAR(r.rate(), std::min(r0, r1), kRateTol);
    EXPECT_NEAR(r.cc.hopStates()[0].refRateBps, r0, 1e-6);
    EXPECT_NEAR(r.cc.hopStates()[1].refRateBps, r1, 1e-6);
    // Fast react: hop 0 congests, hop 1 idles; the minimum now comes from hop 0, and nothing is committed.
    const std::vector<IntHop> c = {hop(15'000, 50'000 + 162'500, 0), hop(12'500, 34'375 + 62'500, 0)};
    r.ack(c, false);
    const double s0b = ewma(s0, hopU(b[0], c[0]), 10'000);
    const double s1b = ewma(s1, hopU(b[1], c[1]), 10'000);
    EXPECT_NEAR(s0b, 1.3, 1e-12);
    EXPECT_NEAR(s1b, 0.5, 1e-12);
    const double r0b = clampRate(r0 / (s0b / kEta) + kWai);
    const double r1b = clampRate(r1 / (s1b / kEta) + kWai);
    EXPECT_LT(r0b, r1b);
    EXPECT_NEAR(r.rate(), r0b, kRateTol);
    EXPECT_NEAR(r.cc.hopStates()[0].refRateBps, r0, 1e-6);
    EXPECT_NEAR(r.cc.hopStates()[1].refRateBps, r1, 1e-6);
}

TEST(Hpcc, PerHopRatesHopWithoutSampleBoundsByItsReference) {
    HpccParams p = hpccTestParams();
    p.multiRate = true;
    p.maxStage = 0;
    p.sampleFeedback = true;
    HpccRun r(p);
    const std::vector<IntHop> a = {hop(0, 0, 50'000), hop(0, 0, 0)};
    r.first(a);
    // Commit: hop 0 congested (u = 1 + 0.4 with a 50 000 B queue in both records), hop 1 idle-ish.
    const std::vector<IntHop> b = {hop(20'000, 250'000, 50'000), hop(20'000, 125'000, 0)};
    r.ack(b, true);
    const double r0 = clampRate(kLine / (1.4 / kEta) + kWai);
    EXPECT_NEAR(r.cc.hopStates()[0].u, 1.4, 1e-12);
    EXPECT_NEAR(r.rate(), r0, kRateTol);
    // Fast react with hop 0 reporting no queue: only hop 1 is sampled, hop 0 still caps the rate at its Rc.
    const std::vector<IntHop> c = {hop(40'000, 500'000, 0), hop(40'000, 125'000 + 25'000, 10'000)};
    r.ack(c, false);
    const double s1 = ewma(0.5, hopU(b[1], c[1]), 20'000);
    EXPECT_NEAR(r.cc.hopStates()[1].u, s1, 1e-12);
    EXPECT_NEAR(r.cc.hopStates()[0].u, 1.4, 1e-12);
    const double r1 = clampRate(kLine / (s1 / kEta) + kWai);
    ASSERT_GT(r1, r0);
    EXPECT_NEAR(r.rate(), r0, kRateTol);
}

}  // namespace
}  // namespace mlnet::cc
