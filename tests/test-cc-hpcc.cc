// HPCC's update rules on one hop, driven by scripted ACKs; every expected value is derived here from the
// published rules (the HPCC paper's Algorithm 1), written out step by step rather than taken from the
// implementation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "cc-timely-hpcc-test-util.h"
#include "hpcc.h"

namespace mlnet::cc {
namespace {

TEST(Hpcc, FirstAckStoresRecordsOnly) {
    HpccRun r;
    EXPECT_STREQ(r.cc.name(), "hpcc");
    EXPECT_EQ(r.cc.rateBps(), kLineBps);
    EXPECT_EQ(r.cc.windowBytes(), kBdpBytes);
    r.first({hop(1000, 0, 500'000)});  // a huge queue, but there is nothing to compare with yet
    EXPECT_EQ(r.cc.rateBps(), kLineBps);
    EXPECT_EQ(r.cc.lastUpdateSeq(), 50'000u);
    EXPECT_EQ(r.cc.utilisation(), 1.0);
}

TEST(Hpcc, UtilisationFromTwoSnapshots) {
    HpccRun r;
    const IntHop h0 = hop(1000, 0, 20'000);
    const IntHop h1 = hop(2000, 12'000, 30'000);
    r.first({h0});
    r.ack({h1}, false);
    // txRate = 12 000 B·8 / 1 us = 96 Gb/s; queue term = min(30 000, 20 000)·8 / (100 Gb/s · 10 us) = 0.16.
    const double txRate = 12'000 * 8 / 1e-6;
    EXPECT_DOUBLE_EQ(txRate, 96e9);
    const double ui = txRate / kLine + 20'000.0 * 8 / (kLine * kTs);
    EXPECT_NEAR(ui, 1.12, 1e-12);
    EXPECT_NEAR(hopU(h0, h1), ui, 1e-12);
    // τ = 1 us < T: u = (1·(T − τ) + U·τ)/T.
    const double u = (1.0 * (10'000 - 1000) + ui * 1000) / 10'000;
    EXPECT_NEAR(r.cc.utilisation(), u, 1e-12);
    const double c = u / kEta;
    ASSERT_GE(c, 1);
    EXPECT_NEAR(r.rate(), clampRate(kLine / c + kWai), kRateTol);
    EXPECT_NEAR(static_cast<double>(r.cc.windowBytes()), kBdpBytes * (kLine / c + kWai) / kLine, 1.0);
}

TEST(Hpcc, EwmaWithLongIntervalTakesTheSampleWhole) {
    HpccRun r;
    const IntHop h0 = hop(0, 0, 0);
    const IntHop h1 = hop(25'000, 250'000, 0);  // τ = 25 us ≥ T; 80 Gb/s
    r.first({h0});
    r.ack({h1}, false);
    const double ui = 250'000 * 8 / 25e-6 / kLine;
    EXPECT_NEAR(ui, 0.8, 1e-12);
    EXPECT_NEAR(r.cc.utilisation(), ui, 1e-12);  // τ clamped to T: u = U
    // c = 0.8/0.95 < 1 but stage 0 < maxStage 2: additive from Rc = line, capped.
    EXPECT_EQ(r.cc.rateBps(), kLineBps);
    // Two short samples in a row: the EWMA carries the previous value.
    const IntHop h2 = hop(27'000, 250'000 + 25'000, 0);  // 100 Gb/s over 2 us
    r.ack({h2}, false);
    const double u2 = ewma(ui, hopU(h1, h2), 2000);
    EXPECT_NEAR(r.cc.utilisation(), u2, 1e-12);
    EXPECT_NEAR(u2, 0.8 * 0.8 + 1.0 * 0.2, 1e-12);
}

TEST(Hpcc, ReferenceRateCommittedOnlyPastLastUpdateSeq) {
    HpccRun r;
    const IntHop h0 = hop(0, 0, 100'000);
    const IntHop h1 = hop(20'000, 250'000, 100'000);            // u = 1.0 + 0.8 = 1.8
    const IntHop h2 = hop(40'000, 250'000 + 200'000, 100'000);  // u = 0.8 + 0.8 = 1.6
    r.first({h0});
    r.ack({h1}, false);
    const double c1 = hopU(h0, h1) / kEta;
    const double rate1 = clampRate(kLine / c1 + kWai);
    EXPECT_NEAR(r.rate(), rate1, kRateTol);
    EXPECT_EQ(r.cc.referenceRateBps(), kLine);
    EXPECT_EQ(r.cc.stage(), 0u);
    // A second fast-react ACK starts again from the uncommitted Rc = line, not from rate1.
    r.ack({h2}, false);
    const double c2 = hopU(h1, h2) / kEta;
    const double rate2 = clampRate(kLine / c2 + kWai);
    EXPECT_NEAR(r.rate(), rate2, kRateTol);
    EXPECT_GT(std::abs(rate2 - clampRate(rate1 / c2 + kWai)), 1e6);  // the two readings are distinguishable
    EXPECT_EQ(r.cc.referenceRateBps(), kLine);
    EXPECT_EQ(r.cc.lastUpdateSeq(), 50'000u);
    // The ACK past lastUpdateSeq commits its result and moves the gate to sndNxt.
    const IntHop h3 = hop(60'000, 450'000 + 200'000, 100'000);
    const uint64_t sndNxtAtCommit = r.sndNxt;
    r.ack({h3}, true);
    const double c3 = hopU(h2, h3) / kEta;
    const double rate3 = clampRate(kLine / c3 + kWai);
    EXPECT_NEAR(r.rate(), rate3, kRateTol);
    EXPECT_NEAR(r.cc.referenceRateBps(), rate3, 1e-6);
    EXPECT_EQ(r.cc.lastUpdateSeq(), sndNxtAtCommit);
    // The next fast-react ACK builds on the committed rate.
    const IntHop h4 = hop(80'000, 650'000 + 200'000, 100'000);
    r.ack({h4}, false);
    const double c4 = hopU(h3, h4) / kEta;
    EXPECT_NEAR(r.rate(), clampRate(rate3 / c4 + kWai), kRateTol);
}

// A fluid flow's HPCC handed to the packets that take over its bytes: a new connection, whose sequence
// numbers start at 0 and whose ACKs carry records of other counters. The rate and the committed reference
// rate go on; the first ACK of the new connection only takes the records and the gate, and the next one
// steps from the kept reference rate.
TEST(Hpcc, ANewConnectionKeepsTheRateAndTakesTheRecordsAgain) {
    HpccRun r;
    const IntHop h0 = hop(0, 0, 100'000);
    const IntHop h1 = hop(20'000, 250'000, 100'000);  // u = 1.0 + 0.8 = 1.8
    r.first({h0});
    r.ack({h1}, true);
    const double rc = r.cc.referenceRateBps();
    ASSERT_LT(rc, kLine);
    const uint64_t rate = r.cc.rateBps(), window = r.cc.windowBytes();
    const double u = r.cc.utilisation();
    r.cc.resumeOnNewConnection();
    EXPECT_EQ(r.cc.rateBps(), rate);
    EXPECT_EQ(r.cc.windowBytes(), window);
    // Counters far ahead of the old records (other ports' counts): taken, not compared.
    r.sndNxt = 2000;
    const IntHop n0 = hop(900'000, 90'000'000, 0);
    r.first({n0});
    EXPECT_EQ(r.cc.rateBps(), rate);
    EXPECT_EQ(r.cc.lastUpdateSeq(), 2000u);  // the new connection's gate, not the old 50 000
    EXPECT_EQ(r.cc.referenceRateBps(), rc);
    // Without the hand-over the old gate would hold every commit back until the new sequence passed it.
    const IntHop n1 = hop(910'000, 90'000'000 + 60'000, 0);  // 48 Gb/s, no queue
    r.ack({n1}, true);
    const double un = ewma(u, hopU(n0, n1), 10'000);
    EXPECT_NEAR(r.cc.utilisation(), un, 1e-12);
    ASSERT_LT(un / kEta, 1.0);  // and stage 0 of 2: an additive step, from the kept reference rate
    const double expected = clampRate(rc + kWai);
    EXPECT_NEAR(r.rate(), expected, kRateTol);
    EXPECT_NEAR(r.cc.referenceRateBps(), expected, 1e-6);
}

TEST(Hpcc, AdditiveStagesThenMultiplicative) {
    HpccRun r;  // maxStage 2
    // Every interval is 20 us ≥ T, so u equals the newest sample and the steps are easy to follow.
    uint64_t t = 0;
    uint64_t tx = 0;
    r.first({hop(t, tx, 125'000)});
    auto next = [&](double txFraction, uint64_t queueBytes) {
        t += 20'000;
        tx += static_cast<uint64_t>(txFraction * 250'000);  // 250 000 B in 20 us = line rate
        return hop(t, tx, queueBytes);
    };
    // Congested commit: u = 1.0 + 125 000·8/(B·T) = 2.0, c ≥ 1 → multiplicative, stage 0.
    r.ack({next(1.0, 125'000)}, true);
    double rc = clampRate(kLine / (2.0 / kEta) + kWai);
    EXPECT_NEAR(r.cc.utilisation(), 2.0, 1e-12);
    EXPECT_NEAR(r.rate(), rc, kRateTol);
    EXPECT_EQ(r.cc.stage(), 0u);
    // Under-utilised (u = 0.9, c < 1): additive twice, then multiplicative because stage reached maxStage.
    const double c = 0.9 / kEta;
    ASSERT_LT(c, 1);
    r.ack({next(0.9, 0)}, true);
    rc = clampRate(rc + kWai);
    EXPECT_NEAR(r.rate(), rc, kRateTol);
    EXPECT_EQ(r.cc.stage(), 1u);
    r.ack({next(0.9, 0)}, true);
    rc = clampRate(rc + kWai);
    EXPECT_NEAR(r.rate(), rc, kRateTol);
    EXPECT_EQ(r.cc.stage(), 2u);
    r.ack({next(0.9, 0)}, true);
    rc = clampRate(rc / c + kWai);
    EXPECT_NEAR(r.rate(), rc, kRateTol);
    EXPECT_LT(rc, kLine);  // not hidden by the cap
    EXPECT_EQ(r.cc.stage(), 0u);
    // A fast-react ACK does not advance the stage.
    r.ack({next(0.9, 0)}, false);
    EXPECT_NEAR(r.rate(), clampRate(rc + kWai), kRateTol);
    EXPECT_EQ(r.cc.stage(), 0u);
}

TEST(Hpcc, MeanQueueTermUsesTheQueueIntegralOverTheInterval) {
    // Two records 20 us apart; the queue integral grew by 2.5e9 byte*ns: a mean queue of 125,000 B over the
    // interval, whatever the point readings (0 and 1 MB here) say. u = 100 Gb/s / 100 Gb/s + 125,000 * 8 / (B
    // * T).
    HpccParams p = hpccTestParams();
    p.meanQueue = true;
    HpccRun r(p);
    IntHop a = hop(0, 0, 0);
    a.queueByteNs = 1'000'000'000;
    IntHop b = hop(20'000, 250'000, 1'000'000);
    b.queueByteNs = a.queueByteNs + 2'500'000'000ull;
    r.first({a});
    r.ack({b}, true);
    const double expectedU = 1.0 + 125'000.0 * 8 / (kLineBps * kTs);
    const double tau = std::min(20'000.0, static_cast<double>(kBaseRttNs)) / static_cast<double>(kBaseRttNs);
    const double u = 1.0 * (1 - tau) + expectedU * tau;
    EXPECT_NEAR(r.cc.utilisation(), u, 1e-9);
}

TEST(Hpcc, MeanQueueTreatsAShrinkingIntegralAsAPathChange) {
    HpccParams p = hpccTestParams();
    p.meanQueue = true;
    HpccRun r(p);
    IntHop a = hop(0, 0, 0);
    a.queueByteNs = 5'000;
    IntHop b = hop(20'000, 250'000, 0);
    b.queueByteNs = 4'000;
    r.first({a});
    const uint64_t before = r.cc.rateBps();
    r.ack({b}, true);
    EXPECT_EQ(r.cc.rateBps(), before);
    EXPECT_EQ(r.cc.utilisation(), 1.0);
}

TEST(Hpcc, PaperPresetIsAlwaysMultiplicative) {
    HpccParams p = hpccPaper(kLineBps);
    p.meanQueue = false;
    ASSERT_EQ(p.maxStage, 0u);
    HpccRun r(p);
    r.first({hop(0, 0, 125'000)});
    r.ack({hop(20'000, 250'000, 125'000)}, true);  // u = 2.0
    const double ai = 40e6;
    double rc = std::clamp(kLine / (2.0 / 0.95) + ai, 1e9, kLine);
    EXPECT_NEAR(r.rate(), rc, kRateTol);
    r.ack({hop(40'000, 250'000 + 125'000, 0)}, true);  // u = 0.5: c < 1, still Rc/c + W_AI
    rc = std::clamp(rc / (0.5 / 0.95) + ai, 1e9, kLine);
    EXPECT_NEAR(r.rate(), rc, kRateTol);
    EXPECT_NE(rc, kLine);
    EXPECT_EQ(r.cc.stage(), 0u);
}

TEST(Hpcc, AckWithoutIntIsIgnored) {
    HpccRun r;
    r.first({hop(0, 0, 0)});
    AckSignal a;
    a.ackSeq = 1'000'000;  // would commit
    a.sndNxt = 2'000'000;
    r.cc.onAck(a);
    EXPECT_EQ(r.cc.lastUpdateSeq(), 50'000u);
    EXPECT_EQ(r.cc.rateBps(), kLineBps);
}

TEST(Hpcc, WithoutFastReactOnlyCommitAcksCount) {
    HpccParams p = hpccTestParams();
    p.fastReact = false;
    HpccRun r(p);
    const IntHop h0 = hop(0, 0, 0);
    r.first({h0});
    r.ack({hop(2000, 50'000, 400'000)}, false);  // ignored entirely, including its record
    EXPECT_EQ(r.cc.rateBps(), kLineBps);
    EXPECT_EQ(r.cc.utilisation(), 1.0);
    const IntHop h2 = hop(20'000, 125'000, 0);
    r.ack({h2}, true);
    EXPECT_NEAR(r.cc.utilisation(), hopU(h0, h2), 1e-12);  // measured from h0 over 20 us
    EXPECT_NEAR(r.cc.utilisation(), 0.5, 1e-12);
}

TEST(Hpcc, RateClampedToMinAndLine) {
    HpccRun r;
    r.first({hop(0, 0, 20'000'000)});
    // u = 1 + 20 MB·8/(B·T) = 161: the cut would go below the minimum rate.
    r.ack({hop(20'000, 250'000, 20'000'000)}, true);
    EXPECT_NEAR(r.cc.utilisation(), 161.0, 1e-9);
    ASSERT_LT(kLine / (161.0 / kEta) + kWai, kHpccMin);
    EXPECT_NEAR(r.rate(), kHpccMin, kRateTol);
    EXPECT_NEAR(static_cast<double>(r.cc.windowBytes()), kBdpBytes * kHpccMin / kLine, 1.0);
    // Nearly idle: Rc/c would exceed the line rate.
    r.ack({hop(40'000, 250'000 + 2500, 0)}, true);
    EXPECT_NEAR(r.cc.utilisation(), 0.01, 1e-12);
    EXPECT_NEAR(r.rate(), clampRate(kHpccMin + kWai), kRateTol);  // stage 0 < 2: additive
    r.ack({hop(60'000, 252'500 + 2500, 0)}, true);
    r.ack({hop(80'000, 255'000 + 2500, 0)}, true);  // stage 2: Rc/c, about 103 Gb/s before the cap
    ASSERT_GT((kHpccMin + 2 * kWai) / (0.01 / kEta), kLine);
    EXPECT_EQ(r.cc.rateBps(), kLineBps);
    EXPECT_EQ(r.cc.windowBytes(), kBdpBytes);
}

TEST(Hpcc, WindowOffMeansNoWindow) {
    HpccParams p = hpccTestParams();
    p.window = WindowMode::None;
    HpccRun r(p);
    EXPECT_EQ(r.cc.windowBytes(), 0u);
    r.first({hop(0, 0, 0)});
    r.ack({hop(20'000, 250'000, 125'000)}, true);
    EXPECT_LT(r.cc.rateBps(), kLineBps);
    EXPECT_EQ(r.cc.windowBytes(), 0u);
}

TEST(Hpcc, Presets) {
    const HpccParams paper = hpccPaper(kLineBps);  // config-hp.txt
    EXPECT_DOUBLE_EQ(paper.targetUtil, 0.95);
    EXPECT_EQ(paper.maxStage, 0u);
    EXPECT_EQ(paper.rateAiBps, 40'000'000u);
    EXPECT_TRUE(paper.fastReact);
    EXPECT_FALSE(paper.multiRate);
    EXPECT_FALSE(paper.sampleFeedback);
    EXPECT_EQ(paper.minRateBps, 1'000'000'000u);
    EXPECT_EQ(paper.window, WindowMode::FollowsRate);
    EXPECT_EQ(hpccPaper(50'000'000'000ull).rateAiBps, 20'000'000u);  // run.py's default --bw 50

    const HpccParams def = hpccDefault();
    EXPECT_DOUBLE_EQ(def.targetUtil, 0.95);
    EXPECT_EQ(def.maxStage, 5u);
    EXPECT_EQ(def.rateAiBps, 5'000'000u);
    EXPECT_TRUE(def.fastReact);
    EXPECT_TRUE(def.multiRate);
    EXPECT_FALSE(def.sampleFeedback);
    EXPECT_EQ(def.minRateBps, 100'000'000u);
}

TEST(Hpcc, RejectsInvalidParameters) {
    FlowParams f = testFlow();
    f.baseRttNs = 0;
    EXPECT_THROW(Hpcc(f, hpccTestParams()), std::invalid_argument);
    HpccParams p = hpccTestParams();
    p.targetUtil = 0;
    EXPECT_THROW(Hpcc(testFlow(), p), std::invalid_argument);
}

}  // namespace
}  // namespace mlnet::cc
