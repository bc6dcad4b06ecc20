// TIMELY driven by scripted ACK sequences. Every expected value is derived here from the published update
// rules (the TIMELY paper and the HPCC reference simulator's RdmaHw::UpdateRateTimely), written out step by
// step rather than taken from the implementation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "cc-timely-hpcc-test-util.h"
#include "timely.h"

namespace mlnet::cc {
namespace {

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

}  // namespace
}  // namespace mlnet::cc
