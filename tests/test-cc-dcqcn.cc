// DCQCN fed scripted event sequences. Every expected value is derived here from the algorithm's formulas
// (the DCQCN paper; the HPCC reference simulator's Mellanox variant), never read back from the
// implementation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "cc-dcqcn-dctcp-test-util.h"
#include "dcqcn.h"

namespace mlnet::cc {
namespace {

// Rates are doubles around 1e11 bit/s, whose ulp is 1.5e-5; α is at most 1.
constexpr double kRateTol = 1e-3;
constexpr double kAlphaTol = 1e-13;

// Periods chosen so that α ticks (every 10 us) and cuts (every 50 us) coincide on the cut grid, while
// increase ticks (55 us after a cut) never coincide with either in the scripts below.
DcqcnParams testDcqcn() {
    DcqcnParams p;
    p.g = 1.0 / 256;
    p.alphaIntervalNs = 10 * kUs;
    p.decreaseIntervalNs = 50 * kUs;
    p.increaseIntervalNs = 55 * kUs;
    p.byteCounterBytes = 0;
    p.fastRecoverySteps = 2;
    p.additiveIncreaseBps = 40'000'000;
    p.hyperIncreaseBps = 400'000'000;
    p.minRateBps = 100'000'000;
    p.clampTargetRate = false;
    p.rateOnFirstCnp = 1.0;
    return p;
}

void expectRates(const Dcqcn& d, double rate, double target) {
    EXPECT_NEAR(d.currentRateBps(), rate, kRateTol);
    EXPECT_NEAR(d.targetRateBps(), target, kRateTol);
    EXPECT_EQ(d.rateBps(), static_cast<uint64_t>(std::llround(rate)));
}

// With rateOnFirstCnp = 0.5 the first CNP (t = 0) sets rate = target = L/2. A CNP at 1 us makes the first α
// tick (10 us) (1 − g)·1 + g = 1 and is cut at 50 us after four quiet ticks, α = (1 − g)^4; the target stays
// L/2 (no increase yet, no clamp). Increase ticks follow at 105, 160, 215, 270, 325 us.
struct Cut {
    double rate;
    double target;
};
Cut cutBelowTarget(Dcqcn& d, const DcqcnParams& p) {
    d.onCnp(0);
    d.onCnp(1 * kUs);
    d.onTimer(50 * kUs);
    const double alpha = std::pow(1 - p.g, 4);
    return {kL / 2 * (1 - alpha / 2), kL / 2};
}

DcqcnParams belowTargetParams() {
    DcqcnParams p = testDcqcn();
    p.rateOnFirstCnp = 0.5;
    return p;
}

TEST(Dcqcn, StartsAtLineRateWithoutWindowOrTimers) {
    Dcqcn d(flowOf(52'000), testDcqcn());
    EXPECT_STREQ(d.name(), "dcqcn");
    EXPECT_EQ(d.rateBps(), kLine);
    EXPECT_EQ(d.windowBytes(), 0u);
    EXPECT_EQ(d.nextTimerNs(), kNever);
    d.onSend(10 * kUs, 50'000'000);  // no CNP yet: nothing to recover from, even with a byte counter
    d.onTimer(1'000 * kUs);
    EXPECT_EQ(d.rateBps(), kLine);
    EXPECT_EQ(d.nextTimerNs(), kNever);
}

TEST(Dcqcn, FirstCnpSetsAlphaToOneAndKeepsRate) {
    Dcqcn d(flowOf(), testDcqcn());
    d.onCnp(7 * kUs);
    EXPECT_EQ(d.alpha(), 1.0);
    expectRates(d, kL, kL);
    // The cut waits for the decrease timer; α ticks are not reported because only a cut reads α.
    EXPECT_EQ(d.nextTimerNs(), 57 * kUs);
    // The first CNP initialised α and does not count again: the first tick decays it.
    d.onTimer(17 * kUs);
    EXPECT_NEAR(d.alpha(), 1 - 1.0 / 256, kAlphaTol);
    expectRates(d, kL, kL);
}

TEST(Dcqcn, FirstCnpCutsWhenRateOnFirstCnpBelowOne) {
    DcqcnParams p = belowTargetParams();
    Dcqcn d(flowOf(), p);
    d.onCnp(0);
    expectRates(d, kL / 2, kL / 2);
    EXPECT_EQ(d.alpha(), 1.0);
    // The cut consumed the CNP: no decrease is pending, the increase timer runs.
    EXPECT_EQ(d.nextTimerNs(), 55 * kUs);
    d.onTimer(50 * kUs);
    expectRates(d, kL / 2, kL / 2);
    d.onTimer(55 * kUs);  // fast recovery towards a target equal to the rate
    expectRates(d, kL / 2, kL / 2);
    EXPECT_EQ(d.timerStage(), 1u);
}

TEST(Dcqcn, FirstCutUsesAlphaDecayedUntilTheDecreaseTimer) {
    Dcqcn d(flowOf(), testDcqcn());
    d.onCnp(0);
    d.onTimer(50 * kUs);
    // Ticks at 10..50 us saw no CNP (the 50 us tick runs before the cut at the same instant).
    const double alpha = std::pow(1 - 1.0 / 256, 5);
    EXPECT_NEAR(d.alpha(), alpha, kAlphaTol);
    expectRates(d, kL * (1 - alpha / 2), kL);
    EXPECT_EQ(d.timerStage(), 0u);
    EXPECT_EQ(d.nextTimerNs(), 105 * kUs);  // only the increase timer is left
}

TEST(Dcqcn, AlphaRisesOnlyInPeriodsWithCnp) {
    const double g = 1.0 / 256;
    Dcqcn d(flowOf(), testDcqcn());
    d.onCnp(0);
    double alpha = 1;
    d.onTimer(10 * kUs);
    alpha = (1 - g) * alpha;
    EXPECT_NEAR(d.alpha(), alpha, kAlphaTol);
    d.onCnp(15 * kUs);
    d.onTimer(20 * kUs);
    alpha = (1 - g) * alpha + g;
    EXPECT_NEAR(d.alpha(), alpha, kAlphaTol);
    d.onTimer(40 * kUs);
    alpha = (1 - g) * (1 - g) * alpha;
    EXPECT_NEAR(d.alpha(), alpha, kAlphaTol);
}

TEST(Dcqcn, AlphaDecaysGeometricallyWithoutCnp) {
    Dcqcn d(flowOf(), testDcqcn());
    d.onCnp(0);
    for (int k = 1; k <= 40; ++k) {
        d.onTimer(static_cast<TimeNs>(k) * 10 * kUs);
        EXPECT_NEAR(d.alpha(), std::pow(1 - 1.0 / 256, k), kAlphaTol) << "after " << k << " periods";
    }
}

TEST(Dcqcn, CnpsOfOnePeriodCauseOneCut) {
    const double g = 1.0 / 256;
    Dcqcn d(flowOf(), testDcqcn());
    d.onCnp(0);
    d.onCnp(20 * kUs);  // after the 20 us tick: counts for the 30 us tick
    d.onCnp(30 * kUs);  // counts for the 40 us tick
    expectRates(d, kL, kL);
    d.onTimer(50 * kUs);
    double alpha = (1 - g) * (1 - g);  // ticks 10, 20
    alpha = (1 - g) * alpha + g;       // tick 30
    alpha = (1 - g) * alpha + g;       // tick 40
    alpha = (1 - g) * alpha;           // tick 50
    EXPECT_NEAR(d.alpha(), alpha, kAlphaTol);
    const double rate = kL * (1 - alpha / 2);
    expectRates(d, rate, kL);
    d.onTimer(100 * kUs);  // no CNP since the cut: the 100 us grid point does nothing
    expectRates(d, rate, kL);
}

TEST(Dcqcn, DecreaseFollowsTheGridOfTheFirstCnp) {
    Dcqcn d(flowOf(), testDcqcn());
    d.onCnp(0);
    d.onTimer(50 * kUs);
    d.onCnp(120 * kUs);
    EXPECT_EQ(d.nextTimerNs(), 150 * kUs);  // not 120 + 50: the decrease timer never stopped in the reference
}

// Fast recovery: rate = (rate + target)/2 with the target unchanged, for F = 2 timer events.
TEST(Dcqcn, FastRecoveryHalvesTheGapToTarget) {
    DcqcnParams p = belowTargetParams();
    Dcqcn d(flowOf(), p);
    Cut c = cutBelowTarget(d, p);
    expectRates(d, c.rate, c.target);
    for (int step = 1; step <= 2; ++step) {
        d.onTimer((50 + 55 * static_cast<TimeNs>(step)) * kUs);
        c.rate = (c.rate + c.target) / 2;
        expectRates(d, c.rate, c.target);
        EXPECT_EQ(d.timerStage(), static_cast<uint64_t>(step));
    }
}

// Stage F: target += R_AI, then the average.
TEST(Dcqcn, AdditiveIncreaseAtStageF) {
    DcqcnParams p = belowTargetParams();
    Dcqcn d(flowOf(), p);
    Cut c = cutBelowTarget(d, p);
    d.onTimer(160 * kUs);  // two fast-recovery steps
    c.rate = (c.rate + c.target) / 2;
    c.rate = (c.rate + c.target) / 2;
    d.onTimer(215 * kUs);
    c.target += 40e6;
    c.rate = (c.rate + c.target) / 2;
    expectRates(d, c.rate, c.target);
}

// Without a byte counter (the reference) the timer stage alone decides: stage > F is hyper increase.
TEST(Dcqcn, HyperIncreaseAfterStageF) {
    DcqcnParams p = belowTargetParams();
    Dcqcn d(flowOf(), p);
    Cut c = cutBelowTarget(d, p);
    d.onTimer(215 * kUs);  // FR, FR, AI
    c.rate = (c.rate + c.target) / 2;
    c.rate = (c.rate + c.target) / 2;
    c.target += 40e6;
    c.rate = (c.rate + c.target) / 2;
    for (TimeNs at : {270 * kUs, 325 * kUs}) {
        d.onTimer(at);
        c.target += 400e6;
        c.rate = (c.rate + c.target) / 2;
        expectRates(d, c.rate, c.target);
    }
}

TEST(Dcqcn, ByteCounterDrivesIncreaseWithoutTimer) {
    DcqcnParams p = belowTargetParams();
    p.byteCounterBytes = 1'000'000;
    Dcqcn d(flowOf(), p);
    d.onCnp(0);
    d.onSend(20 * kUs, 600'000);  // counted since the first cut, then discarded by the cut at 50 us
    d.onCnp(21 * kUs);
    d.onTimer(50 * kUs);
    // α: the ticks at 10 and 20 us saw no CNP, the one at 30 us saw the CNP of 21 us, 40 and 50 us none.
    const double g = 1.0 / 256;
    double alpha = 1 - g;
    alpha = (1 - g) * alpha;
    alpha = (1 - g) * alpha + g;
    alpha = (1 - g) * (1 - g) * alpha;
    Cut c{kL / 2 * (1 - alpha / 2), kL / 2};
    expectRates(d, c.rate, c.target);

    d.onSend(60 * kUs, 999'999);
    expectRates(d, c.rate, c.target);
    EXPECT_EQ(d.byteStage(), 0u);
    d.onSend(61 * kUs, 1);
    c.rate = (c.rate + c.target) / 2;
    expectRates(d, c.rate, c.target);
    EXPECT_EQ(d.byteStage(), 1u);
    EXPECT_EQ(d.timerStage(), 0u);
    EXPECT_EQ(d.nextTimerNs(), 105 * kUs);  // the timer keeps its own schedule
}

// With a byte counter, hyper increase needs both stages above F; one stage at or above F is additive
// increase.
TEST(Dcqcn, HyperIncreaseNeedsBothCountersAboveF) {
    DcqcnParams p = belowTargetParams();
    p.byteCounterBytes = 1'000'000;
    Dcqcn d(flowOf(), p);
    Cut c = cutBelowTarget(d, p);
    // Timer stages 0..4 with byte stage 0: FR, FR, then AI (max >= F) but never hyper (min = 0).
    for (int step = 0; step < 5; ++step) {
        d.onTimer((105 + 55 * static_cast<TimeNs>(step)) * kUs);
        if (step >= 2) {
            c.target += 40e6;
        }
        c.rate = (c.rate + c.target) / 2;
        expectRates(d, c.rate, c.target);
    }
    // Byte stages 0..2 with timer stage 5: AI; byte stage 3: min(5, 3) > F, hyper.
    for (int step = 0; step < 4; ++step) {
        d.onSend(330 * kUs, 1'000'000);
        c.target += step < 3 ? 40e6 : 400e6;
        c.rate = (c.rate + c.target) / 2;
        expectRates(d, c.rate, c.target);
    }
    EXPECT_EQ(d.timerStage(), 5u);
    EXPECT_EQ(d.byteStage(), 4u);
}

TEST(Dcqcn, CutsStopAtMinRate) {
    DcqcnParams p = testDcqcn();
    p.minRateBps = 10'000'000'000ull;
    Dcqcn d(flowOf(), p);
    // A CNP every 5 us keeps every α period marked, so α stays exactly 1 and every cut halves; each cut
    // restarts the 55 us increase timer before it can fire.
    int cuts = 0;
    for (TimeNs at = 0; at <= 250 * kUs; at += 5 * kUs) {
        d.onCnp(at);
        if (at > 0 && at % (50 * kUs) == 0) {
            ++cuts;
            EXPECT_EQ(d.alpha(), 1.0);
            const double expected = std::max(10e9, kL / std::pow(2.0, cuts));
            EXPECT_NEAR(d.currentRateBps(), expected, kRateTol) << "cut " << cuts;
        }
    }
    EXPECT_EQ(cuts, 5);
    EXPECT_EQ(d.rateBps(), 10'000'000'000ull);
}

TEST(Dcqcn, TargetCappedAtLineRateAndIncreasesStopThere) {
    DcqcnParams p = testDcqcn();
    p.fastRecoverySteps = 0;  // the first increase event is already additive
    p.rateOnFirstCnp = 1 - 1e-4;
    Dcqcn d(flowOf(), p);
    d.onCnp(0);
    const double start = kL * (1 - 1e-4);  // 10 Mb/s below line rate, less than one R_AI
    expectRates(d, start, start);
    d.onTimer(55 * kUs);
    double rate = (start + kL) / 2;
    expectRates(d, rate, kL);
    int events = 1;
    while (d.nextTimerNs() != kNever && events < 100) {
        d.onTimer(d.nextTimerNs());
        ++events;
    }
    EXPECT_EQ(d.nextTimerNs(), kNever);
    EXPECT_EQ(d.currentRateBps(), kL);
    EXPECT_EQ(d.rateBps(), kLine);
    // The gap of 5 Mb/s after the first event halves until it is under 1 bit/s.
    int halvings = 0;
    for (double gap = kL - rate; gap >= 1.0; gap /= 2) {
        ++halvings;
    }
    EXPECT_EQ(events, 1 + halvings);
}

TEST(Dcqcn, ClampSetsTargetOnEveryCut) {
    const double g = 1.0 / 256;
    double alpha = std::pow(1 - g, 5);
    const double first = kL * (1 - alpha / 2);
    alpha = (1 - g) * alpha;      // tick 60: the CNP at 60 us arrives after it
    alpha = (1 - g) * alpha + g;  // tick 70
    alpha = std::pow(1 - g, 3) * alpha;
    const double second = first * (1 - alpha / 2);
    for (bool clamp : {false, true}) {
        DcqcnParams p = testDcqcn();
        p.clampTargetRate = clamp;
        Dcqcn d(flowOf(), p);
        d.onCnp(0);
        d.onTimer(50 * kUs);
        expectRates(d, first, kL);  // the first cut follows no increase: no clamp either way
        d.onCnp(60 * kUs);
        d.onTimer(100 * kUs);
        expectRates(d, second, clamp ? first : kL);
    }
}

TEST(Dcqcn, CutAfterAnIncreaseSetsTargetWithoutClamp) {
    Dcqcn d(flowOf(), testDcqcn());
    d.onCnp(0);
    d.onTimer(105 * kUs);  // cut at 50 us, fast recovery at 105 us
    const double alpha = std::pow(1 - 1.0 / 256, 5);
    const double recovered = (kL * (1 - alpha / 2) + kL) / 2;
    EXPECT_NEAR(d.currentRateBps(), recovered, kRateTol);
    d.onCnp(110 * kUs);
    d.onTimer(150 * kUs);
    EXPECT_NEAR(d.targetRateBps(), recovered, kRateTol);
    EXPECT_LT(d.currentRateBps(), recovered);
}

TEST(Dcqcn, EcnEchoAckCountsAsCnpUnlessDisabled) {
    AckSignal ack;
    ack.nowNs = 0;
    ack.ackSeq = 1000;
    ack.newlyAcked = 1000;
    ack.sndNxt = 20'000;
    ack.ecnEcho = true;
    Dcqcn reference(flowOf(), testDcqcn());
    reference.onAck(ack);
    EXPECT_EQ(reference.nextTimerNs(), 50 * kUs);
    reference.onTimer(50 * kUs);
    EXPECT_NEAR(reference.currentRateBps(), kL * (1 - std::pow(1 - 1.0 / 256, 5) / 2), kRateTol);

    DcqcnParams p = testDcqcn();
    p.ackEcnIsCnp = false;
    Dcqcn cnpOnly(flowOf(), p);
    cnpOnly.onAck(ack);
    EXPECT_EQ(cnpOnly.nextTimerNs(), kNever);
    cnpOnly.onTimer(50 * kUs);
    EXPECT_EQ(cnpOnly.rateBps(), kLine);
}

TEST(Dcqcn, LateTimerCallMatchesTimelyCalls) {
    // One CNP at 0; cut at 50 us with α = (1 − g)^5; increase ticks at 105 + 55k us up to 1000 us: 17
    // fast-recovery or capped steps towards the line-rate target.
    const double alpha = std::pow(1 - 1.0 / 256, 5);
    double rate = kL * (1 - alpha / 2);
    for (int k = 0; k < 17; ++k) {
        rate = (rate + kL) / 2;
    }
    Dcqcn timely(flowOf(), testDcqcn());
    Dcqcn late(flowOf(), testDcqcn());
    timely.onCnp(0);
    late.onCnp(0);
    while (timely.nextTimerNs() <= 1'000 * kUs) {
        timely.onTimer(timely.nextTimerNs());
    }
    timely.onTimer(1'000 * kUs);
    late.onTimer(1'000 * kUs);
    for (const Dcqcn* d : {&timely, &late}) {
        EXPECT_NEAR(d->alpha(), std::pow(1 - 1.0 / 256, 100), kAlphaTol);
        expectRates(*d, rate, kL);
        EXPECT_EQ(d->timerStage(), 17u);
    }
}

TEST(Dcqcn, VariableWindowFollowsRate) {
    DcqcnParams p = testDcqcn();
    p.window = WindowMode::FollowsRate;
    Dcqcn var(flowOf(100'000), p);
    p.window = WindowMode::Bdp;
    Dcqcn fixed(flowOf(100'000), p);
    Dcqcn none(flowOf(100'000), testDcqcn());
    p.window = WindowMode::FollowsRate;
    Dcqcn noBdp(flowOf(0), p);
    EXPECT_EQ(var.windowBytes(), 100'000u);
    const double rate = kL * (1 - std::pow(1 - 1.0 / 256, 5) / 2);
    for (Dcqcn* d : {&var, &fixed, &none, &noBdp}) {
        d->onCnp(0);
        d->onTimer(50 * kUs);
    }
    EXPECT_EQ(var.windowBytes(), static_cast<uint64_t>(std::floor(100'000.0 * rate / kL)));
    EXPECT_EQ(fixed.windowBytes(), 100'000u);
    EXPECT_EQ(none.windowBytes(), 0u);
    EXPECT_EQ(noBdp.windowBytes(), 0u);
}

// The reference's timing details (DcqcnParams::firstDecreaseDelayNs, tiesInSchedulingOrder,
// cnpBeforeAlphaTick, wholeBitRates), each against the same script with the detail off.
DcqcnParams referenceTiming() {
    DcqcnParams p = testDcqcn();
    p.decreaseIntervalNs = 40 * kUs;   // α (10 us) and the decrease grid would coincide without the delay
    p.increaseIntervalNs = 120 * kUs;  // a multiple of the decrease period: increases land on the grid
    p.firstDecreaseDelayNs = 1;
    p.tiesInSchedulingOrder = true;
    p.cnpBeforeAlphaTick = true;
    p.wholeBitRates = true;
    return p;
}

// The first cut lands 1 ns after first CNP + T_dec: a send on that instant still goes at the old rate.
TEST(Dcqcn, ReferenceDecreaseGridStartsOneNanosecondLate) {
    Dcqcn d(flowOf(), referenceTiming());
    d.onCnp(0);
    EXPECT_EQ(d.nextTimerNs(), 40 * kUs + 1);
    d.onSend(40 * kUs, 1000);
    EXPECT_EQ(d.currentRateBps(), kL);
    d.onTimer(40 * kUs + 1);
    EXPECT_LT(d.currentRateBps(), kL);
}

// An increase and a cut on one instant: the reference runs the increase timer (scheduled 120 us before)
// first, then the cut (scheduled 40 us before), which restarts it; in our order the cut restarts the
// increase timer and the increase never happens. Every step in whole bit/s.
TEST(Dcqcn, ReferenceRunsTheIncreaseBeforeACutOnTheSameInstant) {
    for (const bool reference : {true, false}) {
        DcqcnParams p = referenceTiming();
        p.tiesInSchedulingOrder = reference;
        Dcqcn d(flowOf(), p);
        d.onCnp(0);
        d.onTimer(40 * kUs + 1);  // first cut, α = 1 decayed by 4 ticks: the rate is whole after it
        const double cut1 = d.currentRateBps();
        EXPECT_EQ(cut1, std::trunc(kL * (1 - std::pow(1 - p.g, 4) / 2)));
        EXPECT_EQ(d.targetRateBps(), kL);
        d.onCnp(150 * kUs);  // counts for the cut at 160 us + 1 ns, on the increase's instant
        d.onTimer(160 * kUs + 1);
        const double alpha = d.alpha();
        if (reference) {
            const double increased = std::trunc(cut1 / 2) + std::trunc(kL / 2);  // fast recovery, halves cut
            EXPECT_EQ(d.targetRateBps(), increased);  // the cut after an increase sets target = rate
            EXPECT_EQ(d.currentRateBps(), std::trunc(increased * (1 - alpha / 2)));
        } else {
            EXPECT_EQ(d.targetRateBps(), kL);
            EXPECT_EQ(d.currentRateBps(), std::trunc(cut1 * (1 - alpha / 2)));
        }
    }
}

// A CNP on the instant of an α tick: the reference's ACK event was scheduled first, so that tick counts it.
TEST(Dcqcn, ReferenceCountsACnpOnTheAlphaTicksInstant) {
    for (const bool reference : {true, false}) {
        DcqcnParams p = referenceTiming();
        p.cnpBeforeAlphaTick = reference;
        Dcqcn d(flowOf(), p);
        d.onCnp(0);
        d.onCnp(20 * kUs);  // the instant of the second α tick
        d.onTimer(20 * kUs);
        const double keep = 1 - p.g;
        EXPECT_NEAR(d.alpha(), reference ? keep * keep + p.g : keep * keep, kAlphaTol);
    }
}

TEST(Dcqcn, RejectsParametersThatBreakTheStateMachine) {
    const auto rejects = [](DcqcnParams p) { EXPECT_THROW((void)Dcqcn(flowOf(), p), std::invalid_argument); };
    DcqcnParams p = testDcqcn();
    p.g = 0;  // the reference driver's 1 / 16
    rejects(p);
    p = testDcqcn();
    p.increaseIntervalNs = 0;  // the reference driver's RP_TIMER default
    rejects(p);
    p = testDcqcn();
    p.alphaIntervalNs = 0;
    rejects(p);
    p = testDcqcn();
    p.rateOnFirstCnp = 0;
    rejects(p);
    p = testDcqcn();
    p.rateOnFirstCnp = 1.5;
    rejects(p);
    FlowParams zero = flowOf();
    zero.lineRateBps = 0;
    EXPECT_THROW((void)Dcqcn(zero, testDcqcn()), std::invalid_argument);
}

}  // namespace
}  // namespace mlnet::cc
