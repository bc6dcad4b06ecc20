// TIMELY and HPCC driven by scripted ACK sequences. Every expected value is derived here from the published
// update rules (roce-model.md §5.2, §5.4), written out step by step rather than taken from the
// implementation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "hpcc.h"
#include "timely.h"

namespace mlnet::cc {
namespace {

constexpr uint64_t kLineBps = 100'000'000'000ull;
constexpr TimeNs kBaseRttNs = 10'000;
constexpr uint64_t kBdpBytes = 125'000;  // 100 Gb/s x 10 us
constexpr double kLine = static_cast<double>(kLineBps);
// Rates are kept unrounded inside and rounded to whole bit/s on output.
constexpr double kRateTol = 1.0;

FlowParams testFlow() {
    FlowParams f;
    f.lineRateBps = kLineBps;
    f.baseRttNs = kBaseRttNs;
    f.bdpBytes = kBdpBytes;
    f.mtuBytes = 1000;
    return f;
}

// -----------------------------------------------------------------------------------------------------------
// TIMELY
// -----------------------------------------------------------------------------------------------------------

constexpr double kAlpha = 0.875;
constexpr double kBeta = 0.8;
constexpr double kTLow = 50'000;
constexpr double kTHigh = 500'000;
constexpr double kMinRtt = 20'000;
constexpr double kAi = 100e6;
constexpr double kHai = 500e6;
constexpr double kTimelyMin = 1e9;

TimelyParams timelyTestParams() {
    TimelyParams p;
    p.tLowNs = 50'000;
    p.tHighNs = 500'000;
    p.minRttNs = 20'000;
    p.alpha = kAlpha;
    p.beta = kBeta;
    p.rateAiBps = 100'000'000;
    p.rateHaiBps = 500'000'000;
    p.haiThreshold = 5;
    p.minRateBps = 1'000'000'000;
    p.window = WindowMode::None;
    return p;
}

AckSignal rttAck(uint64_t ackSeq, uint64_t sndNxt, TimeNs rttNs) {
    AckSignal a;
    a.ackSeq = ackSeq;
    a.sndNxt = sndNxt;
    a.rttNs = rttNs;
    return a;
}

// Feeds ACKs that each cross the once-per-RTT gate: ackSeq = previous sndNxt + 1, sndNxt grows by 10 KB.
struct TimelyRun {
    explicit TimelyRun(const TimelyParams& p = timelyTestParams()) : cc(testFlow(), p) {}
    void ack(TimeNs rttNs) {
        const uint64_t ackSeq = sndNxt + 1;
        sndNxt += 10'000;
        cc.onAck(rttAck(ackSeq, sndNxt, rttNs));
    }
    Timely cc;
    uint64_t sndNxt = 10'000;
};

TEST(Timely, FirstSampleOnlyInitialises) {
    Timely cc(testFlow(), timelyTestParams());
    EXPECT_STREQ(cc.name(), "timely");
    EXPECT_EQ(cc.rateBps(), kLineBps);
    EXPECT_EQ(cc.windowBytes(), 0u);
    cc.onAck(rttAck(1000, 10'000, 1'000'000));  // far above T_high, yet no cut: it only sets rtt_prev
    EXPECT_EQ(cc.rateBps(), kLineBps);
    EXPECT_EQ(cc.lastUpdateSeq(), 10'000u);
    EXPECT_EQ(cc.rttDiffNs(), 0.0);
    EXPECT_EQ(cc.increaseCount(), 0u);
}

TEST(Timely, AcksWithoutRttSampleAreIgnored) {
    Timely cc(testFlow(), timelyTestParams());
    cc.onAck(rttAck(1000, 10'000, 0));
    EXPECT_EQ(cc.lastUpdateSeq(), 0u);  // not even the first-sample initialisation happened
    cc.onAck(rttAck(2000, 20'000, 100'000));
    EXPECT_EQ(cc.lastUpdateSeq(), 20'000u);
    cc.onAck(rttAck(30'000, 40'000, 0));  // crosses the gate but carries no sample
    EXPECT_EQ(cc.lastUpdateSeq(), 20'000u);
    EXPECT_EQ(cc.rateBps(), kLineBps);
}

TEST(Timely, HighRttMultiplicativeDecrease) {
    TimelyRun r;
    r.ack(100'000);
    const double rtt = 1'000'000;
    r.ack(static_cast<TimeNs>(rtt));
    const double expected = kLine * (1 - kBeta * (1 - kTHigh / rtt));  // 0.6 x line
    EXPECT_NEAR(static_cast<double>(r.cc.rateBps()), expected, kRateTol);
    EXPECT_NEAR(static_cast<double>(r.cc.rateBps()), 60e9, kRateTol);
    EXPECT_EQ(r.cc.increaseCount(), 0u);
    // The EWMA of differences is maintained in this region too.
    EXPECT_NEAR(r.cc.rttDiffNs(), kAlpha * (rtt - 100'000), 1e-9);
}

TEST(Timely, LowRttAdditiveIncreaseWhateverTheGradient) {
    TimelyRun r;
    r.ack(100'000);
    r.ack(1'000'000);
    const double afterCut = kLine * (1 - kBeta * (1 - kTHigh / 1'000'000));
    // 30 us < T_low: additive increase even though this sample's difference is hugely negative or positive.
    r.ack(30'000);
    EXPECT_NEAR(static_cast<double>(r.cc.rateBps()), afterCut + kAi, kRateTol);
    r.ack(45'000);  // rising, gradient > 0, still below T_low
    EXPECT_NEAR(static_cast<double>(r.cc.rateBps()), afterCut + 2 * kAi, kRateTol);
    EXPECT_EQ(r.cc.increaseCount(), 2u);
}

TEST(Timely, GradientRegionBothSigns) {
    TimelyRun r;
    r.ack(100'000);
    // Rising RTT: diff = α·20 us, g = diff/minRTT, R = line·(1 − β·g).
    r.ack(120'000);
    const double diff1 = (1 - kAlpha) * 0 + kAlpha * (120'000 - 100'000);
    const double rate1 = kLine * std::max(0.0, 1 - kBeta * diff1 / kMinRtt);
    EXPECT_NEAR(r.cc.rttDiffNs(), diff1, 1e-9);
    EXPECT_NEAR(static_cast<double>(r.cc.rateBps()), rate1, kRateTol);
    EXPECT_NEAR(static_cast<double>(r.cc.rateBps()), 30e9, kRateTol);  // 1 − 0.8·0.875 = 0.3

    // Slightly falling RTT, but the EWMA still remembers the rise: diff > 0, so the rate is cut again.
    r.ack(119'000);
    const double diff2 = (1 - kAlpha) * diff1 + kAlpha * (119'000.0 - 120'000.0);
    ASSERT_GT(diff2, 0);
    const double rate2 = rate1 * (1 - kBeta * diff2 / kMinRtt);
    EXPECT_NEAR(r.cc.rttDiffNs(), diff2, 1e-9);
    EXPECT_NEAR(static_cast<double>(r.cc.rateBps()), rate2, kRateTol);

    // Clearly falling: diff < 0, additive increase.
    r.ack(100'000);
    const double diff3 = (1 - kAlpha) * diff2 + kAlpha * (100'000.0 - 119'000.0);
    ASSERT_LT(diff3, 0);
    EXPECT_NEAR(r.cc.rttDiffNs(), diff3, 1e-9);
    EXPECT_NEAR(static_cast<double>(r.cc.rateBps()), rate2 + kAi, kRateTol);
    EXPECT_EQ(r.cc.increaseCount(), 1u);
}

TEST(Timely, ZeroGradientCountsAsIncrease) {
    TimelyRun r;
    r.ack(200'000);
    r.ack(400'000);  // cut first so that an increase is visible
    const double diff1 = kAlpha * 200'000;
    const double rate1 = std::max(kTimelyMin, kLine * std::max(0.0, 1 - kBeta * diff1 / kMinRtt));
    EXPECT_NEAR(static_cast<double>(r.cc.rateBps()), rate1, kRateTol);
    // Choose the next RTT so that the new EWMA is exactly zero: (1 − α)·diff1 + α·(rtt − 400 us) = 0.
    const double rtt = 400'000 - (1 - kAlpha) * diff1 / kAlpha;  // 375 us, an integer
    r.ack(static_cast<TimeNs>(rtt));
    EXPECT_EQ(r.cc.rttDiffNs(), 0.0);
    EXPECT_NEAR(static_cast<double>(r.cc.rateBps()), rate1 + kAi, kRateTol);
}

TEST(Timely, GradientCutIsFlooredAtMinRate) {
    TimelyRun r;
    r.ack(100'000);
    r.ack(130'000);  // g = 0.875·30/20 = 1.3125, 1 − β·g < 0 → factor 0 → floor
    ASSERT_LT(1 - kBeta * kAlpha * 30'000 / kMinRtt, 0);
    EXPECT_NEAR(static_cast<double>(r.cc.rateBps()), kTimelyMin, kRateTol);
}

TEST(Timely, HighRttCutsAreFlooredAtMinRate) {
    TimelyRun r;
    r.ack(100'000);
    double expected = kLine;
    const double rtt = 5'000'000;
    const double factor = 1 - kBeta * (1 - kTHigh / rtt);
    bool floored = false;
    for (int i = 0; i < 8; ++i) {
        r.ack(static_cast<TimeNs>(rtt));
        floored = floored || expected * factor < kTimelyMin;
        expected = std::max(kTimelyMin, expected * factor);
        EXPECT_NEAR(static_cast<double>(r.cc.rateBps()), expected, kRateTol) << "cut " << i;
    }
    EXPECT_TRUE(floored);
    EXPECT_NEAR(static_cast<double>(r.cc.rateBps()), kTimelyMin, kRateTol);
}

TEST(Timely, HyperIncreaseAfterNConsecutiveIncreases) {
    TimelyRun r;
    r.ack(100'000);
    r.ack(1'000'000);
    double expected = kLine * (1 - kBeta * (1 - kTHigh / 1'000'000));
    for (int i = 0; i < 8; ++i) {
        r.ack(20'000);
        expected += i < 5 ? kAi : kHai;  // increases 1..5 use δ, the 6th and later the HAI step
        EXPECT_NEAR(static_cast<double>(r.cc.rateBps()), expected, kRateTol) << "increase " << i + 1;
        EXPECT_EQ(r.cc.increaseCount(), static_cast<uint32_t>(i + 1));
    }
    // A decrease resets the count: the next increase is additive again.
    r.ack(1'000'000);
    expected *= 1 - kBeta * (1 - kTHigh / 1'000'000);
    EXPECT_NEAR(static_cast<double>(r.cc.rateBps()), expected, kRateTol);
    EXPECT_EQ(r.cc.increaseCount(), 0u);
    r.ack(20'000);
    EXPECT_NEAR(static_cast<double>(r.cc.rateBps()), expected + kAi, kRateTol);
}

TEST(Timely, HaiThresholdIsConfigurable) {
    TimelyParams p = timelyTestParams();
    p.haiThreshold = 2;
    TimelyRun r(p);
    r.ack(100'000);
    r.ack(1'000'000);
    const double cut = kLine * (1 - kBeta * (1 - kTHigh / 1'000'000));
    r.ack(20'000);
    r.ack(20'000);
    r.ack(20'000);
    EXPECT_NEAR(static_cast<double>(r.cc.rateBps()), cut + 2 * kAi + kHai, kRateTol);
}

TEST(Timely, IncreaseIsCappedAtLineRate) {
    TimelyRun r;
    r.ack(20'000);
    r.ack(20'000);
    EXPECT_EQ(r.cc.rateBps(), kLineBps);
    // Just below line rate, one step would overshoot.
    r.ack(500'100);  // rtt > T_high: cut by 1 − 0.8·(1 − 500/500.1)
    const double cut = kLine * (1 - kBeta * (1 - kTHigh / 500'100));
    ASSERT_GT(cut + kAi, kLine);
    EXPECT_NEAR(static_cast<double>(r.cc.rateBps()), cut, kRateTol);
    r.ack(20'000);
    EXPECT_EQ(r.cc.rateBps(), kLineBps);
}

TEST(Timely, UpdatesOncePerRtt) {
    Timely cc(testFlow(), timelyTestParams());
    cc.onAck(rttAck(1000, 10'000, 100'000));
    // ACKs up to lastUpdateSeq = 10 000, with RTTs that would cut hard, change nothing.
    for (uint64_t seq = 2000; seq <= 10'000; seq += 2000) {
        cc.onAck(rttAck(seq, 30'000, 2'000'000));
        EXPECT_EQ(cc.rateBps(), kLineBps) << seq;
        EXPECT_EQ(cc.lastUpdateSeq(), 10'000u);
        EXPECT_EQ(cc.rttDiffNs(), 0.0);
    }
    // The first ACK beyond it updates, against the RTT of the previous update (100 us), not of the skipped
    // ACKs.
    cc.onAck(rttAck(10'001, 30'000, 120'000));
    const double diff = kAlpha * 20'000;
    EXPECT_NEAR(cc.rttDiffNs(), diff, 1e-9);
    const double rate = kLine * (1 - kBeta * diff / kMinRtt);
    EXPECT_NEAR(static_cast<double>(cc.rateBps()), rate, kRateTol);
    EXPECT_EQ(cc.lastUpdateSeq(), 30'000u);
    // Again gated until ackSeq passes 30 000.
    cc.onAck(rttAck(30'000, 40'000, 2'000'000));
    EXPECT_NEAR(static_cast<double>(cc.rateBps()), rate, kRateTol);
    cc.onAck(rttAck(30'001, 40'000, 120'000));
    const double diff2 = (1 - kAlpha) * diff;  // new difference 0
    EXPECT_NEAR(cc.rttDiffNs(), diff2, 1e-9);
    EXPECT_NEAR(static_cast<double>(cc.rateBps()), rate * (1 - kBeta * diff2 / kMinRtt), kRateTol);
}

TEST(Timely, OptionalWindowFollowsRate) {
    TimelyParams p = timelyTestParams();
    p.window = WindowMode::FollowsRate;
    TimelyRun r(p);
    EXPECT_EQ(r.cc.windowBytes(), kBdpBytes);
    r.ack(100'000);
    r.ack(1'000'000);
    const double rate = kLine * (1 - kBeta * (1 - kTHigh / 1'000'000));
    EXPECT_NEAR(static_cast<double>(r.cc.windowBytes()), kBdpBytes * rate / kLine, 1.0);
    EXPECT_EQ(r.cc.windowBytes(), 75'000u);
}

TEST(Timely, Presets) {
    const TimelyParams hp = timelyHpccPaper(kLineBps);  // config-timely.txt at 100 Gb/s
    EXPECT_EQ(hp.rateAiBps, 100'000'000u);
    EXPECT_EQ(hp.rateHaiBps, 500'000'000u);
    EXPECT_EQ(hp.minRateBps, 1'000'000'000u);
    EXPECT_EQ(hp.haiThreshold, 5u);
    EXPECT_EQ(hp.tLowNs, 50'000u);
    EXPECT_EQ(hp.tHighNs, 500'000u);
    EXPECT_EQ(hp.minRttNs, 20'000u);
    EXPECT_DOUBLE_EQ(hp.alpha, 0.875);
    EXPECT_DOUBLE_EQ(hp.beta, 0.8);
    EXPECT_EQ(hp.window, WindowMode::None);
    EXPECT_EQ(timelyHpccPaper(25'000'000'000ull).rateAiBps, 25'000'000u);
    EXPECT_EQ(timelyHpccPaper(25'000'000'000ull).rateHaiBps, 125'000'000u);

    const TimelyParams paper = timelyPaper();
    EXPECT_EQ(paper.rateAiBps, 10'000'000u);
    EXPECT_EQ(paper.rateHaiBps, 5 * paper.rateAiBps);
    EXPECT_EQ(paper.haiThreshold, 5u);
    EXPECT_EQ(paper.tLowNs, 50'000u);
    EXPECT_EQ(paper.tHighNs, 500'000u);
    EXPECT_DOUBLE_EQ(paper.beta, 0.8);
}

TEST(Timely, RejectsInvalidParameters) {
    TimelyParams p = timelyTestParams();
    p.tLowNs = 600'000;
    EXPECT_THROW(Timely(testFlow(), p), std::invalid_argument);
    p = timelyTestParams();
    p.minRttNs = 0;
    EXPECT_THROW(Timely(testFlow(), p), std::invalid_argument);
    p = timelyTestParams();
    p.alpha = 1.5;
    EXPECT_THROW(Timely(testFlow(), p), std::invalid_argument);
    FlowParams f = testFlow();
    f.lineRateBps = 0;
    EXPECT_THROW(Timely(f, timelyTestParams()), std::invalid_argument);
}

// -----------------------------------------------------------------------------------------------------------
// HPCC
// -----------------------------------------------------------------------------------------------------------

constexpr double kEta = 0.95;
constexpr double kWai = 40e6;
constexpr double kHpccMin = 1e9;
constexpr double kTs = kBaseRttNs * 1e-9;  // T in seconds

HpccParams hpccTestParams() {
    HpccParams p;
    p.targetUtil = kEta;
    p.maxStage = 2;
    p.rateAiBps = 40'000'000;
    p.fastReact = true;
    p.multiRate = false;
    p.sampleFeedback = false;
    p.minRateBps = 1'000'000'000;
    p.window = WindowMode::FollowsRate;
    p.meanQueue = false;  // these tests check the reference's queue term; MeanQueue* cover ours
    return p;
}

IntHop hop(uint64_t timeNs, uint64_t txBytes, uint64_t queueBytes, uint64_t rateBps = kLineBps) {
    return IntHop{timeNs, txBytes, queueBytes, rateBps};
}

// u_i of §5.2 written in SI units: transmit rate over the interval over B, plus the smaller queue over B·T.
double hopU(const IntHop& prev, const IntHop& now) {
    const double tauS = static_cast<double>(now.timeNs - prev.timeNs) * 1e-9;
    const double txRate = static_cast<double>(now.txBytes - prev.txBytes) * 8 / tauS;
    const double b = static_cast<double>(now.rateBps);
    return txRate / b + static_cast<double>(std::min(now.queueBytes, prev.queueBytes)) * 8 / (b * kTs);
}

double ewma(double u, double sample, double tauNs) {
    const double t = std::min(tauNs, static_cast<double>(kBaseRttNs));
    return (u * (kBaseRttNs - t) + sample * t) / kBaseRttNs;
}

double clampRate(double r) {
    return std::clamp(r, kHpccMin, kLine);
}

// Drives one flow; ACKs are fast-react unless `commit` is set, which moves ackSeq past lastUpdateSeq.
struct HpccRun {
    explicit HpccRun(const HpccParams& p = hpccTestParams()) : cc(testFlow(), p) {}
    void ack(const std::vector<IntHop>& hops, bool commit) {
        AckSignal a;
        a.ackSeq = commit ? gate + 1 : gate;
        if (commit) {
            gate = sndNxt;
        }
        a.sndNxt = sndNxt;
        sndNxt += 10'000;
        a.hops = hops.data();
        a.numHops = static_cast<uint32_t>(hops.size());
        cc.onAck(a);
    }
    void first(const std::vector<IntHop>& hops) {
        AckSignal a;
        a.ackSeq = 1000;
        a.sndNxt = sndNxt;
        a.hops = hops.data();
        a.numHops = static_cast<uint32_t>(hops.size());
        cc.onAck(a);
        gate = sndNxt;
        sndNxt += 10'000;
    }
    double rate() const { return static_cast<double>(cc.rateBps()); }
    Hpcc cc;
    uint64_t sndNxt = 50'000;
    uint64_t gate = 0;
};

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
