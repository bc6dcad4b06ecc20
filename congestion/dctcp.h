// DCTCP (Alizadeh et al., SIGCOMM 2010) driven by ECN echoes on ACKs. By default a real congestion
// window with DCTCP's per-window α; optionally the HPCC-lineage rate-based variant (CC_MODE 8), which cuts
// the sending rate instead of a window.
#ifndef MLNET_CONGESTION_DCTCP_H
#define MLNET_CONGESTION_DCTCP_H

#include <cstdint>

#include "congestion-control.h"

namespace mlnet::cc {

struct DctcpParams {
    // EWMA gain g of α. Default 1/16 (DCTCP paper, Linux dctcp_shift_g 4, run.py 0.0625).
    double g = 1.0 / 16;
    // α before the first measurement. Default 1 (Linux dctcp_alpha_on_init, the reference): the first
    // mark halves.
    double initialAlpha = 1.0;
    // false (default): window mode. true: the reference's rate-based variant.
    bool rateBased = false;

    // --- window mode ---
    // Initial congestion window. 0 (default): the flow's BDP, i.e. line rate from the first packet as RoCE
    // NICs start (there is no slow start); 10 MTU when the BDP is unknown (0).
    uint64_t initialWindowBytes = 0;
    // Floor of every cut. 0 (default): one MTU, the least that keeps the flow moving.
    uint64_t minWindowBytes = 0;

    // --- rate-based mode (CC_MODE 8) ---
    // Rate added once per batch (about one RTT) outside CWR. Default 1000 Mb/s (attr); run.py 615 Mb/s.
    uint64_t rateAiBps = 1'000'000'000;
    // Floor of every cut. Default 100 Mb/s (attr); run.py 1000 Mb/s.
    uint64_t minRateBps = 100'000'000;
    // Rate-based mode: a window besides the rate (none by default).
    WindowMode window = WindowMode::None;
};

// The HPCC paper's DCTCP (run.py `dctcp`, hpcc-bench/config-dctcp.txt): rate-based, g 0.0625,
// DCTCP_RATE_AI 615 Mb/s, min rate 1000 Mb/s, α starts at 1, HAS_WIN 1 and VAR_WIN 1.
DctcpParams dctcpHpccPaper();

// DCTCP with window semantics: the DctcpParams defaults (g 1/16, α 1, window starts at the BDP).
DctcpParams dctcpWindow();

// Window mode (rate stays at line rate; the window limits the flow):
// - Each ACK adds its newly acknowledged bytes to the window's total and, with ECN echo, to its marked
//   bytes. A window is the data outstanding when it opened: the first ACK opens the first one, ending at
//   the snd_nxt it reports. When ackSeq reaches the end, α = (1 − g)·α + g·marked/acked, the counters
//   reset and the next window ends at the snd_nxt of that ACK.
// - An ECN-echo ACK outside CWR cuts cwnd = max(min window, cwnd·(1 − α/2)) and enters CWR until an ACK
//   passes the snd_nxt of the cut, so one window of marks gives one cut.
// - Any other ACK outside CWR adds mtu·newlyAcked/cwnd (one MTU per window), but only if the flight
//   before the ACK filled the window to within one MTU: a flow paced below its window (by the line rate
//   or the application) would otherwise grow cwnd without bound and need many RTTs of cuts at the next
//   congestion.
//
// Rate-based mode (the HPCC reference simulator's):
// - Each ACK with ECN echo counts one mark. The first ACK opens a batch of snd_nxt/mtu + 1 packets ending
//   at snd_nxt, keeping its own mark in the count; an ACK beyond the batch end updates
//   α = (1 − g)·α + g·min(1, marks/batch packets), resets the count and opens the next batch of
//   (snd_nxt − ackSeq)/mtu + 1 packets.
// - Then: an ACK beyond the snd_nxt of the last cut leaves CWR; an ECN-echo ACK outside CWR cuts
//   rate = max(min rate, rate·(1 − α/2)) and enters CWR; otherwise an ACK that opened a batch, outside
//   CWR, adds rate = min(line rate, rate + AI).
// ECN is read from ACKs only; CNPs are ignored.
class Dctcp : public CongestionControl {
public:
    // Throws std::invalid_argument for a zero line rate or MTU, g outside (0, 1] or initialAlpha outside
    // [0, 1].
    Dctcp(const FlowParams& flow, const DctcpParams& params);

    const char* name() const override { return "dctcp"; }
    std::size_t stateBytes() const override { return sizeof(*this); }
    void onAck(const AckSignal& ack) override;
    // With no mark, α decays by (1 − g) per window of data: about one base RTT (BDP at the line rate).
    void skipQuietTime(int64_t deltaNs) override;

    double alpha() const { return m_alpha; }
    double cwndBytes() const { return m_cwnd; }       // window mode; windowBytes() is its whole-byte floor
    double currentRateBps() const { return m_rate; }  // rate-based mode; rateBps() rounds it
    bool inCwr() const { return m_inCwr; }

private:
    void onAckWindow(const AckSignal& ack);
    void onAckRate(const AckSignal& ack);
    void publish();

    DctcpParams m_params;
    double m_lineRate;
    uint64_t m_bdpBytes;
    double m_mtu;
    double m_minWindow;
    double m_minRate;

    double m_alpha;
    double m_cwnd = 0;
    double m_rate;
    bool m_inCwr = false;
    uint64_t m_cwrEndSeq = 0;

    // α measurement: window mode counts bytes, rate-based mode counts marked ACKs against a packet estimate.
    bool m_measuring = false;
    uint64_t m_measureEndSeq = 0;
    uint64_t m_ackedBytes = 0;
    uint64_t m_markedBytes = 0;
    uint64_t m_marks = 0;
    uint64_t m_batchPackets = 0;
};

}  // namespace mlnet::cc

#endif
