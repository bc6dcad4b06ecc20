#include "background-traffic.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ns3/double.h"
#include "ns3/simulator.h"

#include "roce-timing.h"

namespace mlnet::roce {

BackgroundTraffic::BackgroundTraffic(RoceFabric& fabric, const BackgroundSettings& settings,
                                     Diagnostics& diag)
    : m_fabric(fabric),
      m_settings(settings),
      m_gap(ns3::CreateObject<ns3::ExponentialRandomVariable>()),
      m_uniform(ns3::CreateObject<ns3::UniformRandomVariable>()) {
    const std::string where = settings.source + ": key 'background";
    m_cdf = FlowSizeCdf::Load(settings.flowSizeCdf, diag);
    m_hosts = settings.hosts;
    if (m_hosts.empty()) {
        for (uint32_t h = 0; h < fabric.NumHosts(); ++h) {
            if (!fabric.Spec().vertices[h].reductionEngine) {
                m_hosts.push_back(h);
            }
        }
    }
    for (uint32_t h : m_hosts) {
        if (h >= fabric.NumHosts()) {
            diag.error(where + ".hosts': host index " + std::to_string(h) + " is not below the " +
                       std::to_string(fabric.NumHosts()) + " hosts of the network");
            return;
        }
        if (fabric.Spec().vertices[h].reductionEngine) {
            diag.error(
                where + ".hosts': host index " + std::to_string(h) +
                " is a switch's reduction engine, which sends and receives only in-network reductions");
            return;
        }
    }
    if (m_hosts.size() < 2) {
        diag.error(where + "': background traffic needs at least two hosts; the network has " +
                   std::to_string(m_hosts.size()));
        return;
    }
    if (!m_cdf) {
        return;
    }
    // The load counts payload bytes; what the NIC carries also has each packet's headers and gap. A load
    // whose frames exceed the line rate never drains: flows pile up until memory runs out.
    const double meanBytes = m_cdf->MeanBytes();
    const NicSettings& nic = fabric.Settings().nic;
    const double payload = nic.mtuPayloadBytes;
    const double perPacket = static_cast<double>(nic.frames.Data(nic.mtuPayloadBytes, nic.intEnabled) -
                                                 nic.mtuPayloadBytes + nic.frames.OverheadBytes());
    const double framedLoad =
        settings.load * (meanBytes + std::max(1.0, meanBytes / payload) * perPacket) / meanBytes;
    if (framedLoad > 1) {
        char what[256];
        std::snprintf(
            what, sizeof what,
            ".load': %g of flows averaging %.0f B is %.3g times each NIC's rate once every packet's "
            "%.0f B of headers and gap are counted; expected a load whose frames fit (at most "
            "%.3g here)",
            settings.load, meanBytes, framedLoad, perPacket, settings.load / framedLoad);
        diag.error(where + what);
        return;
    }
    m_gap->SetAttribute("Mean", ns3::DoubleValue(1.0));
    for (uint32_t h : m_hosts) {
        const double rateBps = static_cast<double>(fabric.Nic(h).Device()->RateBps());
        const double flowsPerSecond = settings.load * rateBps / (8 * meanBytes);
        m_meanGapPs.push_back(1e12 / flowsPerSecond);
    }
}

int64_t BackgroundTraffic::AssignStreams(int64_t stream) {
    m_gap->SetStream(stream);
    m_uniform->SetStream(stream + 1);
    return 2;
}

void BackgroundTraffic::Start() {
    for (uint32_t i = 0; i < m_hosts.size(); ++i) {
        ns3::Simulator::Schedule(ns3::PicoSeconds(static_cast<uint64_t>(m_gap->GetValue() * m_meanGapPs[i])),
                                 &BackgroundTraffic::Arrival, this, i);
    }
}

void BackgroundTraffic::Arrival(uint32_t index) {
    const uint32_t src = m_hosts[index];
    uint32_t dst = src;
    while (dst == src) {  // ends: the hosts are distinct and at least two (network-description.cc)
        dst = m_hosts[static_cast<std::size_t>(m_uniform->GetValue() * static_cast<double>(m_hosts.size())) %
                      m_hosts.size()];
    }
    const uint64_t size = m_cdf->SizeAt(m_uniform->GetValue());
    ++m_started;
    m_bytes += size;
    m_fabric.StartMessage(m_next++, src, dst, size, m_settings.trafficClass, [this](const FlowCompletion& c) {
        const double ideal = static_cast<double>(m_fabric.IdealFctPs(c.srcHost, c.dstHost, c.sizeBytes));
        m_slowdowns.push_back(std::max(1.0, static_cast<double>(c.finishPs - c.startPs) / ideal));
    });
    ns3::Simulator::Schedule(ns3::PicoSeconds(static_cast<uint64_t>(m_gap->GetValue() * m_meanGapPs[index])),
                             &BackgroundTraffic::Arrival, this, index);
}

nlohmann::ordered_json BackgroundTraffic::Summary() const {
    std::vector<double> s = m_slowdowns;
    std::sort(s.begin(), s.end());
    auto at = [&](double q) {
        return s.empty() ? 0.0
                         : s[std::min(s.size() - 1, static_cast<std::size_t>(std::ceil(q * s.size())) - 1)];
    };
    return {{"flow_size_cdf", m_settings.flowSizeCdf},
            {"load", m_settings.load},
            {"hosts", m_hosts.size()},
            {"traffic_class", m_settings.trafficClass},
            {"flows_started", m_started},
            {"flows_finished", m_slowdowns.size()},
            {"bytes_offered", m_bytes},
            {"fct_slowdown", {{"p50", at(0.5)}, {"p95", at(0.95)}, {"p99", at(0.99)}}}};
}

}  // namespace mlnet::roce
