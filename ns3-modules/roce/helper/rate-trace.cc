#include "rate-trace.h"

#include <algorithm>

#include "ns3/callback.h"

#include "roce-timing.h"
#include "util/units.h"

namespace mlnet::roce {

std::optional<SwitchPort> parseSwitchPort(const std::string& text) {
    const std::size_t colon = text.find(':');
    uint64_t node = 0, port = 0;
    if (colon == std::string::npos ||
        parseUnsignedInteger(std::string_view(text).substr(0, colon), node) != NumberStatus::Ok ||
        parseUnsignedInteger(std::string_view(text).substr(colon + 1), port) != NumberStatus::Ok ||
        node > UINT32_MAX || port > UINT32_MAX) {
        return std::nullopt;
    }
    return SwitchPort{static_cast<uint32_t>(node), static_cast<uint32_t>(port)};
}

RateTrace::RateTrace(RoceFabric& fabric, const std::string& path, std::optional<SwitchPort> port,
                     const std::string& option, Diagnostics& diag)
    : m_fabric(fabric), m_portOnly(port.has_value()) {
    if (port) {
        const RoceSwitch* found = nullptr;
        for (const auto& sw : fabric.Switches()) {
            if (sw->NodeId() == port->nodeId && sw->Vertex() >= fabric.NumHosts()) {
                found = ns3::PeekPointer(sw);
            }
        }
        if (!found || port->port >= found->NumPorts()) {
            diag.error(option + "=" + std::to_string(port->nodeId) + ":" + std::to_string(port->port) + ": " +
                       (found ? "switch " + std::to_string(port->nodeId) + " has " +
                                    std::to_string(found->NumPorts()) + " ports (0.." +
                                    std::to_string(found->NumPorts() - 1) + ")"
                              : "node " + std::to_string(port->nodeId) + " is not a switch of the network"));
            return;
        }
        found->PortDevice(port->port)
            ->TraceConnectWithoutContext("Tx", ns3::MakeBoundCallback(&RateTrace::OnTx, this));
    }
    m_out = std::make_unique<LineStream>(path, diag);
    m_contexts.reserve(fabric.NumHosts());  // bound by address below: never reallocated
    for (uint32_t h = 0; h < fabric.NumHosts(); ++h) {
        m_contexts.push_back({this, fabric.NodeIdOfHost(h)});
        fabric.Nic(h).TraceConnectWithoutContext(
            "Rate", ns3::MakeBoundCallback(&RateTrace::OnRate, &m_contexts.back()));
    }
}

std::string RateTrace::Line(const Record& r) {
    return std::to_string(psToNs(r.timePs)) + " " + std::to_string(r.srcNode) + " " + std::to_string(r.flow) +
           " " + std::to_string(r.rateBps) + " " + std::to_string(r.windowBytes) + "\n";
}

void RateTrace::OnRate(NicContext* context, uint64_t flow, uint64_t rateBps, uint64_t windowBytes) {
    RateTrace& t = *context->trace;
    const Record record{simNowPs(), context->nodeId, flow, rateBps, windowBytes};
    if (!t.m_portOnly) {
        t.m_out->add(Line(record));
        return;
    }
    const auto it = t.m_flows.find(flow);
    if (it != t.m_flows.end()) {
        it->second.rateBps = rateBps;
        it->second.windowBytes = windowBytes;
        t.m_held.push_back(record);
    }
}

void RateTrace::OnTx(RateTrace* t, const RocePacket* packet) {
    if (packet->kind != PacketKind::Data) {
        return;  // the ACKs and CNPs of flows the other way
    }
    const TimePs now = simNowPs();
    auto [it, first] = t->m_flows.try_emplace(packet->flow);
    FlowAtPort& f = it->second;
    f.lastPs = now;
    if (first) {
        f.srcNode = t->m_fabric.NodeIdOfHost(packet->srcHost);
        if (!t->m_fabric.Nic(packet->srcHost)
                 .FlowRate(packet->srcQp, packet->flow, f.rateBps, f.windowBytes)) {
            f.rateBps = f.windowBytes = 0;  // its sender is done already (a late retransmission)
        }
        t->m_held.push_back({now, f.srcNode, packet->flow, f.rateBps, f.windowBytes});
    }
}

bool RateTrace::Commit() {
    if (!m_out) {
        return false;
    }
    if (m_portOnly) {
        for (const auto& [flow, f] : m_flows) {
            m_held.push_back({f.lastPs, f.srcNode, flow, f.rateBps, f.windowBytes});
        }
        std::stable_sort(m_held.begin(), m_held.end(), [](const Record& a, const Record& b) {
            return a.timePs != b.timePs ? a.timePs < b.timePs : a.flow < b.flow;
        });
        for (const Record& r : m_held) {
            m_out->add(Line(r));
        }
        m_held.clear();
    }
    return m_out->commit();
}

}  // namespace mlnet::roce
