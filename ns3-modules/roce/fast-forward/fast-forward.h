// Fast-forward through steady states of the whole fabric. Every window of network time a sample reads each
// open queue pair's acknowledged bytes, each switch port's queue integral and the fabric's counters. When
// the last `steadyWindows` windows agree (every busy QP's bytes per window and every port's mean queue
// within their tolerances, no drop, timeout, NACK or resend, the same QPs throughout), the fabric is in a
// steady state, and the controller skips network time up to a guard before the first message could end:
// every busy QP's message loses the bytes it would have carried at its measured rate (RoceNic::SkipBytes),
// and every pending network event becomes due that much later (RoceSimulatorImpl::ShiftNetwork). Queues,
// packets in flight and congestion-control state stay as they stood, so the packet model resumes from a
// consistent state, and every message end, every new flow and every transient runs packet by packet.
//
// The rest of the simulation (compute, collectives, background arrivals) keeps its own clock. When it
// touches the network before the skipped span is over (Touch: a message starts, a link goes down), the jump
// is cut back to that moment: the bytes not yet due are given back and the network events come back.
// Counters that accrue in steady state (ECN marks, CNPs, pauses, paused time, frames sent) are extrapolated
// at the rates of the windows that proved the state steady, and reported apart (Stats).
#ifndef MLNET_ROCE_FAST_FORWARD_H
#define MLNET_ROCE_FAST_FORWARD_H

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "roce-net-device.h"
#include "roce-nic.h"
#include "roce-switch.h"

namespace mlnet::roce {

struct FastForwardSettings {
    bool enabled = false;
    // One sample per window of network time (20 us); longer while samples would cost more than the
    // packets (a large fabric with few flows).
    TimePs windowPs = 20'000'000;
    uint32_t steadyWindows = 3;  // windows that must agree before a jump
    // A busy QP's bytes per window may differ from its mean over the windows by this fraction, or by two
    // packets' payload, whichever is more.
    double rateTolerance = 0.02;
    // ... and its congestion control's rate at every sample from their mean by this fraction.
    double ccRateTolerance = 0.05;
    // A busy QP must carry this many packets per window on average (fewer cannot tell a rate).
    uint64_t minPacketsPerWindow = 16;
    // A port's mean queue per window may differ from its mean over the windows by this fraction, or by
    // queueFloorBytes, whichever is more.
    double queueTolerance = 0.25;
    uint64_t queueFloorBytes = 8192;
    // The counters extrapolated over a jump (ECN marks, CNPs, pause frames, paused time) per window may
    // differ from their mean over the windows by this fraction, or by two (marks, frames, ns).
    double counterTolerance = 0.05;
    // Network time left to the packet model before the first message could end, in windows; and the
    // shortest jump worth making.
    uint32_t guardWindows = 2;
    uint32_t minJumpWindows = 4;
    // The longest jump before the state is proven steady again: a drift too slow to show in the windows
    // (fairness converging over milliseconds) is then followed, slowed down, instead of frozen.
    uint32_t maxJumpWindows = 400;
    // A congestion control's rate that drifts across the windows (its least-squares slope) may move this
    // fraction over a jump, at that slope; the jump is shortened to keep it so.
    double driftTolerance = 0.005;
};

// What fast-forward did in a run, for summary.json.
struct FastForwardStats {
    uint64_t jumps = 0;
    uint64_t cutShort = 0;      // jumps the rest of the simulation cut back (Touch)
    TimePs skippedPs = 0;       // network time skipped
    uint64_t skippedBytes = 0;  // message bytes carried by the skipped time
    // Accrued in the skipped time at the steady windows' rates (not in the devices' own counters).
    double ecnMarks = 0, cnps = 0, pauseFrames = 0, pausedPs = 0, dataPacketHops = 0;
    struct Span {
        TimePs startPs, endPs;  // on the simulator's clock
    };
    std::vector<Span> spans;
};

class FabricFastForward {
public:
    // nics by host; every switch; every device of the fabric; the fabric's count of pause frames (resumes
    // not counted). mtuPayloadBytes (and ackChunkBytes, when not 0) is the unit of skipped bytes, so that
    // packets stay full-size and ACKs keep their places.
    FabricFastForward(FastForwardSettings settings, std::vector<RoceNic*> nics,
                      std::vector<RoceSwitch*> switches, std::vector<RoceNetDevice*> devices,
                      const uint64_t* pauseFrames, uint32_t mtuPayloadBytes, uint64_t ackChunkBytes);
    FabricFastForward(const FabricFastForward&) = delete;
    FabricFastForward& operator=(const FabricFastForward&) = delete;

    // Something outside the packet model is about to change the network (a message starts, a link goes
    // down): a jump still running is cut back to now, and steady-state detection starts over.
    void Touch();
    // A jump is running: the network's state is that of a later time than the simulator's clock.
    bool Ahead() const;
    // Closes the last jump (call before reading the fabric's results).
    const FastForwardStats& Finish();
    const FastForwardStats& Stats() const { return m_stats; }

private:
    struct Counters {
        uint64_t ecnMarks = 0, cnps = 0, pauseFrames = 0, dataPacketHops = 0;
        TimePs pausedPs = 0;
        uint64_t losses = 0;  // drops, timeouts, NACKs, resent bytes, out-of-order arrivals: any is unsteady
    };
    struct Snapshot {
        TimePs netPs = 0;  // the network's clock when taken
        uint64_t qpSetHash = 0;
        std::vector<RoceNic::QpProgress> qps;
        std::vector<double> queueByteNs;  // per switch port, in switch then port order
        Counters counters;
    };
    struct SkippedQp {
        uint32_t host, qp, dstHost;
        double bytesPerPs;
        uint64_t bytes;
    };
    struct Jump {
        TimePs startPs = 0;  // simulator clock
        TimePs deltaPs = 0;
        std::vector<SkippedQp> qps;
        double ecnPerPs = 0, cnpsPerPs = 0, pausesPerPs = 0, pausedPerPs = 0, hopsPerPs = 0;
        bool quiet = false;  // no mark, CNP or pause in the windows: congestion controls age over the jump
    };
    void SkipQuietTime(int64_t deltaPs);

    void Arm();
    void Sample(uint64_t);
    void Take(Snapshot& s) const;
    // The jump the last snapshots allow, or none.
    std::optional<Jump> Plan() const;
    uint64_t SkippableBytes(double bytesPerPs, TimePs deltaPs) const;
    void Close();   // folds the running or last jump into the stats
    void Forget();  // drops the history (its storage is kept for reuse)

    FastForwardSettings m_settings;
    std::vector<RoceNic*> m_nics;
    std::vector<RoceSwitch*> m_switches;
    std::vector<RoceNetDevice*> m_devices;
    const uint64_t* m_pauseFrames;
    uint64_t m_unitBytes;
    static constexpr double kEventsPerSampleRead = 1;
    static constexpr TimePs kMaxWindowGrowth = 8;
    TimePs m_windowPs;  // the window now: the settings' or longer (Sample)
    uint64_t m_lastEvents = 0;
    std::deque<Snapshot> m_history;
    std::optional<Jump> m_jump;
    bool m_armed = false;
    // The flow set changed since the last sample (a message started or ended): no snapshot is taken until a
    // window passes without a change, so a fabric whose flows change all the time costs one sum per window.
    bool m_changed = true;
    uint64_t m_lastCompletions = 0;
    std::vector<Snapshot> m_spare;  // snapshots whose storage the next ones reuse
    FastForwardStats m_stats;
};

}  // namespace mlnet::roce

#endif
