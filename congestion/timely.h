// TIMELY (Mittal et al., SIGCOMM 2015) as the HPCC reference simulator runs it (CC_MODE 7): a rate controller
// driven by RTT samples, updated once per RTT.
#ifndef MLNET_CONGESTION_TIMELY_H
#define MLNET_CONGESTION_TIMELY_H

#include <cstdint>

#include "congestion-control.h"

namespace mlnet::cc {

struct TimelyParams {
    // Below T_low the path counts as uncongested and the rate grows whatever the gradient says.
    TimeNs tLowNs = 50'000;
    // Above T_high the rate is cut in proportion to how far the RTT exceeds it: R = Rc·(1 − β·(1 −
    // T_high/rtt)).
    TimeNs tHighNs = 500'000;
    // Normaliser of the RTT gradient, g = diff/minRTT. A constant, not the measured minimum RTT.
    TimeNs minRttNs = 20'000;
    // EWMA weight of the newest RTT difference: diff = (1 − α)·diff_prev + α·(rtt − rtt_prev).
    double alpha = 0.875;
    // Multiplicative-decrease factor of both decrease rules.
    double beta = 0.8;
    // Additive step δ (RATE_AI).
    uint64_t rateAiBps = 10'000'000;
    // Hyper-additive step (RATE_HAI), used once haiThreshold increases have happened in a row.
    uint64_t rateHaiBps = 50'000'000;
    // N: consecutive increases after which the step becomes rateHaiBps (the reference hard-codes 5).
    uint32_t haiThreshold = 5;
    // Floor of every decrease (MIN_RATE). A floor above the line rate is lowered to the line rate.
    uint64_t minRateBps = 100'000'000;
    // Window besides the rate: none in every TIMELY preset but run.py's timely_vwin (bdp·R/lineRate).
    WindowMode window = WindowMode::None;
};

// The HPCC paper's `timely` preset (run.py, config-timely.txt): δ = 10 Mb/s and HAI = 50 Mb/s per 10 Gb/s of
// line rate (100 / 500 Mb/s at 100G), MIN_RATE 1000 Mb/s, thresholds and gains at the RdmaHw attribute
// values.
TimelyParams timelyHpccPaper(uint64_t lineRateBps);

// TIMELY SIGCOMM'15 (10 Gb/s NICs): T_low 50 µs, T_high 500 µs, minRTT 20 µs, α 0.875, β 0.8, δ 10 Mb/s,
// HAI = N·δ with N = 5. The paper gives no floor; this keeps the RdmaHw attribute default 100 Mb/s. Unscaled:
// the values are the paper's absolute ones whatever the line rate. Equal to a default-constructed
// TimelyParams.
TimelyParams timelyPaper();

// Reference behaviours kept on purpose:
// - The first RTT sample only initialises rtt_prev and the update point; the rate starts moving on the
// second.
// - Only the sample on the ACK that crosses lastUpdateSeq is used; samples in between are discarded (no
// per-ACK
//   reaction), and rtt_prev is the sample of the previous update, not of the previous ACK.
// - The increase counter also counts increases taken in the T_low region, and any decrease resets it; the HAI
//   step applies from the (N+1)-th consecutive increase on.
// - The gradient-region decrease can reach zero (β·g ≥ 1); the floor then yields the minimum rate.
// ACKs without an RTT sample (rttNs == 0) are ignored, including for the once-per-RTT gate.
class Timely : public CongestionControl {
public:
    // Throws std::invalid_argument on a zero line rate, a zero minRTT, T_low > T_high or α, β outside [0, 1].
    Timely(const FlowParams& flow, const TimelyParams& params);

    const char* name() const override { return "timely"; }
    std::size_t stateBytes() const override { return sizeof(*this); }
    void onAck(const AckSignal& ack) override;

    const TimelyParams& params() const { return m_params; }
    // The EWMA of RTT differences (ns), as committed by the last update.
    double rttDiffNs() const { return m_rttDiffNs; }
    // Consecutive increases so far (0 after a decrease).
    uint32_t increaseCount() const { return m_increaseCount; }
    uint64_t lastUpdateSeq() const { return m_lastUpdateSeq; }

private:
    void setRate(double rateBps);

    TimelyParams m_params;
    uint64_t m_lineRateBps;
    uint64_t m_bdpBytes;
    double m_minRateBps;
    // Kept as double so repeated small steps and cuts do not accumulate rounding.
    double m_curRateBps;
    bool m_haveSample = false;
    TimeNs m_rttPrevNs = 0;
    double m_rttDiffNs = 0;
    uint32_t m_increaseCount = 0;
    uint64_t m_lastUpdateSeq = 0;
};

}  // namespace mlnet::cc

#endif
