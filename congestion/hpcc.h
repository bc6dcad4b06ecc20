// HPCC (Li et al., SIGCOMM 2019) as the HPCC reference simulator runs it (CC_MODE 3): per-ACK reaction to the
// INT records of every hop, a reference rate committed once per RTT, and a window that follows the rate.
#ifndef MLNET_CONGESTION_HPCC_H
#define MLNET_CONGESTION_HPCC_H

#include <cstdint>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "congestion-control.h"

namespace mlnet::cc {

struct HpccParams {
    // η (U_TARGET): the utilisation the sender steers the bottleneck to; c = u/η.
    double targetUtil = 0.95;
    // MI_THRESH: number of additive-only steps (while c < 1) before a multiplicative step is forced. 0 makes
    // every step multiplicative, R = Rc/c + W_AI.
    uint32_t maxStage = 5;
    // W_AI (RATE_AI), expressed as a rate added on every step.
    uint64_t rateAiBps = 5'000'000;
    // FAST_REACT: ACKs before lastUpdateSeq recompute the rate from the uncommitted reference rate. When off
    // they are ignored entirely (the INT snapshot then spans a whole RTT).
    bool fastReact = true;
    // MULTI_RATE: keep {u, Rc, stage} per hop and send at the minimum of the per-hop rates.
    bool multiRate = true;
    // SAMPLE_FEEDBACK: fast-react ACKs use only hops that report a queue.
    bool sampleFeedback = false;
    // Floor of the rate (MIN_RATE). A floor above the line rate is lowered to the line rate.
    uint64_t minRateBps = 100'000'000;
    // Window besides the rate: by default bdp·R/lineRate bytes (at least 1), the reference's VAR_WIN.
    WindowMode window = WindowMode::FollowsRate;
    // Queue term of u_i. true (default, ours): the port's mean queue over the interval between the two INT
    // records (IntHop::queueByteNs). false: the reference's smaller of the two point readings, which a paced
    // flow takes at its own departures and so sees less queue the larger its share: faster flows grow faster
    // and an incast never becomes fair (Jain 0.86 instead of 0.99 on 8:1 at 100 Gb/s).
    bool meanQueue = true;
    // The reference's arithmetic: rates in whole bit/s (each quotient truncated, as its DataRate gives
    // them), the window bdp·R/lineRate in integers, and with the point queue (meanQueue false) u from its
    // expressions (bytes·8 / (τ·1e-9), the queue term as q·R_line / B_hop / W with W the BDP in whole
    // bytes). Default false: exact doubles.
    bool referenceArithmetic = false;
};

// The HPCC paper's `hp` preset as config-hp.txt writes it for 100 Gb/s hosts: η 0.95 (U_TARGET; the project
// page quotes 99 %, the shipped config and run.py's --utgt default say 95), MI_THRESH 0, W_AI = 10 Mb/s per
// 25 Gb/s of line rate (40 Mb/s at 100G), FAST_REACT 1, MULTI_RATE 0, SAMPLE_FEEDBACK 0, MIN_RATE 1000 Mb/s,
// VAR_WIN 1.
HpccParams hpccPaper(uint64_t lineRateBps);

// The RdmaHw attribute defaults (η 0.95, MI_THRESH 5, W_AI 5 Mb/s, fast react, per-hop rates, no sample
// feedback, minimum 100 Mb/s) with the variable window on. Equal to a default-constructed HpccParams. Nothing
// scales with the line rate.
HpccParams hpccDefault();

// Deviations from the reference, all for robustness:
// - Any number of hops (the reference drops all feedback beyond five); full-width INT fields, no wrapping.
// - An ACK whose hop count differs from the stored snapshot, or whose time or byte counter goes backwards at
// some
//   hop, means the path changed: the snapshot is replaced and the ACK yields no rate change. In per-hop mode
//   the hop states restart at u = 1 with the current reference rate.
// - A hop whose time did not advance (τ = 0) or that reports a zero line rate is skipped instead of dividing
// by
//   zero.
// - ACKs without INT (numHops == 0) carry no feedback and are ignored.
// The queue term of u_i is q/(B_i·T) with T = baseRtt; the reference writes it as q·R_max/(B_i·W) with W =
// R_max·T.
class Hpcc : public CongestionControl {
public:
    // Throws std::invalid_argument on a zero line rate, a zero base RTT or a non-positive η.
    Hpcc(const FlowParams& flow, const HpccParams& params);

    const char* name() const override { return "hpcc"; }
    // What an ACK reads: everything before the per-hop mode's arrays (whose contents live elsewhere).
    std::size_t stateBytes() const override;
    void onAck(const AckSignal& ack) override;
    bool lineRateWhenAlone() const override { return false; }
    // The next INT-carrying ACK takes the records and the sequence gate again, as the first one does; the
    // rate, u, the reference rate and the stage stay (per-hop states restart from the reference rate, as on a
    // path change).
    void resumeOnNewConnection() override { m_initialised = false; }

    const HpccParams& params() const { return m_params; }
    // Single-rate state: the utilisation EWMA, the committed reference rate and increase stage. In per-hop
    // mode only referenceRateBps() is meaningful (the committed minimum over the hops).
    double utilisation() const { return m_u; }
    double referenceRateBps() const { return m_refRateBps; }
    uint32_t stage() const { return m_stage; }
    uint64_t lastUpdateSeq() const { return m_lastUpdateSeq; }
    // Per-hop state (multiRate); empty before the first INT-carrying ACK.
    struct HopState {
        double u = 1;
        double refRateBps = 0;
        uint32_t stage = 0;
    };
    const std::vector<HopState>& hopStates() const { return m_hopStates; }

private:
    // Rate after one step from reference rate rc at stage `stage` with utilisation u, clamped; the stage the
    // step leads to goes to *nextStage.
    double step(double u, double rcBps, uint32_t stage, uint32_t* nextStage) const;
    // What the next ACK compares a hop's record with: of the last record, the fields u_i reads (24 bytes
    // instead of the record's 40: five hops' snapshot is two cache lines, not four).
    struct HopSnapshot {
        uint64_t timeNs;
        uint64_t txBytes;
        uint64_t queueByteNsOrBytes;  // queueByteNs with HpccParams::meanQueue, else queueBytes
    };
    HopSnapshot snapshotOf(const IntHop& hop) const {
        return {hop.timeNs, hop.txBytes, m_params.meanQueue ? hop.queueByteNs : hop.queueBytes};
    }
    void resetSnapshot(const AckSignal& ack);
    bool pathChanged(const AckSignal& ack) const;
    // u_i of hop i from the ACK's record and the stored one; false when the hop gives no usable sample.
    bool hopUtilisation(const IntHop& now, const HopSnapshot& prev, double* u, uint64_t* tauNs) const;
    void updateSingleRate(const AckSignal& ack, bool commit);
    void updateMultiRate(const AckSignal& ack, bool commit);
    void setRate(double rateBps);

    // What every ACK reads first (with thousands of flows an ACK fetches it from memory: stateBytes()).
    HpccParams m_params;
    uint64_t m_lineRateBps;
    uint64_t m_bdpBytes;
    double m_baseRttNs;
    double m_minRateBps;

    bool m_initialised = false;
    uint32_t m_stage = 0;
    uint64_t m_lastUpdateSeq = 0;
    double m_u = 1;
    double m_refRateBps;
    // The last records per hop, inside the object for paths of up to kInlineHops switches (a fat-tree's five
    // and more): every ACK reads them, and with thousands of flows a separate array is one more cache miss.
    static constexpr std::size_t kInlineHops = 6;
    boost::container::small_vector<HopSnapshot, kInlineHops> m_snapshot;

    // The per-hop mode's (multiRate) state, after what the single-rate mode reads.
    std::vector<HopState> m_hopStates;
    // Per-ACK scratch of the per-hop mode, kept as members so that steady-state ACKs do not allocate.
    std::vector<double> m_hopRateBps;
    std::vector<uint32_t> m_hopNextStage;
    std::vector<char> m_hopUpdated;
};

}  // namespace mlnet::cc

#endif
