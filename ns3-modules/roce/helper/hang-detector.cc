#include "hang-detector.h"

#include <sstream>

#include "ns3/simulator.h"

#include "roce-timing.h"

namespace mlnet::roce {

HangDetector::HangDetector(const RoceFabric& fabric, TimePs intervalPs, std::function<uint64_t()> progress,
                           std::function<bool()> busy, std::function<std::string()> describe,
                           std::function<bool()> stalled)
    : m_fabric(fabric),
      m_intervalPs(intervalPs),
      m_progress(std::move(progress)),
      m_busy(std::move(busy)),
      m_describe(std::move(describe)),
      m_stalled(std::move(stalled)) {}

HangDetector::~HangDetector() {
    m_event.Cancel();
}

void HangDetector::Start() {
    m_hung = false;
    m_tooSlow = false;
    m_report.clear();
    m_last = UINT64_MAX;
    m_event.Cancel();
    m_event = ns3::Simulator::Schedule(ns3::PicoSeconds(m_intervalPs), &HangDetector::Check, this);
}

void HangDetector::Check() {
    if (m_fabric.NetworkAhead()) {
        // Fast-forward skipped the time to now and beyond: the network is busy later than this check.
        m_last = UINT64_MAX;
        m_event = ns3::Simulator::Schedule(ns3::PicoSeconds(m_intervalPs), &HangDetector::Check, this);
        return;
    }
    const uint64_t progress = m_progress();
    const bool stalled = m_stalled && m_stalled();
    if (stalled || (m_busy() && progress == m_last)) {
        m_hung = true;
        std::ostringstream s;
        const auto moving = stalled ? std::nullopt : m_fabric.LatestFrameOnTheWay();
        if (stalled) {
            s << "nothing is in flight and no event is pending, but the run is not finished, at "
              << static_cast<double>(simNowPs()) / 1e12 << " s\n";
        } else if (moving) {
            // Not a deadlock: frames still move, but no byte was delivered in a whole interval.
            m_tooSlow = true;
            s << "no byte was delivered for " << static_cast<double>(m_intervalPs) / 1e9 << " ms at "
              << static_cast<double>(simNowPs()) / 1e12
              << " s, but frames are still moving: the network is too slow for the hang check. The last to "
                 "arrive left node "
              << moving->nodeId << " port " << moving->port << " (" << describeRate(moving->rateBps) << ", "
              << static_cast<double>(moving->delayPs) / 1e6 << " us cable) and arrives in "
              << static_cast<double>(moving->arrivalPs - nowPs()) / 1e12
              << " s; expected progress within the hang-check interval: check that link's rate and delay, "
                 "or check less often (run.hang-check)\n";
        } else {
            s << "no progress for " << static_cast<double>(m_intervalPs) / 1e9 << " ms at "
              << static_cast<double>(simNowPs()) / 1e12 << " s\n";
        }
        if (m_describe) {
            s << m_describe();
        }
        s << m_fabric.DescribeActive() << m_fabric.DescribePauseCycle();
        m_report = s.str();
        ns3::Simulator::Stop();
        return;
    }
    m_last = progress;
    m_event = ns3::Simulator::Schedule(ns3::PicoSeconds(m_intervalPs), &HangDetector::Check, this);
}

}  // namespace mlnet::roce
