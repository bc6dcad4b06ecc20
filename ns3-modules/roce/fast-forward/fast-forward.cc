#include "fast-forward.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ns3/abort.h"

#include "roce-simulator-impl.h"
#include "util/mix-hash.h"

namespace mlnet::roce {

namespace {

// Whether every window's value lies within max(fraction x mean, floor) of the windows' mean.
template <typename Value>
bool Agree(const std::vector<Value>& perWindow, double fraction, double floor, double& mean) {
    mean = std::accumulate(perWindow.begin(), perWindow.end(), 0.0) / static_cast<double>(perWindow.size());
    const double allowed = std::max(fraction * mean, floor);
    return std::all_of(perWindow.begin(), perWindow.end(),
                       [&](Value v) { return std::abs(static_cast<double>(v) - mean) <= allowed; });
}

// Values that move one way at every sample, by more than `fraction` of their mean overall: a state still
// settling (a rate recovering step by step), however close its windows are to one another.
template <typename Value>
bool Trending(const std::vector<Value>& values, double fraction) {
    bool rising = true, falling = true;
    for (std::size_t i = 1; i < values.size(); ++i) {
        rising = rising && values[i] > values[i - 1];
        falling = falling && values[i] < values[i - 1];
    }
    const double mean =
        std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
    const double change = std::abs(static_cast<double>(values.back()) - static_cast<double>(values.front()));
    return (rising || falling) && change > fraction * mean;
}

// The least-squares slope of values against their index, over their mean: the relative change per step.
template <typename Value>
double RelativeSlope(const std::vector<Value>& values) {
    const double n = static_cast<double>(values.size());
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double x = static_cast<double>(i), y = static_cast<double>(values[i]);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    const double denominator = n * sxx - sx * sx;
    if (denominator == 0 || sy == 0) {
        return 0;
    }
    return (n * sxy - sx * sy) / denominator / (sy / n);
}

}  // namespace

FabricFastForward::FabricFastForward(FastForwardSettings settings, std::vector<RoceNic*> nics,
                                     std::vector<RoceSwitch*> switches, std::vector<RoceNetDevice*> devices,
                                     const uint64_t* pauseFrames, uint32_t mtuPayloadBytes,
                                     uint64_t ackChunkBytes)
    : m_settings(settings),
      m_nics(std::move(nics)),
      m_switches(std::move(switches)),
      m_devices(std::move(devices)),
      m_pauseFrames(pauseFrames),
      m_unitBytes(ackChunkBytes == 0 ? mtuPayloadBytes : std::lcm<uint64_t>(mtuPayloadBytes, ackChunkBytes)),
      m_windowPs(settings.windowPs) {
    NS_ABORT_MSG_IF(m_settings.windowPs == 0 || m_settings.steadyWindows == 0,
                    "fast-forward: the window and the number of steady windows must be above 0");
}

bool FabricFastForward::Ahead() const {
    const RoceSimulatorImpl* sim = RoceSimulatorImpl::Current();
    return m_jump && sim && sim->SimNowPs() < m_jump->startPs + m_jump->deltaPs;
}

void FabricFastForward::Touch() {
    RoceSimulatorImpl* sim = RoceSimulatorImpl::Current();
    if (Ahead()) {
        // Cut the jump back to now: what the skipped time would not have carried by now is given back, and
        // the network's events come back by the time no longer skipped.
        const TimePs now = sim->SimNowPs();
        const TimePs end = m_jump->startPs + m_jump->deltaPs;
        m_jump->deltaPs = now - m_jump->startPs;
        for (SkippedQp& q : m_jump->qps) {
            const uint64_t bytes = SkippableBytes(q.bytesPerPs, m_jump->deltaPs);
            m_nics[q.host]->SkipBytes(q.qp, static_cast<int64_t>(bytes) - static_cast<int64_t>(q.bytes),
                                      *m_nics[q.dstHost]);
            q.bytes = bytes;
        }
        ++m_stats.cutShort;
        if (m_jump->quiet) {
            SkipQuietTime(-static_cast<int64_t>(end - now));
        }
        sim->ShiftNetwork(-static_cast<int64_t>(end - now));
    }
    Close();
    Forget();
    m_changed = true;
    Arm();
}

void FabricFastForward::Forget() {
    while (!m_history.empty()) {
        m_spare.push_back(std::move(m_history.back()));
        m_history.pop_back();
    }
}

const FastForwardStats& FabricFastForward::Finish() {
    Close();
    return m_stats;
}

void FabricFastForward::Arm() {
    if (!m_armed && RoceSimulatorImpl::Current()) {
        m_armed = true;
        ScheduleMember<&FabricFastForward::Sample>(m_windowPs, this);
    }
}

void FabricFastForward::SkipQuietTime(int64_t deltaPs) {
    for (RoceNic* nic : m_nics) {
        nic->SkipQuietTime(deltaPs / 1000);
    }
}

void FabricFastForward::Close() {
    if (!m_jump) {
        return;
    }
    const Jump& j = *m_jump;
    const double delta = static_cast<double>(j.deltaPs);
    m_stats.skippedPs += j.deltaPs;
    for (const SkippedQp& q : j.qps) {
        m_stats.skippedBytes += q.bytes;
    }
    m_stats.ecnMarks += j.ecnPerPs * delta;
    m_stats.cnps += j.cnpsPerPs * delta;
    m_stats.pauseFrames += j.pausesPerPs * delta;
    m_stats.pausedPs += j.pausedPerPs * delta;
    m_stats.dataPacketHops += j.hopsPerPs * delta;
    if (j.deltaPs != 0) {
        for (RoceSwitch* sw : m_switches) {
            sw->CountSkippedTime(j.deltaPs);
        }
        m_stats.spans.push_back({j.startPs, j.startPs + j.deltaPs});
    }
    m_jump.reset();
}

void FabricFastForward::Take(Snapshot& s) const {
    s.qps.clear();
    s.queueByteNs.clear();
    s.counters = Counters{};
    s.netPs = nowPs();
    for (const RoceNic* nic : m_nics) {
        nic->CollectProgress(s.qps);
        s.counters.cnps += nic->CnpsSent();
        s.counters.losses +=
            nic->Timeouts() + nic->NacksSent() + nic->RetransmittedBytes() + nic->OutOfOrderDrops();
    }
    uint64_t h = 0;
    for (const RoceNic::QpProgress& q : s.qps) {
        h = MixHash(h, uint64_t{q.host} << 40 ^ uint64_t{q.qp} << 8 ^ q.generation);
        h = MixHash(h, q.busy);
    }
    s.qpSetHash = MixHash(h, s.qps.size());
    for (const RoceSwitch* sw : m_switches) {
        s.counters.ecnMarks += sw->EcnMarks();
        s.counters.losses += sw->Drops();
        for (uint32_t p = 0; p < sw->NumPorts(); ++p) {
            s.queueByteNs.push_back(sw->QueueIntegralByteNs(p));
        }
    }
    s.counters.pauseFrames = *m_pauseFrames;
    for (const RoceNetDevice* d : m_devices) {
        s.counters.pausedPs += d->PausedPs();
        s.counters.dataPacketHops += d->TxDataFrames();
    }
}

uint64_t FabricFastForward::SkippableBytes(double bytesPerPs, TimePs deltaPs) const {
    const double bytes = bytesPerPs * static_cast<double>(deltaPs);
    return static_cast<uint64_t>(bytes / static_cast<double>(m_unitBytes)) * m_unitBytes;
}

std::optional<FabricFastForward::Jump> FabricFastForward::Plan() const {
    const Snapshot& first = m_history.front();
    const Snapshot& last = m_history.back();
    const std::size_t windows = m_history.size() - 1;
    // Windows may differ in length (Sample adapts them): each window's figures are scaled to the current one.
    const double windowPs = static_cast<double>(m_windowPs);
    const double baseWindowPs = static_cast<double>(m_settings.windowPs);  // guard and jump bounds
    const double spanPs = static_cast<double>(last.netPs - first.netPs);
    const auto scale = [&](std::size_t w) {
        return windowPs / static_cast<double>(m_history[w + 1].netPs - m_history[w].netPs);
    };
    if (last.counters.losses != first.counters.losses) {
        return std::nullopt;
    }
    // Without marks, CNPs or pauses in the windows a congestion control's rate holds still when the state
    // is steady, and it is judged sample by sample; with them it cycles (a sawtooth of cuts and recoveries)
    // and only the bytes per window tell.
    const bool quiet = last.counters.ecnMarks == first.counters.ecnMarks &&
                       last.counters.cnps == first.counters.cnps &&
                       last.counters.pauseFrames == first.counters.pauseFrames;
    Jump jump;
    jump.quiet = quiet;
    double deltaPs = INFINITY;
    std::vector<double> perWindow(windows);
    std::vector<uint64_t> rates(m_history.size());
    for (std::size_t i = 0; i < last.qps.size(); ++i) {
        const RoceNic::QpProgress& q = last.qps[i];
        if (!q.busy) {
            continue;
        }
        if (!q.skippable) {
            return std::nullopt;  // its message is about to end, or it is resending
        }
        for (std::size_t w = 0; w < windows; ++w) {
            perWindow[w] =
                static_cast<double>(m_history[w + 1].qps[i].ackedBytes - m_history[w].qps[i].ackedBytes) *
                scale(w);
        }
        for (std::size_t k = 0; k < m_history.size(); ++k) {
            rates[k] = m_history[k].qps[i].rateBps;
        }
        // Its bytes per window agree and do not drift; enough packets per window to tell; its congestion
        // control's rate at every sample agrees too (a rate still being cut or recovering shows there first,
        // while the queue in front of it still delivers at the old pace).
        double mean = 0, meanRate = 0;
        if (!Agree(perWindow, m_settings.rateTolerance, 2.0 * static_cast<double>(m_unitBytes), mean) ||
            mean < static_cast<double>(m_settings.minPacketsPerWindow * m_unitBytes) ||
            Trending(perWindow, m_settings.rateTolerance / 4) ||
            (quiet && !Agree(rates, m_settings.ccRateTolerance, 0.0, meanRate))) {
            return std::nullopt;
        }
        const double bytesPerPs =
            static_cast<double>(last.qps[i].ackedBytes - first.qps[i].ackedBytes) / spanPs;
        const double guardBytes = std::max(bytesPerPs * baseWindowPs * m_settings.guardWindows,
                                           4.0 * static_cast<double>(m_unitBytes));
        const double room = static_cast<double>(q.unsentBytes) - guardBytes;
        if (room <= 0) {
            return std::nullopt;
        }
        deltaPs = std::min(deltaPs, room / bytesPerPs);
        // A rate that moves, however little per window (an additive increase recovering over milliseconds),
        // bounds the jump to the time in which it would move by driftTolerance: the skipped time freezes it.
        // (A cycling rate's samples say nothing of drift; its bytes per window did not trend, above.)
        const double drift = quiet ? std::abs(RelativeSlope(rates)) * static_cast<double>(windows) : 0.0;
        if (drift > 0) {
            deltaPs = std::min(deltaPs, spanPs * m_settings.driftTolerance / drift);
        }
        jump.qps.push_back({q.host, q.qp, q.dstHost, bytesPerPs, 0});
    }
    deltaPs = std::min(deltaPs, baseWindowPs * m_settings.maxJumpWindows);
    if (jump.qps.empty() || deltaPs < baseWindowPs * m_settings.minJumpWindows) {
        return std::nullopt;
    }
    std::vector<double> queuePerWindow(windows);
    for (std::size_t p = 0; p < last.queueByteNs.size(); ++p) {
        for (std::size_t w = 0; w < windows; ++w) {
            queuePerWindow[w] = (m_history[w + 1].queueByteNs[p] - m_history[w].queueByteNs[p]) * 1000.0 /
                                static_cast<double>(m_history[w + 1].netPs - m_history[w].netPs);
        }
        double mean = 0;
        const double floor = static_cast<double>(m_settings.queueFloorBytes);
        // A queue that grows or drains across the windows is not steady, however slowly (a link loaded a few
        // percent beyond its rate fills its buffer over milliseconds, then pauses its senders).
        if (!Agree(queuePerWindow, m_settings.queueTolerance, floor, mean) ||
            std::abs(queuePerWindow.back() - queuePerWindow.front()) >
                std::max(m_settings.queueTolerance / 4 * mean, floor)) {
            return std::nullopt;
        }
        // ... nor may it move by more than that over the jump at the pace it moved in the windows: the
        // skipped time freezes it, and a queue creeping towards a marking or pause threshold must get there.
        const double movePerWindow = std::abs(RelativeSlope(queuePerWindow)) * mean;
        if (movePerWindow > 0) {
            deltaPs = std::min(
                deltaPs, windowPs * std::max(m_settings.queueTolerance / 4 * mean, floor) / movePerWindow);
        }
    }
    // The counters that will be extrapolated must accrue steadily too: a pause pattern still forming (the
    // queue behind it settling) shows in its frames per window before it shows in the QPs' rates.
    const auto steadyCounter = [&](auto field) {
        std::vector<double> increase(windows);
        for (std::size_t w = 0; w < windows; ++w) {
            increase[w] =
                static_cast<double>(field(m_history[w + 1].counters) - field(m_history[w].counters)) *
                scale(w);
        }
        double mean = 0;
        return Agree(increase, m_settings.counterTolerance, 2.0, mean) &&
               !Trending(increase, m_settings.counterTolerance / 2);
    };
    if (!steadyCounter([](const Counters& c) { return c.ecnMarks; }) ||
        !steadyCounter([](const Counters& c) { return c.cnps; }) ||
        !steadyCounter([](const Counters& c) { return c.pauseFrames; }) ||
        !steadyCounter([](const Counters& c) { return c.pausedPs / 1000; })) {
        return std::nullopt;
    }
    if (deltaPs < baseWindowPs * m_settings.minJumpWindows) {
        return std::nullopt;
    }
    jump.deltaPs = static_cast<TimePs>(deltaPs);
    for (SkippedQp& q : jump.qps) {
        q.bytes = SkippableBytes(q.bytesPerPs, jump.deltaPs);
    }
    const auto rate = [&](uint64_t a, uint64_t b) { return static_cast<double>(b - a) / spanPs; };
    jump.ecnPerPs = rate(first.counters.ecnMarks, last.counters.ecnMarks);
    jump.cnpsPerPs = rate(first.counters.cnps, last.counters.cnps);
    jump.pausesPerPs = rate(first.counters.pauseFrames, last.counters.pauseFrames);
    jump.pausedPerPs = rate(first.counters.pausedPs, last.counters.pausedPs);
    jump.hopsPerPs = rate(first.counters.dataPacketHops, last.counters.dataPacketHops);
    return jump;
}

void FabricFastForward::Sample(uint64_t) {
    m_armed = false;
    RoceSimulatorImpl* sim = RoceSimulatorImpl::Current();
    if (!sim) {
        return;
    }
    Close();  // a jump before this sample has run its course: every network event after it runs later
    uint64_t completions = 0;
    for (const RoceNic* nic : m_nics) {
        completions += nic->MessagesAcknowledged();
    }
    const bool changed = m_changed || completions != m_lastCompletions;
    m_changed = false;
    m_lastCompletions = completions;
    if (changed) {
        Forget();
        m_lastEvents = sim->GetEventCount();
        Arm();  // the next sample, if nothing changes by then, starts a history (or finds nothing busy, and
                // stops)
        return;
    }
    Snapshot s;
    if (!m_spare.empty()) {
        s = std::move(m_spare.back());
        m_spare.pop_back();
    }
    Take(s);
    if (std::none_of(s.qps.begin(), s.qps.end(), [](const RoceNic::QpProgress& q) { return q.busy; })) {
        m_spare.push_back(std::move(s));
        Forget();
        return;  // nothing to watch until a message starts (Touch)
    }
    // A sample reads every QP, port and device: on a large fabric with little traffic it would cost more than
    // the packets. Windows grow until a window's events outnumber what a sample reads, and shrink back when
    // traffic grows (Plan scales windows of other lengths to the current one).
    const uint64_t events = sim->GetEventCount();
    const double work =
        static_cast<double>(s.qps.size() + s.queueByteNs.size() + m_devices.size() + m_nics.size());
    const double eventsInWindow = static_cast<double>(events - m_lastEvents);
    m_lastEvents = events;
    if (eventsInWindow < kEventsPerSampleRead * work && m_windowPs < kMaxWindowGrowth * m_settings.windowPs) {
        m_windowPs *= 2;
    } else if (eventsInWindow > 16 * kEventsPerSampleRead * work && m_windowPs > m_settings.windowPs) {
        m_windowPs /= 2;
    }
    if (!m_history.empty() && m_history.back().qpSetHash != s.qpSetHash) {
        Forget();
    }
    m_history.push_back(std::move(s));
    if (m_history.size() > m_settings.steadyWindows + 1) {
        m_spare.push_back(std::move(m_history.front()));
        m_history.pop_front();
    }
    Arm();  // before a jump, which moves this sample along with every other network event
    if (m_history.size() != m_settings.steadyWindows + 1) {
        return;
    }
    std::optional<Jump> jump = Plan();
    if (!jump) {
        return;
    }
    for (SkippedQp& q : jump->qps) {
        m_nics[q.host]->SkipBytes(q.qp, static_cast<int64_t>(q.bytes), *m_nics[q.dstHost]);
    }
    jump->startPs = sim->SimNowPs();
    if (jump->quiet) {
        SkipQuietTime(static_cast<int64_t>(jump->deltaPs));
    }
    ++m_stats.jumps;
    Forget();
    const TimePs delta = jump->deltaPs;
    m_jump = std::move(jump);
    sim->ShiftNetwork(static_cast<int64_t>(delta));
}

}  // namespace mlnet::roce
