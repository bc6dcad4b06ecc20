// DCQCN (Zhu et al., SIGCOMM 2015) as the reaction point of a Mellanox-style NIC: α from CNPs, rate cuts
// paced by a decrease timer, and recovery driven by both a timer and a byte counter. The HPCC-lineage
// reference has no byte counter; dcqcnHpccPaper() reproduces it by disabling ours.
#ifndef MLNET_CONGESTION_DCQCN_H
#define MLNET_CONGESTION_DCQCN_H

#include <cmath>
#include <cstdint>

#include "congestion-control.h"

namespace mlnet::cc {

// Defaults are the SIGCOMM'15 paper's values for its 40 Gb/s testbed; where the HPCC-lineage reference
// (attribute default, "attr") or the HPCC paper's run.py differ, the comment says so.
struct DcqcnParams {
    // EWMA gain g of α. Default 1/256 (paper, run.py). attr: 1/16; the reference driver's default `1 / 16`
    // is an integer division that yields 0, which freezes α — rejected here.
    double g = 1.0 / 256;
    // α update period T_α (the paper's K). Default 55 us (paper, attr). run.py dcqcn: 1 us, dcqcn_paper: 50.
    TimeNs alphaIntervalNs = 55'000;
    // Rate-decrease period: all CNPs of one period cause one cut at its end. Default 50 us: the paper cuts
    // once per CNP and its notification point sends at most one CNP per N = 50 us. attr, run.py dcqcn: 4 us.
    TimeNs decreaseIntervalNs = 50'000;
    // The decrease grid starts this long after first CNP + T_dec. Default 0. The reference (and so run.py's
    // presets and config.txt): 1 ns, "to make sure rate decrease is after alpha update"; a packet sent on
    // that instant still leaves at the old rate.
    TimeNs firstDecreaseDelayNs = 0;
    // Rate-increase timer T; restarted by every cut. Default 55 us (paper). attr: 1500 us; run.py dcqcn and
    // the CX4 firmware default (rpg_time_reset): 300 us. A zero period (the reference driver's default) is
    // rejected.
    TimeNs increaseIntervalNs = 55'000;
    // Byte counter B: one increase event per B bytes sent since the last cut. Default 10 MB (10^7 B,
    // paper). 0 disables it, as in the reference.
    uint64_t byteCounterBytes = 10'000'000;
    // F: increase events per counter spent in fast recovery. Default 5 (paper, attr); run.py, CX4: 1.
    uint32_t fastRecoverySteps = 5;
    // R_AI: target-rate step of additive increase. Default 40 Mb/s (paper). attr: 5 Mb/s; run.py:
    // 5·bw/25 Mb/s (20 Mb/s at 100 Gb/s).
    uint64_t additiveIncreaseBps = 40'000'000;
    // R_HAI: target-rate step of hyper increase, a fixed step per event as in the reference and the CX4
    // firmware (not QCN's growing i·R_HAI). Default 400 Mb/s: the paper leaves R_HAI open, so it keeps the
    // 10:1 ratio to R_AI of the reference (attr 50 Mb/s, run.py 50·bw/25 Mb/s) and of CX4 (rpg_ai_rate 5,
    // rpg_hai_rate 50 Mb/s).
    uint64_t hyperIncreaseBps = 400'000'000;
    // Floor of every cut. Default 100 Mb/s (attr); run.py: 1000 Mb/s.
    uint64_t minRateBps = 100'000'000;
    // true: every cut first sets target = current rate. false (default, attr, run.py, CX4
    // clamp_tgt_rate 0): only a cut that follows an increase event does, so repeated cuts keep the target
    // of the first one.
    bool clampTargetRate = false;
    // Factor applied to the rate by the first CNP of the flow (rate = target = factor·rate). 1.0 (default,
    // attr): no immediate cut; the first decrease-timer expiry cuts with α = 1, halving the rate while the
    // target stays at line rate, which is the paper's first reaction. < 1: CX4-style immediate cut
    // (rate_to_set_on_first_cnp); that CNP is then consumed by the cut and starts the increase timer, so it
    // is not cut a second time.
    double rateOnFirstCnp = 1.0;
    // An ACK with ECN echo counts as a CNP (default, the reference NIC's mode). false when the NIC delivers
    // real CNPs and also echoes ECN on ACKs, which would count each congestion signal twice.
    bool ackEcnIsCnp = true;
    // Window besides the rate: none by default, as run.py dcqcn.
    WindowMode window = WindowMode::None;
    // Rates in whole bit/s, each product and quotient truncated, as the reference's ns-3 DataRate arithmetic
    // gives them (an average of rate and target is the sum of the two halves, each truncated). Default
    // false: exact arithmetic.
    bool wholeBitRates = false;
    // A CNP arriving on the very instant of an α tick counts for that tick. The reference orders the two by
    // when they were scheduled: the ACK's arrival one link delay plus its serialization before (1004 ns on
    // hpcc-bench), the α timer one period before (1 us), so the ACK comes first. Default false: the tick
    // first, as for every other timer. Meant with tiesInSchedulingOrder (the reference has both).
    bool cnpBeforeAlphaTick = false;
    // Timers that fall on one instant run longest period first, as the reference's event queue runs them
    // (each was scheduled one period before): with its periods the increase timer (300 us), then the
    // decrease check (4 us), then α (1 us). Default false: α, then the decrease, then the increase.
    bool tiesInSchedulingOrder = false;
};

// The HPCC paper's DCQCN (run.py `dcqcn`, hpcc-bench/config-dcqcn.txt): T_α 1 us, T_dec 4 us, T 300 us, g
// 1/256, F 1, R_AI 5·bw/25 Mb/s and R_HAI 50·bw/25 Mb/s (20 / 200 Mb/s at 100 Gb/s), min rate 1000 Mb/s,
// no byte counter, no window.
DcqcnParams dcqcnHpccPaper(uint64_t lineRateBps);

// The SIGCOMM'15 paper's DCQCN: the DcqcnParams defaults, with R_AI and R_HAI scaled linearly from the
// paper's 40 Gb/s (40 / 400 Mb/s there, as run.py scales its steps with bw) so a recovery takes the same
// number of timer periods at any line rate.
DcqcnParams dcqcnPaper(uint64_t lineRateBps);

// State machine (rates in bit/s):
// - Start at line rate with target = line rate and α = 1; nothing runs until the first CNP.
// - First CNP: α = 1; the α timer and the decrease timer start on grids anchored at this instant (the
//   decrease grid firstDecreaseDelayNs later);
//   rateOnFirstCnp applies (see above).
// - Any later CNP (or ECN-echo ACK) sets "CNP seen" for the α timer and for the decrease timer.
// - α timer, every T_α: α = (1 − g)·α + g if a CNP was seen in the period, else (1 − g)·α.
// - Decrease timer, every T_dec, when a CNP was seen in the period: target = rate if clamping or any
//   increase event since the last cut; rate = max(min rate, rate·(1 − α/2)); both increase stages, the
//   byte counter and the increase timer restart.
// - Increase events come from the timer (every T after the last cut, stage t) and the byte counter (every
//   B bytes sent, stage b); each raises its own stage after the step. Without byte counter, b := t:
//     max(t, b) < F  -> fast recovery:     rate = (rate + target)/2
//     min(t, b) > F  -> hyper increase:    target = min(line, target + R_HAI), then average
//     otherwise      -> additive increase: target = min(line, target + R_AI), then average
//   Once rate and target both equal the line rate, increases stop until the next cut: they could change
//   nothing.
// When several timers fall on the same instant, α is updated before the decrease, and the decrease before
// an increase (or the reference's order: tiesInSchedulingOrder).
//
// Only the decrease and increase deadlines are reported by nextTimerNs(): α ticks are applied, in order,
// whenever any event or onTimer() passes them, because α is read only by a cut. A queue pair that saw one
// CNP long ago therefore costs the NIC no events. onTimer(now) processes every tick up to now, due or not.
class Dcqcn : public CongestionControl {
public:
    // Throws std::invalid_argument for a zero period or line rate, g outside (0, 1] or rateOnFirstCnp
    // outside (0, 1].
    Dcqcn(const FlowParams& flow, const DcqcnParams& params);

    const char* name() const override { return "dcqcn"; }
    std::size_t stateBytes() const override { return sizeof(*this); }
    void onAck(const AckSignal& ack) override;
    void onCnp(TimeNs nowNs) override;
    void onSend(TimeNs nowNs, uint64_t bytes) override;
    TimeNs nextTimerNs() const override;
    void onTimer(TimeNs nowNs) override;
    // α decays by the ticks of its timer in deltaNs, none with a CNP; the increase timer's stage advances.
    void skipQuietTime(int64_t deltaNs) override;

    // State as of the latest call that carried a time.
    double alpha() const { return m_alpha; }
    double currentRateBps() const { return m_rate; }  // rateBps() rounds this to whole bit/s
    double targetRateBps() const { return m_target; }
    uint64_t timerStage() const { return m_timerStage; }
    uint64_t byteStage() const { return m_byteStage; }

private:
    // Applies every timer due by nowNs; with alphaAtNow false, an α tick due exactly at nowNs waits.
    void advanceTo(TimeNs nowNs, bool alphaAtNow = true);
    void alphaTicks(TimeNs limitNs);
    void decrease(TimeNs atNs);
    double whole(double bps) const { return m_params.wholeBitRates ? std::trunc(bps) : bps; }
    void restartIncrease(TimeNs atNs);
    void increase(bool byTimer);
    void publish();

    DcqcnParams m_params;
    double m_lineRate;
    double m_minRate;
    uint64_t m_bdpBytes;

    double m_rate;
    double m_target;
    double m_alpha = 1.0;
    bool m_cnpSeen = false;
    bool m_alphaCnp = false;
    bool m_decreaseCnp = false;
    TimeNs m_alphaDueNs = kNever;
    TimeNs m_decreaseDueNs = kNever;  // next point of the decrease grid; stale while no CNP is pending
    bool m_increasing = false;
    TimeNs m_increaseDueNs = kNever;
    uint64_t m_timerStage = 0;
    uint64_t m_byteStage = 0;
    uint64_t m_bytesSinceEvent = 0;
};

}  // namespace mlnet::cc

#endif
