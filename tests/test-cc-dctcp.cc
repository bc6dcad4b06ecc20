// DCTCP, window- and rate-based (CC_MODE 8), fed scripted ACKs. Every expected value is derived here from the
// algorithm's formulas (the DCTCP paper; the HPCC reference simulator's rate-based variant), never read back
// from the implementation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "cc-dcqcn-dctcp-test-util.h"
#include "dctcp.h"

namespace mlnet::cc {
namespace {

// ---------------------------------------------------------------------------------------------------------
// DCTCP, window mode
// ---------------------------------------------------------------------------------------------------------

AckSignal ackOf(uint64_t ackSeq, uint64_t newlyAcked, uint64_t sndNxt, bool ecn) {
    AckSignal a;
    a.ackSeq = ackSeq;
    a.newlyAcked = newlyAcked;
    a.sndNxt = sndNxt;
    a.ecnEcho = ecn;
    return a;
}

// ACK i acknowledges packet i (1000 B); the sender is always a 10-packet window ahead at window boundaries,
// so every α window is exactly 10 ACKs: ACKs 1..10, 11..20, ...
AckSignal windowAck(uint64_t i, bool ecn) {
    return ackOf(1000 * i, 1000, 10'000 * (i / 10 + 1), ecn);
}

TEST(DctcpWindow, StartsAtBdpWindowAndLineRate) {
    Dctcp bdp(flowOf(52'000), dctcpWindow());
    EXPECT_STREQ(bdp.name(), "dctcp");
    EXPECT_EQ(bdp.windowBytes(), 52'000u);
    EXPECT_EQ(bdp.rateBps(), kLine);
    EXPECT_EQ(bdp.nextTimerNs(), kNever);
    Dctcp unknown(flowOf(0), dctcpWindow());
    EXPECT_EQ(unknown.windowBytes(), 10'000u);  // 10 MTU
    DctcpParams p = dctcpWindow();
    p.initialWindowBytes = 30'000;
    EXPECT_EQ(Dctcp(flowOf(52'000), p).windowBytes(), 30'000u);
}

TEST(DctcpWindow, AlphaAfterThreeWindowsWithHalfMarked) {
    const double g = 1.0 / 16;
    Dctcp d(flowOf(10'000), dctcpWindow());
    double alpha = 1;
    for (uint64_t i = 1; i <= 30; ++i) {
        d.onAck(windowAck(i, i % 2 == 1));
        if (i % 10 == 0) {
            alpha = (1 - g) * alpha + g * 0.5;
        }
        EXPECT_DOUBLE_EQ(d.alpha(), alpha) << "after ACK " << i;
    }
    const double threeWindows = std::pow(1 - g, 3) + g * 0.5 * (1 + (1 - g) + (1 - g) * (1 - g));
    EXPECT_DOUBLE_EQ(d.alpha(), threeWindows);
}

TEST(DctcpWindow, CutsOncePerWindow) {
    const double g = 1.0 / 16;
    Dctcp d(flowOf(10'000), dctcpWindow());
    d.onAck(windowAck(1, true));
    EXPECT_DOUBLE_EQ(d.cwndBytes(), 10'000 * (1 - 1.0 / 2));  // α = 1 before any measurement
    EXPECT_TRUE(d.inCwr());
    d.onAck(windowAck(2, true));
    d.onAck(windowAck(3, true));
    EXPECT_DOUBLE_EQ(d.cwndBytes(), 5'000);
    for (uint64_t i = 4; i <= 10; ++i) {
        d.onAck(windowAck(i, false));  // in CWR: no growth either
    }
    EXPECT_DOUBLE_EQ(d.cwndBytes(), 5'000);
    EXPECT_TRUE(d.inCwr());  // ACK 10 reaches, but does not pass, snd_nxt at the cut
    const double alpha = (1 - g) + g * 0.3;
    EXPECT_DOUBLE_EQ(d.alpha(), alpha);
    d.onAck(windowAck(11, true));
    EXPECT_DOUBLE_EQ(d.cwndBytes(), 5'000 * (1 - alpha / 2));
    EXPECT_EQ(d.windowBytes(), static_cast<uint64_t>(5'000 * (1 - alpha / 2)));
    EXPECT_EQ(d.rateBps(), kLine);
}

TEST(DctcpWindow, AdditiveIncreaseOfOneMtuPerWindow) {
    Dctcp d(flowOf(10'000), dctcpWindow());
    double cwnd = 10'000;
    for (uint64_t i = 1; i <= 10; ++i) {
        // Window-limited: a full window was in flight when the ACK arrived.
        const uint64_t unaBefore = 1000 * (i - 1);
        d.onAck(ackOf(1000 * i, 1000, unaBefore + static_cast<uint64_t>(std::ceil(cwnd)), false));
        cwnd += 1000.0 * 1000 / cwnd;
        EXPECT_DOUBLE_EQ(d.cwndBytes(), cwnd) << "after ACK " << i;
    }
    EXPECT_GT(cwnd, 10'900);  // about one MTU over the window
    EXPECT_LT(cwnd, 11'000);
    EXPECT_EQ(d.windowBytes(), static_cast<uint64_t>(cwnd));
    EXPECT_DOUBLE_EQ(d.alpha(), 1 - 1.0 / 16);  // one unmarked window
}

TEST(DctcpWindow, NoGrowthWhileNotWindowLimited) {
    Dctcp d(flowOf(10'000), dctcpWindow());
    for (uint64_t i = 1; i <= 50; ++i) {
        d.onAck(ackOf(1000 * i, 1000, 1000 * (i - 1) + 5'000, false));  // half a window in flight
    }
    EXPECT_EQ(d.cwndBytes(), 10'000);
}

TEST(DctcpWindow, CutsStopAtOneMtu) {
    DctcpParams p = dctcpWindow();
    p.initialWindowBytes = 4'000;
    Dctcp d(flowOf(10'000), p);
    d.onAck(ackOf(1'000, 1'000, 4'000, true));  // α = 1: 4000 -> 2000, CWR until ACK > 4000
    EXPECT_DOUBLE_EQ(d.cwndBytes(), 2'000);
    d.onAck(ackOf(5'000, 4'000, 6'000, true));  // window closes all marked: α stays 1; 2000 -> 1000
    EXPECT_DOUBLE_EQ(d.alpha(), 1.0);
    EXPECT_DOUBLE_EQ(d.cwndBytes(), 1'000);
    d.onAck(ackOf(7'000, 2'000, 8'000, true));  // 500 is floored at one MTU
    EXPECT_DOUBLE_EQ(d.cwndBytes(), 1'000);
    EXPECT_EQ(d.windowBytes(), 1'000u);
}

TEST(DctcpWindow, IgnoresCnps) {
    Dctcp d(flowOf(10'000), dctcpWindow());
    d.onCnp(0);
    d.onTimer(1'000 * kUs);
    EXPECT_EQ(d.windowBytes(), 10'000u);
    EXPECT_EQ(d.alpha(), 1.0);
}

// ---------------------------------------------------------------------------------------------------------
// DCTCP, rate-based (reference CC_MODE 8)
// ---------------------------------------------------------------------------------------------------------

DctcpParams rateParams() {
    DctcpParams p;
    p.rateBased = true;
    p.g = 1.0 / 16;
    p.initialAlpha = 1.0;
    p.rateAiBps = 1'000'000'000;
    p.minRateBps = 1'000'000'000;
    return p;
}

// ACK i acknowledges packet i and the sender keeps 9 packets beyond it: snd_nxt = 1000·(i + 9).
AckSignal rateAck(uint64_t i, bool ecn) {
    return ackOf(1000 * i, 1000, 1000 * (i + 9), ecn);
}

TEST(DctcpRate, ScriptedBatchesCutsAndIncreases) {
    const double g = 1.0 / 16;
    Dctcp d(flowOf(), rateParams());
    EXPECT_EQ(d.windowBytes(), 0u);
    // ACK 1 opens the first batch: 10000/1000 + 1 = 11 packets ending at 10000. No α update; the increase is
    // capped.
    d.onAck(rateAck(1, false));
    EXPECT_EQ(d.alpha(), 1.0);
    EXPECT_EQ(d.currentRateBps(), kL);
    // ACK 2 is marked: cut with α = 1, CWR until an ACK passes snd_nxt = 11000.
    d.onAck(rateAck(2, true));
    EXPECT_EQ(d.currentRateBps(), kL / 2);
    EXPECT_TRUE(d.inCwr());
    d.onAck(rateAck(3, true));  // marked, but in CWR
    EXPECT_EQ(d.currentRateBps(), kL / 2);
    for (uint64_t i = 4; i <= 10; ++i) {
        d.onAck(rateAck(i, false));
    }
    EXPECT_EQ(d.alpha(), 1.0);  // ACK 10 reaches but does not pass the batch end
    // ACK 11 passes 10000: α over 2 marks of 11 packets; the next batch is (20000 − 11000)/1000 + 1 = 10
    // packets. It does not pass 11000, so CWR holds and there is no increase.
    d.onAck(rateAck(11, false));
    double alpha = (1 - g) * 1 + g * (2.0 / 11);
    EXPECT_DOUBLE_EQ(d.alpha(), alpha);
    EXPECT_TRUE(d.inCwr());
    EXPECT_EQ(d.currentRateBps(), kL / 2);
    d.onAck(rateAck(12, false));  // leaves CWR; not a new batch, so no increase
    EXPECT_FALSE(d.inCwr());
    EXPECT_EQ(d.currentRateBps(), kL / 2);
    for (uint64_t i = 13; i <= 20; ++i) {
        d.onAck(rateAck(i, false));
    }
    EXPECT_EQ(d.currentRateBps(), kL / 2);
    // ACK 21 passes 20000: an unmarked batch and one additive increase.
    d.onAck(rateAck(21, false));
    alpha = (1 - g) * alpha;
    EXPECT_DOUBLE_EQ(d.alpha(), alpha);
    EXPECT_EQ(d.currentRateBps(), kL / 2 + 1e9);
    // ACK 22 is marked outside CWR: cut with the new α.
    d.onAck(rateAck(22, true));
    EXPECT_DOUBLE_EQ(d.currentRateBps(), (kL / 2 + 1e9) * (1 - alpha / 2));
    EXPECT_EQ(d.rateBps(), static_cast<uint64_t>(std::llround((kL / 2 + 1e9) * (1 - alpha / 2))));
}

TEST(DctcpRate, LaterBatchesCountTheOutstandingPackets) {
    const double g = 1.0 / 16;
    Dctcp d(flowOf(), rateParams());
    d.onAck(rateAck(1, false));
    d.onAck(rateAck(2, true));
    for (uint64_t i = 3; i <= 11; ++i) {
        d.onAck(rateAck(i, false));
    }
    // ACK 11 opened a batch of (20000 − 11000)/1000 + 1 = 10 packets (not 20000/1000 + 1).
    const double alpha = (1 - g) + g * (1.0 / 11);
    EXPECT_DOUBLE_EQ(d.alpha(), alpha);
    d.onAck(rateAck(12, true));  // leaves CWR and cuts: CWR until 21000
    d.onAck(rateAck(13, true));
    d.onAck(rateAck(14, true));
    for (uint64_t i = 15; i <= 21; ++i) {
        d.onAck(rateAck(i, false));
    }
    EXPECT_DOUBLE_EQ(d.alpha(), (1 - g) * alpha + g * (3.0 / 10));
}

TEST(DctcpRate, MarkFractionIsCappedAtOne) {
    // A batch estimate of 2 packets with 3 marks (ACKs of data that was in flight before the batch opened).
    const double g = 1.0 / 16;
    Dctcp d(flowOf(), rateParams());
    d.onAck(ackOf(1'000, 1'000, 1'000, true));  // batch of 1000/1000 + 1 = 2 packets; cut to L/2
    d.onAck(ackOf(1'000, 0, 1'000, true));
    d.onAck(ackOf(2'000, 1'000, 3'000, true));  // passes 1000: 3 marks / 2 packets -> F = 1
    EXPECT_DOUBLE_EQ(d.alpha(), (1 - g) * 1 + g * 1);
}

TEST(DctcpRate, CutsStopAtMinRate) {
    DctcpParams p = rateParams();
    p.minRateBps = 40'000'000'000ull;
    Dctcp d(flowOf(), p);
    d.onAck(rateAck(1, false));
    d.onAck(rateAck(2, true));  // L/2, CWR until 11000
    EXPECT_EQ(d.currentRateBps(), kL / 2);
    d.onAck(ackOf(12'000, 10'000, 21'000, true));  // new batch (α ≈ 0.95), leaves CWR, cut below 40G
    EXPECT_EQ(d.currentRateBps(), 40e9);
    EXPECT_EQ(d.rateBps(), 40'000'000'000ull);
}

TEST(DctcpRate, HpccPresetWindowFollowsRate) {
    Dctcp d(flowOf(52'000), dctcpHpccPaper());
    EXPECT_EQ(d.windowBytes(), 52'000u);
    d.onAck(rateAck(1, false));
    d.onAck(rateAck(2, true));
    EXPECT_EQ(d.currentRateBps(), kL / 2);
    EXPECT_EQ(d.windowBytes(), 26'000u);
}

TEST(Dctcp, RejectsBrokenParameters) {
    DctcpParams p = dctcpWindow();
    p.g = 0;
    EXPECT_THROW((void)Dctcp(flowOf(), p), std::invalid_argument);
    p = dctcpWindow();
    p.initialAlpha = 2;
    EXPECT_THROW((void)Dctcp(flowOf(), p), std::invalid_argument);
    EXPECT_THROW((void)Dctcp(flowOf(0, 0), dctcpWindow()), std::invalid_argument);
}

}  // namespace
}  // namespace mlnet::cc
