#include "hpcc-flow-runner.h"

#include <algorithm>

#include <sstream>

#include "ns3/simulator.h"

#include "roce-timing.h"

namespace mlnet::roce {

HpccFlowRunner::HpccFlowRunner(RoceFabric& fabric, TimePs hangCheckPs)
    : m_fabric(fabric),
      m_hang(
          fabric, hangCheckPs,
          // A flow that started since the last check counts as progress: it has not had a whole interval yet.
          [this] { return m_finished + m_started + m_fabric.DeliveredBytes(); },
          [this] { return m_started > m_finished; },
          [this] {
              return std::to_string(m_started - m_finished) + " of " + std::to_string(m_flows.size()) +
                     " flows unfinished\n";
          }) {}

void HpccFlowRunner::AddFlow(uint32_t srcNode, uint32_t dstNode, uint64_t sizeBytes, uint8_t priority,
                             uint16_t dport, TimePs startPs, std::function<void(const FctRecordPs&)> done) {
    const uint64_t id = m_flows.size();
    m_flows.push_back({m_fabric.HostOfNodeId(srcNode), m_fabric.HostOfNodeId(dstNode), dport, priority,
                       sizeBytes, std::move(done)});
    // The reference's order covers its flow file, read before the run; a flow added once the first run has
    // begun (from a completion callback, or between two runs) is scheduled directly: queued behind the
    // file's pending starts it would wait for the next of them.
    if (m_referenceStartOrder && !m_runBegun) {
        m_starts.emplace_back(startPs, id);
        return;
    }
    const TimePs now = simNowPs();
    ns3::Simulator::Schedule(ns3::PicoSeconds(startPs > now ? startPs - now : 0), &HpccFlowRunner::StartFlow,
                             this, id);
}

void HpccFlowRunner::ArmStarts() {
    if (m_startsArmed || m_nextStart >= m_starts.size()) {
        return;  // one pending StartDueFlows at a time, also across Run() calls
    }
    m_startsArmed = true;
    const TimePs now = simNowPs();
    const TimePs at = std::max(m_starts[m_nextStart].first, now);
    ns3::Simulator::Schedule(ns3::PicoSeconds(at - now), &HpccFlowRunner::StartDueFlows, this);
}

void HpccFlowRunner::StartDueFlows() {
    m_startsArmed = false;
    const TimePs now = simNowPs();
    // In file order, as long as starts are due (the reference stops at the first later one; a file out of
    // order starts its late lines at once instead of failing).
    while (m_nextStart < m_starts.size() && m_starts[m_nextStart].first <= now) {
        ns3::Simulator::ScheduleNow(&HpccFlowRunner::StartFlow, this, m_starts[m_nextStart].second);
        ++m_nextStart;
    }
    ArmStarts();
}

void HpccFlowRunner::StartFlow(uint64_t flowId) {
    const PendingFlow& f = m_flows[flowId];
    ++m_started;
    m_fabric.StartMessage(
        flowId, f.srcHost, f.dstHost, f.sizeBytes, f.priority,
        [this, flowId](const FlowCompletion& c) {
            const PendingFlow& flow = m_flows[flowId];
            FctRecordPs r{flowId,
                          m_fabric.NodeIdOfHost(c.srcHost),
                          m_fabric.NodeIdOfHost(c.dstHost),
                          c.udpSrcPort,
                          flow.dport,
                          c.sizeBytes,
                          c.startPs,
                          c.finishPs,
                          m_fabric.IdealFctPs(c.srcHost, c.dstHost, c.sizeBytes)};
            ++m_finished;
            if (m_fctSink) {
                m_fctSink(r);
            } else {
                m_fct.push_back(r);
            }
            if (flow.done) {
                flow.done(r);
            }
            if (m_finished == m_flows.size()) {
                ns3::Simulator::Stop();
            }
        },
        nullptr, f.dport);
}

bool HpccFlowRunner::Run(TimePs stopPs) {
    m_hangReport.clear();
    if (m_flows.empty()) {
        return true;
    }
    m_hang.Start();
    m_runBegun = true;
    if (m_nextStart < m_starts.size()) {  // queued in the reference's order, whatever the flag says now
        ArmStarts();
    }
    ns3::Simulator::Stop(ns3::PicoSeconds(stopPs > simNowPs() ? stopPs - simNowPs() : 0));
    ns3::Simulator::Run();
    if (m_hang.Hung()) {
        m_hangReport = m_hang.Report();
    } else if (m_finished < m_flows.size()) {
        std::ostringstream s;
        s << "stopped at the time limit (" << static_cast<double>(stopPs) / 1e12 << " s) with "
          << m_flows.size() - m_finished << " of " << m_flows.size() << " flows unfinished\n"
          << m_fabric.DescribeActive();
        m_hangReport = s.str();
    }
    return m_finished == m_flows.size();
}

}  // namespace mlnet::roce
