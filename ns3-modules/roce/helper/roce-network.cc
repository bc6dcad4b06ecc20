#include "roce-network.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "ns3/double.h"
#include "ns3/global-value.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include "event-heap-scheduler.h"
#include "pcap-writer.h"
#include "roce-timing.h"
#include "wire-format.h"

namespace mlnet::roce {

namespace {

std::string gbps(uint64_t bps) {
    std::ostringstream s;
    s << bps / 1e9 << " Gb/s";
    return s.str();
}

}  // namespace

void UsePicosecondTime() {
    if (ns3::Time::GetResolution() != ns3::Time::PS) {
        ns3::Time::SetResolution(ns3::Time::PS);
    }
    // Our flat heap: measured 2-3x faster than ns-3's map and calendar schedulers on the hpcc-bench runs.
    if (!std::getenv(
            "NS_GLOBAL_VALUE")) {  // users may still choose another scheduler through ns-3's variable
        ns3::GlobalValue::Bind("SchedulerType", ns3::TypeIdValue(EventHeapScheduler::GetTypeId()));
    }
}

RoceNetwork::RoceNetwork(const HpccTopologyFile& topology, RoceNetworkConfig config, Diagnostics& diag)
    : m_config(std::move(config)) {
    UsePicosecondTime();
    m_numNodes = topology.numNodes;
    m_cables = topology.cables;
    m_config.switches.intEnabled =
        m_config.nic.intEnabled;  // INT is end to end: switches stamp what NICs echo
    m_pool = std::make_unique<PacketPool>(m_config.nic.intEnabled);
    if (!m_config.ccFactory) {
        const uint64_t window = m_config.windowBytes;
        m_config.ccFactory = [window](const cc::FlowParams& flow) {
            return std::make_unique<cc::NoCongestionControl>(flow, window);
        };
    }
    m_hostOfNode.assign(m_numNodes, UINT32_MAX);
    m_switchOfNode.assign(m_numNodes, -1);
    m_nodes.resize(m_numNodes);
    m_adjacent.resize(m_numNodes);
    for (uint32_t id = 0; id < m_numNodes; ++id) {
        if (topology.isHost[id]) {
            m_hostOfNode[id] = static_cast<uint32_t>(m_hostNodeIds.size());
            m_hostNodeIds.push_back(id);
            m_nodes[id] = ns3::CreateObject<ns3::Node>();
        } else {
            ns3::Ptr<RoceSwitch> sw = ns3::CreateObject<RoceSwitch>();
            m_switchOfNode[id] = static_cast<int32_t>(m_switches.size());
            m_switches.push_back(sw);
            m_nodes[id] = sw;
        }
    }
    // One device at each end of every cable; a node's ports are numbered in cable order.
    std::vector<std::vector<ns3::Ptr<RoceNetDevice>>> devices(m_numNodes);
    for (uint32_t c = 0; c < m_cables.size(); ++c) {
        const auto& cable = m_cables[c];
        ns3::Ptr<RoceChannel> channel = ns3::CreateObject<RoceChannel>();
        channel->SetAttribute("DelayPs", ns3::UintegerValue(cable.delayNs * 1000));
        channel->SetAttribute("ErrorRate", ns3::DoubleValue(cable.errorRate));
        for (uint32_t end : {cable.a, cable.b}) {
            ns3::Ptr<RoceNetDevice> device = ns3::CreateObject<RoceNetDevice>();
            device->SetAttribute("RateBps", ns3::UintegerValue(cable.rateBps));
            device->SetAddress(ns3::Mac48Address::Allocate());
            m_nodes[end]->AddDevice(device);
            device->Attach(channel);
            m_adjacent[end].push_back(
                {end == cable.a ? cable.b : cable.a, static_cast<uint32_t>(devices[end].size()), c});
            devices[end].push_back(device);
        }
        m_channels.push_back(channel);
    }

    uint64_t nicRateBps = 0;
    for (uint32_t host = 0; host < m_hostNodeIds.size(); ++host) {
        const uint32_t id = m_hostNodeIds[host];
        if (devices[id].size() != 1) {
            diag.error("topology: host " + std::to_string(id) + " has " + std::to_string(devices[id].size()) +
                       " links; hosts must have exactly one NIC port");
            return;
        }
        nicRateBps = std::max(nicRateBps, devices[id][0]->RateBps());
    }
    if (!m_config.pcapPath.empty()) {
        m_pcap = std::make_unique<PcapWriter>(m_config.pcapPath);
        for (uint32_t id = 0; id < m_numNodes; ++id) {
            for (auto& d : devices[id]) {
                d->SetPcap(m_pcap.get(), id, m_config.nic.mtuPayloadBytes, m_config.nic.intEnabled,
                           &m_hostNodeIds);
            }
        }
    }

    for (uint32_t host = 0; host < m_hostNodeIds.size(); ++host) {
        const uint32_t id = m_hostNodeIds[host];
        ns3::Ptr<RoceNic> nic = ns3::CreateObject<RoceNic>();
        m_nodes[id]->AggregateObject(nic);
        nic->Setup(host, devices[id][0], m_pool.get(), m_config.nic, m_config.ccFactory);
        m_nicObjects.push_back(nic);
        m_nics.push_back(ns3::PeekPointer(nic));
    }
    for (RoceNic* nic : m_nics) {
        nic->SetPeers(&m_nics);
    }

    const uint32_t maxFrame =
        dataFrameBytes(m_config.nic.mtuPayloadBytes, m_config.nic.intEnabled ? intBytes(kMaxIntHops) : 0);
    for (uint32_t id = 0; id < m_numNodes; ++id) {
        if (m_switchOfNode[id] < 0) {
            continue;
        }
        MmuConfig mmu;
        mmu.bufferBytes = m_config.bufferBytes;
        mmu.reserveBytes = m_config.reserveBytes;
        mmu.pfcEnabled = m_config.pfcEnabled;
        mmu.ecnEnabled = m_config.ecnEnabled;
        for (std::size_t port = 0; port < devices[id].size(); ++port) {
            const auto& cable = m_cables[m_adjacent[id][port].cable];
            MmuPortConfig p;
            const double inflightBytes =
                2.0 * cable.delayNs * 1e-9 * cable.rateBps / 8 + 2.0 * (maxFrame + 20);
            p.headroomBytes = static_cast<uint64_t>(std::ceil(m_config.headroomFactor * inflightBytes));
            uint32_t shift = m_config.alphaShift;
            for (uint64_t r = nicRateBps * 2; r <= cable.rateBps && shift > 0; r *= 2) {
                --shift;  // faster ports get a larger share, as in the reference
            }
            p.alphaShift = shift;
            if (m_config.ecnEnabled) {
                auto rule = std::find_if(m_config.ecn.begin(), m_config.ecn.end(),
                                         [&](const EcnRule& e) { return e.rateBps == cable.rateBps; });
                if (rule == m_config.ecn.end()) {
                    diag.error("ECN thresholds (KMIN_MAP/KMAX_MAP/PMAX_MAP) have no entry for " +
                               gbps(cable.rateBps) + " links (switch " + std::to_string(id) + ")");
                    return;
                }
                p.kminBytes = rule->kminBytes;
                p.kmaxBytes = rule->kmaxBytes;
                p.pmax = rule->pmax;
            }
            mmu.ports.push_back(p);
        }
        m_switches[m_switchOfNode[id]]->Configure(devices[id], mmu, m_config.switches, m_pool.get(), id);
    }
    // PFC events as the reference logs them: at the device that received the frame.
    for (uint32_t id = 0; id < m_numNodes; ++id) {
        const bool isSwitch = m_switchOfNode[id] >= 0;
        for (auto& d : devices[id]) {
            d->TraceConnectWithoutContext(
                "Pause", ns3::MakeBoundCallback(&RoceNetwork::RecordPause, this, id, isSwitch));
        }
    }
    ComputeRoutes();
    m_nextSport.assign(m_hostNodeIds.size(), 10000);

    // GLOBAL_T: every flow uses the base RTT and BDP of the longest host pair.
    uint32_t farSrc = 0, farDst = m_hostNodeIds.size() > 1 ? 1 : 0;
    uint16_t farHops = 0;
    for (uint32_t dst = 0; dst < m_hostNodeIds.size(); ++dst) {
        for (uint32_t src = 0; src < m_hostNodeIds.size(); ++src) {
            const uint16_t h = m_hopsToHost[dst][m_hostNodeIds[src]];
            if (src != dst && h != UINT16_MAX && h > farHops) {
                farHops = h;
                farSrc = src;
                farDst = dst;
            }
        }
    }
    m_globalFlow = FlowParamsOf(farSrc, farDst);
}

RoceNetwork::~RoceNetwork() {
    if (m_pcap) {
        m_pcap->close();
    }
    ns3::Simulator::Destroy();
}

void RoceNetwork::RecordPause(RoceNetwork* self, uint32_t nodeId, bool isSwitch, uint32_t port,
                              uint8_t priority, bool pause, uint64_t) {
    self->m_pfc.push_back({nowPs(), nodeId, isSwitch, port, priority, pause});
}

void RoceNetwork::ComputeRoutes() {
    const uint32_t hosts = static_cast<uint32_t>(m_hostNodeIds.size());
    m_hopsToHost.assign(hosts, std::vector<uint16_t>(m_numNodes, UINT16_MAX));
    std::vector<uint32_t> queue;
    for (uint32_t h = 0; h < hosts; ++h) {
        std::vector<uint16_t>& dist = m_hopsToHost[h];
        const uint32_t start = m_hostNodeIds[h];
        dist[start] = 0;
        queue.assign(1, start);
        for (std::size_t i = 0; i < queue.size(); ++i) {
            const uint32_t v = queue[i];
            if (v != start && m_switchOfNode[v] < 0) {
                continue;  // hosts never forward
            }
            for (const Adjacent& a : m_adjacent[v]) {
                if (dist[a.node] == UINT16_MAX) {
                    dist[a.node] = static_cast<uint16_t>(dist[v] + 1);
                    queue.push_back(a.node);
                }
            }
        }
    }
    for (uint32_t id = 0; id < m_numNodes; ++id) {
        if (m_switchOfNode[id] < 0) {
            continue;
        }
        std::vector<uint32_t> begin(hosts + 1, 0);
        std::vector<uint16_t> ports;
        for (uint32_t h = 0; h < hosts; ++h) {
            begin[h] = static_cast<uint32_t>(ports.size());
            const uint16_t here = m_hopsToHost[h][id];
            for (const Adjacent& a : m_adjacent[id]) {
                const bool forwards = m_switchOfNode[a.node] >= 0 || a.node == m_hostNodeIds[h];
                if (forwards && here != UINT16_MAX && m_hopsToHost[h][a.node] + 1 == here) {
                    ports.push_back(static_cast<uint16_t>(a.port));
                }
            }
        }
        begin[hosts] = static_cast<uint32_t>(ports.size());
        m_switches[m_switchOfNode[id]]->SetRoutes(std::move(begin), std::move(ports),
                                                  m_config.seed * 0x9e3779b97f4a7c15ull + id);
    }
}

RoceNetwork::Path RoceNetwork::PathBetween(uint32_t srcHost, uint32_t dstHost) const {
    Path path;
    uint32_t node = m_hostNodeIds[srcHost];
    const uint32_t target = m_hostNodeIds[dstHost];
    const std::vector<uint16_t>& dist = m_hopsToHost[dstHost];
    path.bottleneckBps = UINT64_MAX;
    while (node != target && dist[node] != UINT16_MAX) {
        for (const Adjacent& a : m_adjacent[node]) {
            const bool forwards = m_switchOfNode[a.node] >= 0 || a.node == target;
            if (forwards && dist[a.node] + 1 == dist[node]) {
                const auto& cable = m_cables[a.cable];
                ++path.hops;
                path.delayNs += cable.delayNs;
                path.bottleneckBps = std::min(path.bottleneckBps, cable.rateBps);
                node = a.node;
                break;
            }
        }
    }
    return path;
}

cc::FlowParams RoceNetwork::FlowParamsOf(uint32_t srcHost, uint32_t dstHost) const {
    const Path path = PathBetween(srcHost, dstHost);
    cc::FlowParams flow;
    flow.mtuBytes = m_config.nic.mtuPayloadBytes;
    flow.lineRateBps = m_nics.empty() ? 0 : m_nics[srcHost]->Device()->RateBps();
    if (path.hops == 0) {
        flow.lineRateBps = flow.lineRateBps ? flow.lineRateBps : 1;
        return flow;
    }
    const uint32_t frame =
        dataFrameBytes(m_config.nic.mtuPayloadBytes, m_config.nic.intEnabled ? intBytes(0) : 0);
    const TimePs perHopPs = wireTimePs(frame, path.bottleneckBps);
    flow.baseRttNs = (2 * path.delayNs * 1000 + path.hops * perHopPs) / 1000;
    flow.bdpBytes = flow.baseRttNs * path.bottleneckBps / 8'000'000'000ull;
    return flow;
}

TimePs RoceNetwork::IdealFctPs(uint32_t srcHost, uint32_t dstHost, uint64_t sizeBytes) const {
    const Path path = PathBetween(srcHost, dstHost);
    const uint32_t mtu = m_config.nic.mtuPayloadBytes;
    const uint64_t packets = (sizeBytes + mtu - 1) / mtu;
    const uint32_t overhead =
        dataFrameBytes(mtu, m_config.nic.intEnabled ? intBytes(0) : 0) - mtu + kWireOverheadBytes;
    const uint64_t wireBytes = sizeBytes + packets * overhead;
    const cc::FlowParams flow = FlowParamsOf(srcHost, dstHost);
    return flow.baseRttNs * 1000 + bitsTimePs(wireBytes * 8, path.bottleneckBps);
}

void RoceNetwork::AddFlow(uint32_t srcNode, uint32_t dstNode, uint64_t sizeBytes, uint8_t priority,
                          uint16_t dport, TimePs startPs, std::function<void(const FctRecordPs&)> done) {
    const uint64_t id = m_flows.size();
    m_flows.push_back(
        {m_hostOfNode[srcNode], m_hostOfNode[dstNode], dport, priority, sizeBytes, std::move(done)});
    const TimePs now = nowPs();
    ns3::Simulator::Schedule(ns3::PicoSeconds(startPs > now ? startPs - now : 0), &RoceNetwork::StartFlow,
                             this, id);
}

void RoceNetwork::StartFlow(uint64_t flowId) {
    PendingFlow& f = m_flows[flowId];
    ++m_flowsStarted;
    const uint16_t sport = static_cast<uint16_t>(m_nextSport[f.srcHost]);
    m_nextSport[f.srcHost] = m_nextSport[f.srcHost] == 65535 ? 10000 : m_nextSport[f.srcHost] + 1;
    const cc::FlowParams params = m_config.globalBaseRtt ? m_globalFlow : FlowParamsOf(f.srcHost, f.dstHost);
    m_nics[f.srcHost]->StartFlow(flowId, f.dstHost, f.sizeBytes, f.priority, sport, params,
                                 [this, flowId](const FlowCompletion& c) {
                                     const PendingFlow& flow = m_flows[flowId];
                                     FctRecordPs r{flowId,
                                                   m_hostNodeIds[c.srcHost],
                                                   m_hostNodeIds[c.dstHost],
                                                   c.udpSrcPort,
                                                   flow.dport,
                                                   c.sizeBytes,
                                                   c.startPs,
                                                   c.finishPs,
                                                   IdealFctPs(c.srcHost, c.dstHost, c.sizeBytes)};
                                     m_fct.push_back(r);
                                     if (flow.done) {
                                         flow.done(r);
                                     }
                                     if (m_fct.size() == m_flows.size()) {
                                         ns3::Simulator::Stop();
                                     }
                                 });
}

bool RoceNetwork::ScheduleLinkDown(uint32_t nodeA, uint32_t nodeB, TimePs atPs) {
    for (uint32_t c = 0; c < m_cables.size(); ++c) {
        const auto& cable = m_cables[c];
        if ((cable.a == nodeA && cable.b == nodeB) || (cable.a == nodeB && cable.b == nodeA)) {
            const TimePs now = nowPs();
            ns3::Simulator::Schedule(ns3::PicoSeconds(atPs > now ? atPs - now : 0), &RoceChannel::SetDown,
                                     m_channels[c]);
            return true;
        }
    }
    return false;
}

uint64_t RoceNetwork::TotalDrops() const {
    uint64_t drops = 0;
    for (const auto& sw : m_switches) {
        drops += sw->Drops();
    }
    for (const auto& ch : m_channels) {
        drops += ch->Lost();
    }
    return drops;
}

bool RoceNetwork::Run(TimePs stopPs) {
    m_hung = false;
    m_hangReport.clear();
    if (m_flows.empty()) {
        return true;
    }
    ns3::Simulator::Schedule(ns3::PicoSeconds(m_config.hangCheckPs), &RoceNetwork::CheckProgress, this);
    ns3::Simulator::Stop(ns3::PicoSeconds(stopPs > nowPs() ? stopPs - nowPs() : 0));
    ns3::Simulator::Run();
    for (uint32_t id = 0; id < m_numNodes; ++id) {
        for (uint32_t i = 0; i < m_nodes[id]->GetNDevices(); ++i) {
            m_dataHops += ns3::DynamicCast<RoceNetDevice>(m_nodes[id]->GetDevice(i))->TxDataFrames();
        }
    }
    if (!m_hung && m_fct.size() < m_flows.size()) {
        std::ostringstream s;
        s << "stopped at the time limit (" << stopPs / 1e12 << " s) with " << m_flows.size() - m_fct.size()
          << " of " << m_flows.size() << " flows unfinished\n";
        for (RoceNic* nic : m_nics) {
            s << nic->DescribeActive();
        }
        m_hangReport = s.str();
    }
    return m_fct.size() == m_flows.size();
}

void RoceNetwork::CheckProgress() {
    // A flow that started since the last check counts as progress: it has not had a whole interval yet.
    uint64_t progress = m_fct.size() + m_flowsStarted;
    for (RoceNic* nic : m_nics) {
        progress += nic->DeliveredBytes();
    }
    const bool flowsRunning = m_flowsStarted > m_fct.size();
    if (flowsRunning && progress == m_lastProgress) {
        m_hung = true;
        std::ostringstream s;
        s << "no data delivered for " << m_config.hangCheckPs / 1e9 << " ms with "
          << m_flowsStarted - m_fct.size() << " flows unfinished at " << nowPs() / 1e12 << " s\n";
        for (RoceNic* nic : m_nics) {
            s << nic->DescribeActive();
        }
        s << DescribePauseCycle();
        m_hangReport = s.str();
        ns3::Simulator::Stop();
        return;
    }
    m_lastProgress = progress;
    ns3::Simulator::Schedule(ns3::PicoSeconds(m_config.hangCheckPs), &RoceNetwork::CheckProgress, this);
}

std::string RoceNetwork::DescribePauseCycle() const {
    // Wait-for graph between switches: A waits for B when A's port towards B is paused for a class in which A
    // still has queued packets. A cycle there is a PFC deadlock.
    std::vector<std::vector<uint32_t>> waitsFor(m_numNodes);
    std::ostringstream paused;
    for (uint32_t id = 0; id < m_numNodes; ++id) {
        if (m_switchOfNode[id] < 0) {
            continue;
        }
        const RoceSwitch& sw = *m_switches[m_switchOfNode[id]];
        for (uint32_t port = 0; port < sw.NumPorts(); ++port) {
            const uint8_t mask = sw.PortDevice(port)->PausedMask();
            if (mask && sw.Mmu().egressPortBytes(port) > 0) {
                const uint32_t peer = m_adjacent[id][port].node;
                waitsFor[id].push_back(peer);
                paused << "  switch " << id << " port " << port << " (to node " << peer << ") paused, mask 0x"
                       << std::hex << int{mask} << std::dec << ", " << sw.Mmu().egressPortBytes(port)
                       << " B queued\n";
            }
        }
    }
    std::vector<int> state(m_numNodes, 0);
    std::vector<uint32_t> stack;
    std::string cycle;
    std::function<bool(uint32_t)> dfs = [&](uint32_t v) {
        state[v] = 1;
        stack.push_back(v);
        for (uint32_t w : waitsFor[v]) {
            if (state[w] == 1) {
                auto it = std::find(stack.begin(), stack.end(), w);
                for (; it != stack.end(); ++it) {
                    cycle += std::to_string(*it) + " -> ";
                }
                cycle += std::to_string(w);
                return true;
            }
            if (state[w] == 0 && dfs(w)) {
                return true;
            }
        }
        stack.pop_back();
        state[v] = 2;
        return false;
    };
    for (uint32_t v = 0; v < m_numNodes && cycle.empty(); ++v) {
        if (state[v] == 0 && !waitsFor[v].empty()) {
            dfs(v);
        }
    }
    std::string out = paused.str();
    if (!cycle.empty()) {
        out += "PFC pause cycle (deadlock): " + cycle + "\n";
    }
    return out;
}

}  // namespace mlnet::roce
