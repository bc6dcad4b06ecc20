// Stops a run that no longer makes progress and says why: every interval it reads a progress counter (bytes
// delivered, messages finished, ...), and if the counter has not moved while work is outstanding it stops the
// simulator and keeps a report of every unfinished queue pair and any PFC wait-for cycle. A run therefore
// never spins until its time limit on a dead link or a PFC deadlock. A network where frames still move but
// nothing arrives within an interval (a 1 b/s link, a cable of seconds, an interval below one round trip) is
// told apart: the report names the slowest frame on its way instead of describing a deadlock.
#ifndef MLNET_ROCE_HANG_DETECTOR_H
#define MLNET_ROCE_HANG_DETECTOR_H

#include <cstdint>
#include <functional>
#include <string>

#include "ns3/event-id.h"

#include "roce-fabric.h"

namespace mlnet::roce {

class HangDetector {
public:
    // `progress` must grow whenever the run moves forward; `busy` says whether anything is still outstanding;
    // `describe` adds the caller's view (e.g. what every rank waits for) to the report. `stalled`, if given,
    // says that nothing can happen any more (no event pending that could make progress): the run stops at the
    // next check without waiting for a whole interval of no progress.
    HangDetector(const RoceFabric& fabric, TimePs intervalPs, std::function<uint64_t()> progress,
                 std::function<bool()> busy, std::function<std::string()> describe = nullptr,
                 std::function<bool()> stalled = nullptr);
    ~HangDetector();
    void Start();
    bool Hung() const { return m_hung; }
    // The run stopped although frames were still moving: the network is too slow for the interval, which
    // the report says (the slowest frame and when it arrives), rather than a deadlock.
    bool TooSlow() const { return m_tooSlow; }
    const std::string& Report() const { return m_report; }

private:
    void Check();

    const RoceFabric& m_fabric;
    TimePs m_intervalPs;
    std::function<uint64_t()> m_progress;
    std::function<bool()> m_busy;
    std::function<std::string()> m_describe;
    std::function<bool()> m_stalled;
    uint64_t m_last = UINT64_MAX;
    bool m_hung = false;
    bool m_tooSlow = false;
    std::string m_report;
    ns3::EventId m_event;
};

}  // namespace mlnet::roce

#endif
