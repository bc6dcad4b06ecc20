#include "background-traffic.h"

#include <algorithm>
#include <cmath>

#include "ns3/double.h"
#include "ns3/simulator.h"

#include "roce-timing.h"
#include "util/text-lines.h"
#include "util/units.h"

namespace mlnet::roce {

std::optional<FlowSizeCdf> FlowSizeCdf::Load(const std::string& path, Diagnostics& diag) {
    std::string text;
    if (!readTextFile(path, text, diag, "flow-size distribution")) {
        return std::nullopt;
    }
    FlowSizeCdf cdf;
    for (const TextLine& line : tokenizeLines(text)) {
        double size = 0, percent = 0;
        if (line.tokens.size() != 2 || !parsePlainReal(line.tokens[0], size) ||
            !parsePlainReal(line.tokens[1], percent) || size < 0 || percent < 0 || percent > 100) {
            diag.error(atLine(path, line.number) + ": expected '<size bytes> <cumulative percent 0..100>'");
            return std::nullopt;
        }
        if (!cdf.m_points.empty() &&
            (size < cdf.m_points.back().first || percent < cdf.m_points.back().second * 100)) {
            diag.error(atLine(path, line.number) + ": sizes and percentages must not decrease");
            return std::nullopt;
        }
        cdf.m_points.emplace_back(size, percent / 100);
    }
    if (cdf.m_points.size() < 2 || cdf.m_points.back().second < 1 || cdf.m_points.back().first < 1) {
        diag.error(path +
                   ": expected at least two points, ending at 100 percent with a size of at least 1 byte");
        return std::nullopt;
    }
    return cdf;
}

uint64_t FlowSizeCdf::SizeAt(double u) const {
    for (std::size_t i = 1; i < m_points.size(); ++i) {
        const auto [s0, p0] = m_points[i - 1];
        const auto [s1, p1] = m_points[i];
        if (u < p1 || i + 1 == m_points.size()) {
            const double size = p1 > p0 ? s0 + (u - p0) / (p1 - p0) * (s1 - s0) : s1;
            return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(size)));
        }
    }
    return 1;
}

double FlowSizeCdf::MeanBytes() const {
    double mean = 0;
    for (std::size_t i = 1; i < m_points.size(); ++i) {
        mean +=
            (m_points[i].second - m_points[i - 1].second) * (m_points[i].first + m_points[i - 1].first) / 2;
    }
    return std::max(mean, 1.0);
}

BackgroundTraffic::BackgroundTraffic(RoceFabric& fabric, const BackgroundSettings& settings, uint64_t seed,
                                     Diagnostics& diag)
    : m_fabric(fabric),
      m_settings(settings),
      m_gap(ns3::CreateObject<ns3::ExponentialRandomVariable>()),
      m_uniform(ns3::CreateObject<ns3::UniformRandomVariable>()) {
    m_cdf = FlowSizeCdf::Load(settings.flowSizeCdf, diag);
    m_hosts = settings.hosts;
    if (m_hosts.empty()) {
        for (uint32_t h = 0; h < fabric.NumHosts(); ++h) {
            m_hosts.push_back(h);
        }
    }
    for (uint32_t h : m_hosts) {
        if (h >= fabric.NumHosts()) {
            diag.error("background.hosts: host index " + std::to_string(h) + " is not below the " +
                       std::to_string(fabric.NumHosts()) + " hosts of the network");
            return;
        }
    }
    if (m_hosts.size() < 2) {
        diag.error("background.hosts: background traffic needs at least two hosts");
        return;
    }
    if (!m_cdf) {
        return;
    }
    // Streams of their own, so the background's draws do not depend on how many other random variables exist.
    m_gap->SetStream(static_cast<int64_t>(1000 + 2 * seed));
    m_uniform->SetStream(static_cast<int64_t>(1001 + 2 * seed));
    m_gap->SetAttribute("Mean", ns3::DoubleValue(1.0));
    for (uint32_t h : m_hosts) {
        const double rateBps = static_cast<double>(fabric.Nic(h).Device()->RateBps());
        const double flowsPerSecond = settings.load * rateBps / (8 * m_cdf->MeanBytes());
        m_meanGapPs.push_back(1e12 / flowsPerSecond);
    }
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
    while (dst == src) {
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
