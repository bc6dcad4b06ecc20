// DCQCN and DCTCP fed scripted event sequences. Every expected value is derived here from the algorithms'
// formulas (roce-model.md §5.1 and §5.5, the DCQCN and DCTCP papers), never read back from the
// implementation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

#include "dcqcn.h"
#include "dctcp.h"

namespace mlnet::cc {
namespace {

constexpr uint64_t kLine = 100'000'000'000ull;
constexpr double kL = 1e11;
constexpr TimeNs kUs = 1000;
// Rates are doubles around 1e11 bit/s, whose ulp is 1.5e-5; α is at most 1.
constexpr double kRateTol = 1e-3;
constexpr double kAlphaTol = 1e-13;

FlowParams flowOf(uint64_t bdpBytes = 0, uint32_t mtuBytes = 1000) {
    FlowParams f;
    f.lineRateBps = kLine;
    f.baseRttNs = 4'160;
    f.bdpBytes = bdpBytes;
    f.mtuBytes = mtuBytes;
    return f;
}

// ---------------------------------------------------------------------------------------------------------
// DCQCN
// ---------------------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------------------
// Presets
// ---------------------------------------------------------------------------------------------------------

// "KEY value" lines of an HPCC config file; rates like "20Mb/s" become bit/s.
std::map<std::string, double> readHpccConfig(const std::string& name) {
    std::map<std::string, double> values;
#ifdef MLNET_SHARED_DIR
    std::ifstream in(std::string(MLNET_SHARED_DIR) + "/workloads/hpcc-bench/" + name);
    std::string key, value;
    while (in >> key) {
        std::getline(in, value);
        const size_t start = value.find_first_not_of(' ');
        if (start == std::string::npos) {
            continue;
        }
        value = value.substr(start);
        try {
            size_t used = 0;
            double v = std::stod(value, &used);
            if (value.compare(used, std::string::npos, "Mb/s") == 0) {
                v *= 1e6;
            }
            values[key] = v;
        } catch (const std::invalid_argument&) {
        }
    }
#else
    (void)name;
#endif
    return values;
}

TEST(CcPresets, DcqcnHpccPaperMatchesConfigDcqcn) {
    const auto cfg = readHpccConfig("config-dcqcn.txt");
    if (cfg.empty()) {
        GTEST_SKIP() << "shared hpcc-bench configs not available";
    }
    const DcqcnParams p = dcqcnHpccPaper(kLine);  // the configs are for 100 Gb/s hosts
    EXPECT_EQ(cfg.at("CC_MODE"), 1);
    EXPECT_EQ(p.g, cfg.at("EWMA_GAIN"));
    EXPECT_EQ(p.alphaIntervalNs, static_cast<TimeNs>(cfg.at("ALPHA_RESUME_INTERVAL") * 1000));
    EXPECT_EQ(p.decreaseIntervalNs, static_cast<TimeNs>(cfg.at("RATE_DECREASE_INTERVAL") * 1000));
    EXPECT_EQ(p.increaseIntervalNs, static_cast<TimeNs>(cfg.at("RP_TIMER") * 1000));
    EXPECT_EQ(p.fastRecoverySteps, cfg.at("FAST_RECOVERY_TIMES"));
    EXPECT_EQ(p.additiveIncreaseBps, cfg.at("RATE_AI"));
    EXPECT_EQ(p.hyperIncreaseBps, cfg.at("RATE_HAI"));
    EXPECT_EQ(p.minRateBps, cfg.at("MIN_RATE"));
    EXPECT_EQ(p.clampTargetRate, cfg.at("CLAMP_TARGET_RATE") != 0);
    EXPECT_EQ(p.window, !cfg.at("HAS_WIN")  ? WindowMode::None
                        : cfg.at("VAR_WIN") ? WindowMode::FollowsRate
                                            : WindowMode::Bdp);
    EXPECT_EQ(p.byteCounterBytes, 0u);
    EXPECT_EQ(p.rateOnFirstCnp, 1.0);
    EXPECT_TRUE(p.ackEcnIsCnp);
}

TEST(CcPresets, DcqcnHpccPaperScalesStepsWithLineRate) {
    // run.py: RATE_AI 5·bw/25 and RATE_HAI 50·bw/25 Mb/s for bw Gb/s hosts.
    const DcqcnParams p = dcqcnHpccPaper(25'000'000'000ull);
    EXPECT_EQ(p.additiveIncreaseBps, 5'000'000u);
    EXPECT_EQ(p.hyperIncreaseBps, 50'000'000u);
}

TEST(CcPresets, DcqcnPaperIsTheSigcommConfiguration) {
    const DcqcnParams p = dcqcnPaper(40'000'000'000ull);  // the paper's testbed speed
    EXPECT_EQ(p.g, 1.0 / 256);
    EXPECT_EQ(p.alphaIntervalNs, 55 * kUs);
    EXPECT_EQ(p.decreaseIntervalNs, 50 * kUs);
    EXPECT_EQ(p.increaseIntervalNs, 55 * kUs);
    EXPECT_EQ(p.byteCounterBytes, 10'000'000u);
    EXPECT_EQ(p.fastRecoverySteps, 5u);
    EXPECT_EQ(p.additiveIncreaseBps, 40'000'000u);
    EXPECT_EQ(p.hyperIncreaseBps, 400'000'000u);
    EXPECT_FALSE(p.clampTargetRate);
    EXPECT_EQ(p.rateOnFirstCnp, 1.0);
    EXPECT_FALSE(p.ackEcnIsCnp);
    EXPECT_EQ(dcqcnPaper(kLine).additiveIncreaseBps, 100'000'000u);
}

TEST(CcPresets, DctcpHpccPaperMatchesConfigDctcp) {
    const auto cfg = readHpccConfig("config-dctcp.txt");
    if (cfg.empty()) {
        GTEST_SKIP() << "shared hpcc-bench configs not available";
    }
    const DctcpParams p = dctcpHpccPaper();
    EXPECT_EQ(cfg.at("CC_MODE"), 8);
    EXPECT_TRUE(p.rateBased);
    EXPECT_EQ(p.g, cfg.at("EWMA_GAIN"));
    EXPECT_EQ(p.rateAiBps, cfg.at("DCTCP_RATE_AI"));
    EXPECT_EQ(p.minRateBps, cfg.at("MIN_RATE"));
    EXPECT_EQ(p.window, !cfg.at("HAS_WIN")  ? WindowMode::None
                        : cfg.at("VAR_WIN") ? WindowMode::FollowsRate
                                            : WindowMode::Bdp);
    EXPECT_EQ(p.initialAlpha, 1.0);
}

TEST(CcPresets, DctcpWindowIsWindowMode) {
    const DctcpParams p = dctcpWindow();
    EXPECT_FALSE(p.rateBased);
    EXPECT_EQ(p.g, 1.0 / 16);
    EXPECT_EQ(p.initialAlpha, 1.0);
    EXPECT_EQ(p.initialWindowBytes, 0u);
}

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
