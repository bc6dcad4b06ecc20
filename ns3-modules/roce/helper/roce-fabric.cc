#include "roce-fabric.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <sstream>

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/global-value.h"
#include "ns3/nstime.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include "pcap-writer.h"
#include "roce-simulator-impl.h"
#include "roce-timing.h"
#include "util/huge-page-heap.h"
#include "wire-format.h"

namespace mlnet::roce {

void UsePicosecondTime() {
    if (ns3::Time::GetResolution() != ns3::Time::PS) {
        ns3::Time::SetResolution(ns3::Time::PS);
    }
    // Our implementation runs the model's per-packet events without EventImpl allocations (see
    // roce-simulator-impl.h). Users may still choose another implementation or scheduler through ns-3's
    // NS_GLOBAL_VALUE; the model then runs its light events as ordinary ns-3 events.
    if (!std::getenv("NS_GLOBAL_VALUE")) {
        ns3::GlobalValue::Bind("SimulatorImplementationType",
                               ns3::StringValue(RoceSimulatorImpl::GetTypeId().GetName()));
    }
}

SimulatorSession::~SimulatorSession() {
    ns3::Simulator::Destroy();
}

RoceFabric::RoceFabric(std::shared_ptr<const TopologySpec> spec, FabricSettings settings, Diagnostics& diag)
    : m_spec(std::move(spec)), m_settings(std::move(settings)) {
    UsePicosecondTime();
    const TopologySpec& t = *m_spec;
    const uint32_t vertices = t.numVertices(), hosts = t.numHosts();
    const std::size_t ports = 2 * t.cables.size();
    if (m_settings.hugePageHeap && ports >= kHugePageMinPorts) {
        adviseHugePagesForHeap();  // before anything of the network is allocated
    }
    m_routing = Routing::build(t, m_settings.seed, m_settings.ecmp);
    m_settings.switches.intEnabled =
        m_settings.nic.intEnabled;  // INT is end to end: switches stamp what NICs echo
    m_settings.switches.queueIntegral = m_settings.fastForward.enabled;
    m_pool = std::make_unique<PacketPool>(m_settings.nic.intEnabled,
                                          m_settings.nic.intEnabled ? LongestRouteHops() : 0);
    if (!m_settings.ccFactory) {
        const uint64_t window = m_settings.windowBytes;
        m_settings.ccFactory = [window](const cc::FlowParams& flow) {
            return std::make_unique<cc::NoCongestionControl>(flow, window);
        };
    }
    for (uint32_t h = 0; h < hosts; ++h) {
        const uint32_t id = t.vertices[h].originalId;
        m_hostOfNodeId.resize(std::max<std::size_t>(m_hostOfNodeId.size(), id + 1), UINT32_MAX);
        m_hostOfNodeId[id] = h;
        m_hostNodeIds.push_back(id);
    }
    // Hosts that forward are switches with their NIC inside; other hosts are plain nodes.
    const bool npusForward = t.hostsForward();
    m_nodes.resize(vertices);
    for (uint32_t v = 0; v < vertices; ++v) {
        if (v < hosts && !npusForward) {
            m_nodes[v] = ns3::CreateObject<ns3::Node>();
        } else {
            ns3::Ptr<RoceSwitch> sw = ns3::CreateObject<RoceSwitch>();
            m_switches.push_back(sw);
            m_nodes[v] = sw;
        }
    }
    // One device at each end of every cable; a vertex's ports are its cables in cable order.
    m_devices.resize(vertices);
    for (uint32_t c = 0; c < t.cables.size(); ++c) {
        const SpecCable& cable = t.cables[c];
        ns3::Ptr<RoceChannel> channel = ns3::CreateObject<RoceChannel>();
        channel->SetAttribute("Delay", ns3::TimeValue(ns3::PicoSeconds(static_cast<int64_t>(cable.delayPs))));
        channel->SetAttribute(
            "ErrorRate",
            ns3::DoubleValue(cable.errorRate > 0 ? cable.errorRate : m_settings.defaultErrorRate));
        for (uint32_t end : {cable.a, cable.b}) {
            ns3::Ptr<RoceNetDevice> device = ns3::CreateObject<RoceNetDevice>();
            device->SetAttribute("DataRate", ns3::DataRateValue(ns3::DataRate(cable.rateBps)));
            device->SetFrameCharges(m_settings.nic.frames);
            device->SetPauseUntilResume(m_settings.referencePfc);
            device->SetArrivalHintAtPreviousFrame(ports >= kLateArrivalHintMinPorts);
            device->SetAddress(ns3::Mac48Address::Allocate());
            m_nodes[end]->AddDevice(device);
            device->Attach(channel);
            m_devices[end].push_back(device);
        }
        m_channels.push_back(channel);
    }

    uint64_t nicRateBps = 0;
    for (uint32_t h = 0; h < hosts; ++h) {
        for (const auto& d : m_devices[h]) {
            nicRateBps = std::max(nicRateBps, d->RateBps());
        }
    }
    if (!m_settings.pcapPath.empty()) {
        m_pcap = std::make_unique<PcapWriter>(m_settings.pcapPath, diag);
        for (uint32_t v = 0; v < vertices; ++v) {
            for (auto& d : m_devices[v]) {
                d->SetPcap(m_pcap.get(), t.vertices[v].originalId, m_settings.nic.mtuPayloadBytes,
                           m_settings.nic.intEnabled, &m_hostNodeIds);
            }
        }
    }

    for (uint32_t h = 0; h < hosts; ++h) {
        ns3::Ptr<RoceNic> nic = ns3::CreateObject<RoceNic>();
        m_nodes[h]->AggregateObject(nic);
        RoceSwitch* owner = npusForward ? ns3::PeekPointer(m_switches[h]) : nullptr;
        nic->Setup(h, m_devices[h], m_pool.get(), m_settings.nic, m_settings.ccFactory, m_routing.get(),
                   m_spec.get(), owner);
        if (owner) {
            owner->AttachLocalNic(ns3::PeekPointer(nic), h);
        }
        m_nicObjects.push_back(nic);
        m_nics.push_back(ns3::PeekPointer(nic));
    }
    // A one-message connection closes with its message; its receive side closes with it.
    for (RoceNic* nic : m_nics) {
        nic->SetConnectionClosedHook(
            [this](const FlowCompletion& c) { m_nics[c.dstHost]->CloseReceive(c.dstContext); });
    }
    if (m_settings.referenceMarkingDraws) {
        const auto lossy = static_cast<uint64_t>(std::count_if(
            t.cables.begin(), t.cables.end(), [](const SpecCable& c) { return c.errorRate > 0; }));
        m_referenceDraws =
            std::make_unique<FreshStreamDraws>(ns3::RngSeedManager::GetSeed(), ns3::RngSeedManager::GetRun(),
                                               FreshStreamDraws::ReferenceFirstStream(vertices, lossy));
    }
    for (uint32_t v = npusForward ? 0 : hosts, index = 0; v < vertices; ++v, ++index) {
        MmuConfig mmu;
        if (!ConfigurePorts(v, m_devices[v], nicRateBps, mmu, diag)) {
            return;
        }
        RoceSwitch& sw = *m_switches[index];
        SwitchSettings switchSettings = m_settings.switches;
        switchSettings.refreshPauses = switchSettings.refreshPauses && !m_settings.referencePfc;
        sw.Configure(m_devices[v], mmu, switchSettings, m_pool.get(), t.vertices[v].originalId);
        sw.SetRouting(m_routing.get(), v);
        sw.SetReferenceDraws(m_referenceDraws.get());
    }
    // PFC events as the reference logs them: at the device that received the frame.
    for (uint32_t v = 0; v < vertices; ++v) {
        for (auto& d : m_devices[v]) {
            d->TraceConnectWithoutContext(
                "Pause", ns3::MakeBoundCallback(&RoceFabric::RecordPause, this, t.vertices[v].originalId,
                                                t.isSwitch(v)));
        }
    }
    m_flowPorts.resize(hosts);

    // GLOBAL_T: every flow uses the base RTT and BDP of the longest host pair, found by two sweeps of
    // breadth-first search (exact on trees and the symmetric networks builders make; no all-pairs loop).
    auto farthest = [&](uint32_t from) {
        std::vector<uint32_t> dist(vertices, UINT32_MAX), queue{from};
        dist[from] = 0;
        uint32_t best = from;
        for (std::size_t head = 0; head < queue.size(); ++head) {
            const uint32_t u = queue[head];
            if (u < hosts && dist[u] > dist[best]) {
                best = u;
            }
            if (u != from && u < hosts && !npusForward) {
                continue;  // hosts do not forward
            }
            for (uint32_t p = 0; p < t.numPorts(u); ++p) {
                const uint32_t w = t.portPeer(u, p);
                if (dist[w] == UINT32_MAX) {
                    dist[w] = dist[u] + 1;
                    queue.push_back(w);
                }
            }
        }
        return best;
    };
    const uint32_t far = farthest(0);
    const uint32_t farther = farthest(far);
    m_globalFlow = far == farther ? FlowParamsOf(0, hosts > 1 ? 1 : 0) : FlowParamsOf(far, farther);
    // The network-wide BDP must cover the fastest host port too: on networks whose ports differ in rate
    // (multi-dimensional ones) the farthest pair may cross only slow links, and a window of its BDP would
    // hold a fast port's flows below their line rate. Each flow takes its own port's part of it (cc::onPort).
    uint64_t fastestHostPortBps = 0;
    for (const SpecCable& cable : m_spec->cables) {
        if (cable.a < hosts || cable.b < hosts) {
            fastestHostPortBps = std::max(fastestHostPortBps, cable.rateBps);
        }
    }
    m_globalFlow.bdpBytes = std::max<uint64_t>(
        m_globalFlow.bdpBytes, m_globalFlow.baseRttNs * fastestHostPortBps / 8'000'000'000ull);
    // Fixed streams: a switch's marking draws do not move when some other object creates a random variable.
    m_streamsUsed = AssignStreams(0);
    if (m_settings.fastForward.enabled) {
        std::vector<RoceSwitch*> switches;
        for (const auto& sw : m_switches) {
            switches.push_back(ns3::PeekPointer(sw));
        }
        std::vector<RoceNetDevice*> devices;
        for (const auto& vertexDevices : m_devices) {
            for (const auto& d : vertexDevices) {
                devices.push_back(ns3::PeekPointer(d));
            }
        }
        m_fastForward = std::make_unique<FabricFastForward>(
            m_settings.fastForward, m_nics, std::move(switches), std::move(devices), &m_pauseFrames,
            m_settings.nic.mtuPayloadBytes, m_settings.nic.ackChunkBytes);
    }
    if (m_settings.scaleUp == FabricSettings::ScaleUp::Fluid) {
        m_scaleUp = std::make_unique<ScaleUpFluid>(*m_spec, *m_routing);
        if (!m_scaleUp->Any()) {
            m_scaleUp.reset();
        }
    }
    if (m_settings.memoizeEpisodes) {
        if (m_settings.reuseConnections || m_settings.fastForward.enabled) {
            diag.error(
                "memoized episodes (--memoize-episodes) need one queue pair per message (\"nic\": "
                "{\"connections\": "
                "\"per-message\"}, the default) and fast-forward off");
            return;
        }
        EpisodeMemo::Fabric hooks;
        hooks.sourcePort = [this](uint32_t src, uint32_t dst) { return NextSourcePort(src, dst); };
        hooks.start = [this](uint64_t id, uint32_t src, uint32_t dst, uint64_t size, uint8_t priority,
                             uint16_t sport, uint16_t dport, RoceNic::Done sent, RoceNic::Received received) {
            StartOnOwnQp(id, src, dst, size, priority, sport, dport, std::move(sent), std::move(received));
        };
        hooks.disturbances = [this] { return Disturbances(); };
        m_memo = std::make_unique<EpisodeMemo>(*m_routing, static_cast<uint32_t>(m_spec->cables.size()),
                                               m_settings.nic.mtuPayloadBytes, std::move(hooks));
    }
    if (m_settings.fluidUncontended) {
        if (m_settings.reuseConnections || m_settings.fastForward.enabled || m_settings.memoizeEpisodes) {
            diag.error(
                "messages alone on their path as fluid flows (--fluid-uncontended) need one queue pair per "
                "message (\"nic\": {\"connections\": \"per-message\"}, the default), fast-forward and "
                "memoized episodes off");
            return;
        }
        UncontendedFluid::Fabric hooks;
        if (m_settings.ccFactory) {
            cc::FlowParams probe;  // any path: whether a lone flow keeps its line rate does not depend on it
            probe.baseRttNs = 10'000;
            probe.bdpBytes = probe.lineRateBps / 8 * probe.baseRttNs / 1'000'000'000;
            probe.mtuBytes = m_settings.nic.mtuPayloadBytes;
            if (!m_settings.ccFactory(probe)->lineRateWhenAlone()) {
                hooks.steer = m_settings.ccFactory;
                hooks.flowParams = [this](uint32_t src, uint32_t dst) { return FlowParamsFor(src, dst); };
            }
        }
        hooks.sourcePort = [this](uint32_t src, uint32_t dst) { return NextSourcePort(src, dst); };
        hooks.start = [this](uint64_t id, uint32_t src, uint32_t dst, uint64_t size, uint8_t priority,
                             uint16_t sport, uint16_t dport, int64_t aloneNs,
                             std::unique_ptr<cc::CongestionControl> steered, RoceNic::Done sent,
                             RoceNic::Received received) {
            const uint32_t qp = StartOnOwnQp(id, src, dst, size, priority, sport, dport, std::move(sent),
                                             std::move(received), std::move(steered));
            if (aloneNs > 0) {
                m_nics[src]->SkipQuietTime(qp, aloneNs);
            }
        };
        hooks.congestion = [this] { return SwitchDisturbances(); };
        m_uncontended = std::make_unique<UncontendedFluid>(*m_spec, *m_routing, m_settings.nic,
                                                           m_settings.switches.cutThrough, std::move(hooks));
    }
}

int64_t RoceFabric::AssignStreams(int64_t stream) {
    int64_t used = 0;
    for (const auto& sw : m_switches) {
        used += sw->AssignStreams(stream + used);
    }
    for (const auto& ch : m_channels) {
        used += ch->AssignStreams(stream + used);
    }
    return used;
}

bool RoceFabric::ConfigurePorts(uint32_t vertex, const std::vector<ns3::Ptr<RoceNetDevice>>& devices,
                                uint64_t nicRateBps, MmuConfig& mmu, Diagnostics& diag) const {
    const TopologySpec& t = *m_spec;
    const auto tier = m_settings.tiers.find(t.tierName(vertex));
    const TierSettings* overrides = tier == m_settings.tiers.end() ? nullptr : &tier->second;
    mmu.bufferBytes = overrides && overrides->bufferBytes ? *overrides->bufferBytes : m_settings.bufferBytes;
    mmu.reserveBytes = m_settings.reserveBytes;
    mmu.referenceAccounting = m_settings.referenceMmu;
    mmu.pfcEnabled = overrides && overrides->pfcEnabled ? *overrides->pfcEnabled : m_settings.pfcEnabled;
    mmu.ecnEnabled = overrides && overrides->ecnEnabled ? *overrides->ecnEnabled : m_settings.ecnEnabled;
    const std::optional<EcnRule> per25 =
        overrides && overrides->ecnPer25Gbps ? overrides->ecnPer25Gbps : m_settings.ecnPer25Gbps;
    const FrameCharges& frames = m_settings.nic.frames;
    const uint32_t maxFrame = frames.ReferenceSizes()
                                  ? frames.Data(m_settings.nic.mtuPayloadBytes, m_settings.nic.intEnabled)
                                  : dataFrameBytes(m_settings.nic.mtuPayloadBytes,
                                                   m_settings.nic.intEnabled ? intBytes(kMaxIntHops) : 0);
    for (uint32_t port = 0; port < devices.size(); ++port) {
        const SpecCable& cable = t.cables[t.portCable(vertex, port)];
        MmuPortConfig p;
        const double inflightBytes =
            2.0 * static_cast<double>(cable.delayPs) * 1e-12 * static_cast<double>(cable.rateBps) / 8 +
            2.0 * (maxFrame + frames.OverheadBytes());
        p.headroomBytes = static_cast<uint64_t>(std::ceil(m_settings.headroomFactor * inflightBytes));
        if (m_settings.referenceMmu) {
            // Its headroom: three one-way BDPs of the link, in whole bytes (no frames); astra-network-ns3's
            // HEADROOM_FACTOR replaces the 3 (headroomFactor holds half of it, its default 1.5).
            const uint64_t oneWayBdpBytes = cable.rateBps * psToNs(cable.delayPs) / 8 / 1'000'000'000;
            p.headroomBytes =
                static_cast<uint64_t>(static_cast<double>(oneWayBdpBytes) * 2 * m_settings.headroomFactor);
        }
        uint32_t shift = m_settings.alphaShift;
        for (uint64_t r = nicRateBps * 2; r <= cable.rateBps && shift > 0; r *= 2) {
            --shift;  // faster ports get a larger share, as in the reference
        }
        p.alphaShift = shift;
        if (IsEngine(t.portPeer(vertex, port))) {
            // The switch's reduction engine sits inside it: nothing marks on the way to it.
            p.kminBytes = p.kmaxBytes = UINT64_MAX;
        } else if (mmu.ecnEnabled) {
            auto rule = std::find_if(m_settings.ecn.begin(), m_settings.ecn.end(),
                                     [&](const EcnRule& e) { return e.rateBps == cable.rateBps; });
            if (rule != m_settings.ecn.end() && !(overrides && overrides->ecnPer25Gbps)) {
                p.kminBytes = rule->kminBytes;
                p.kmaxBytes = rule->kmaxBytes;
                p.pmax = rule->pmax;
            } else if (per25) {
                const double scale = static_cast<double>(cable.rateBps) / 25e9;
                p.kminBytes =
                    static_cast<uint64_t>(std::llround(static_cast<double>(per25->kminBytes) * scale));
                p.kmaxBytes =
                    static_cast<uint64_t>(std::llround(static_cast<double>(per25->kmaxBytes) * scale));
                p.pmax = per25->pmax;
            } else {
                diag.error(t.source + ": ECN thresholds (KMIN_MAP/KMAX_MAP/PMAX_MAP) have no entry for " +
                           describeRate(cable.rateBps) + " links (" +
                           (t.isSwitch(vertex) ? "switch " : "NPU ") +
                           std::to_string(t.vertices[vertex].originalId) + ")");
                return false;
            }
        }
        mmu.ports.push_back(p);
    }
    return CheckBuffer(vertex, mmu, diag);
}

bool RoceFabric::CheckBuffer(uint32_t vertex, const MmuConfig& mmu, Diagnostics& diag) const {
    const TopologySpec& t = *m_spec;
    const std::string where = t.source + ": " + (t.isSwitch(vertex) ? "switch " : "NPU ") +
                              std::to_string(t.vertices[vertex].originalId) + " (tier '" +
                              t.tierName(vertex) + "', " + std::to_string(mmu.ports.size()) + " ports)";
    const uint64_t setAside = SwitchMmu::SetAsideBytes(mmu);
    if (mmu.bufferBytes <= setAside) {
        diag.error(where + ": its buffer of " + std::to_string(mmu.bufferBytes) +
                   " B (the switch's or its tier's buffer) is not more than the " + std::to_string(setAside) +
                   " B it sets aside for reserves (" + std::to_string(mmu.reserveBytes) +
                   " B per port and priority) and PFC headroom; expected a buffer above " +
                   std::to_string(setAside) + " B");
        return false;
    }
    for (uint32_t port = 0; port < mmu.ports.size() && mmu.ecnEnabled; ++port) {
        if (mmu.ports[port].kminBytes >= mmu.bufferBytes && !IsEngine(t.portPeer(vertex, port))) {
            diag.error(
                where + ": port " + std::to_string(port) + "'s ECN kmin of " +
                std::to_string(mmu.ports[port].kminBytes) + " B (at its line rate) is not below the " +
                std::to_string(mmu.bufferBytes) +
                " B buffer, so no packet could ever be marked; expected ECN thresholds below the buffer");
            return false;
        }
    }
    return true;
}

RoceFabric::~RoceFabric() = default;

bool RoceFabric::FinishCapture() {
    return !m_pcap || m_pcap->close();
}

void RoceFabric::RecordPause(RoceFabric* self, uint32_t nodeId, bool isSwitch, uint32_t port,
                             uint8_t priority, bool pause, uint64_t) {
    const PfcEvent event{simNowPs(), nodeId, isSwitch, port, priority, pause};
    self->m_pauseFrames += pause;
    if (self->m_pfcSink) {
        self->m_pfcSink(event);
    } else {
        self->m_pfc.push_back(event);
    }
}

uint32_t RoceFabric::LongestRouteHops() const {
    // INT records per packet: exactly the longest route where walking every pair is cheap (up to 1024 hosts:
    // about a million steps), else the most the wire format carries. Equal-cost paths have equal lengths, so
    // one flow port per pair suffices.
    const uint32_t hosts = NumHosts();
    if (hosts > 1024) {
        return kMaxIntHops;
    }
    uint32_t longest = 0;
    for (uint32_t s = 0; s < hosts; ++s) {
        for (uint32_t d = 0; d < hosts; ++d) {
            if (s != d) {
                longest = std::max(longest,
                                   RoceRoute::Length(*m_spec, *m_routing, s, d, FlowPortAllocator::kFirst));
            }
        }
    }
    return std::max<uint32_t>(longest, 1);
}

RoceFabric::Path RoceFabric::PathBetween(uint32_t srcHost, uint32_t dstHost) const {
    // A pair's facts never change (fixed routes, the first flow port), and every message's fct.txt line
    // asks for them: kept per pair, up to kMaxCachedPaths pairs.
    const uint64_t key = uint64_t{srcHost} << 32 | dstHost;
    if (const auto it = m_paths.find(key); it != m_paths.end()) {
        return it->second;
    }
    Path path;
    if (!m_routing->path(srcHost, dstHost, FlowPortAllocator::kFirst, m_pathCables)) {
        return path;
    }
    path.bottleneckBps = UINT64_MAX;
    for (uint32_t c : m_pathCables) {
        const SpecCable& cable = m_spec->cables[c];
        ++path.hops;
        path.delayPs += cable.delayPs;
        path.bottleneckBps = std::min(path.bottleneckBps, cable.rateBps);
        path.payloadTxNs += uint64_t{m_settings.nic.mtuPayloadBytes} * 8'000'000'000ull / cable.rateBps;
    }
    if (m_paths.size() < kMaxCachedPaths) {
        m_paths.emplace(key, path);
    }
    return path;
}

cc::FlowParams RoceFabric::FlowParamsOf(uint32_t srcHost, uint32_t dstHost) const {
    const Path path = PathBetween(srcHost, dstHost);
    cc::FlowParams flow;
    flow.mtuBytes = m_settings.nic.mtuPayloadBytes;
    // No line rate: the NIC sets the rate of the port the flow leaves on (RoceNic::OpenConnection).
    flow.lineRateBps = 0;
    if (path.hops == 0) {
        return flow;
    }
    const FrameCharges& frames = m_settings.nic.frames;
    if (frames.ReferenceSizes()) {
        // The reference's base RTT: both ways' propagation plus one payload (no headers) serialized per hop.
        flow.baseRttNs = psToNs(2 * path.delayPs) + path.payloadTxNs;
    } else {
        const uint32_t frame = frames.Data(m_settings.nic.mtuPayloadBytes, m_settings.nic.intEnabled);
        const TimePs perHopPs = wireTimePs(frame, frames.OverheadBytes(), path.bottleneckBps);
        flow.baseRttNs = psToNs(2 * path.delayPs + path.hops * perHopPs);
    }
    flow.bdpBytes = flow.baseRttNs * path.bottleneckBps / 8'000'000'000ull;
    return flow;
}

cc::FlowParams RoceFabric::FlowParamsFor(uint32_t srcHost, uint32_t dstHost) const {
    return m_settings.globalBaseRtt ? m_globalFlow : FlowParamsOf(srcHost, dstHost);
}

TimePs RoceFabric::IdealFctPs(uint32_t srcHost, uint32_t dstHost, uint64_t sizeBytes) const {
    const Path path = PathBetween(srcHost, dstHost);
    const uint32_t mtu = m_settings.nic.mtuPayloadBytes;
    const uint64_t packets = (sizeBytes + mtu - 1) / mtu;
    const FrameCharges& frames = m_settings.nic.frames;
    const cc::FlowParams flow = FlowParamsOf(srcHost, dstHost);
    if (frames.ReferenceSizes()) {
        // The reference's "standalone FCT" (ASTRA-sim's backend counts the reference's headers here too):
        // headers without the INT block, in whole ns.
        const uint64_t bytes = sizeBytes + packets * FrameCharges::kHpccDataHeaderBytes;
        return nsToPs(flow.baseRttNs + bytes * 8'000'000'000ull / path.bottleneckBps);
    }
    const uint32_t overhead = frames.Data(mtu, m_settings.nic.intEnabled) - mtu + frames.OverheadBytes();
    const uint64_t wireBytes = sizeBytes + packets * overhead;
    return nsToPs(flow.baseRttNs) + bitsTimePs(wireBytes * 8, path.bottleneckBps);
}

void RoceFabric::StartMessage(uint64_t messageId, uint32_t srcHost, uint32_t dstHost, uint64_t sizeBytes,
                              uint8_t priority, std::function<void(const FlowCompletion&)> sent,
                              RoceNic::Received received, uint16_t flowDstPort) {
    if (m_scaleUp && m_scaleUp->TryStart(messageId, srcHost, dstHost, sizeBytes, sent, received)) {
        return;  // NVLink: neither the packets' fast-forward nor the memo's episodes see it
    }
    if (m_fastForward) {
        m_fastForward->Touch();
    }
    if (m_memo) {
        m_memo->Start(messageId, srcHost, dstHost, sizeBytes, priority, flowDstPort, std::move(sent),
                      std::move(received));
        return;
    }
    if (m_uncontended) {
        m_uncontended->Start(messageId, srcHost, dstHost, sizeBytes, priority, flowDstPort, std::move(sent),
                             std::move(received));
        return;
    }
    RoceNic& src = *m_nics[srcHost];
    RoceNic& dst = *m_nics[dstHost];
    if (!m_settings.reuseConnections) {
        StartOnOwnQp(messageId, srcHost, dstHost, sizeBytes, priority, NextSourcePort(srcHost, dstHost),
                     flowDstPort, std::move(sent), std::move(received));
        return;
    }
    // One queue pair per (source, destination, priority), opened by its first message and kept for the run,
    // as NCCL keeps its connections: congestion-control state carries from one message to the next.
    const uint64_t key = (uint64_t{srcHost} * NumHosts() + dstHost) * kNumPriorities + priority;
    auto [it, opened] = m_connections.try_emplace(key, Connection{});
    Connection& c = it->second;
    if (opened) {
        const uint16_t sport = NextSourcePort(srcHost, dstHost);
        const cc::FlowParams params = FlowParamsFor(srcHost, dstHost);
        c.receiveContext = dst.OpenReceive(m_nextConnection, srcHost, sport, flowDstPort);
        c.qp = src.OpenConnection(m_nextConnection, dstHost, c.receiveContext, priority, sport, flowDstPort,
                                  params);
        ++m_nextConnection;
    }
    dst.ExpectMessage(c.receiveContext, messageId, sizeBytes, std::move(received));
    src.SendMessage(c.qp, messageId, sizeBytes, std::move(sent));
}

uint32_t RoceFabric::StartOnOwnQp(uint64_t messageId, uint32_t srcHost, uint32_t dstHost, uint64_t sizeBytes,
                                  uint8_t priority, uint16_t sport, uint16_t flowDstPort, RoceNic::Done sent,
                                  RoceNic::Received received,
                                  std::unique_ptr<cc::CongestionControl> carried) {
    RoceNic& src = *m_nics[srcHost];
    RoceNic& dst = *m_nics[dstHost];
    const cc::FlowParams params = FlowParamsFor(srcHost, dstHost);
    const uint32_t context = dst.OpenReceive(messageId, srcHost, sport, flowDstPort);
    dst.ExpectMessage(context, messageId, sizeBytes, std::move(received));
    return src.StartFlow(messageId, dstHost, context, sizeBytes, priority, sport, flowDstPort, params,
                         std::move(sent), std::move(carried));
}

uint64_t RoceFabric::SwitchDisturbances() const {
    uint64_t n = m_pauseFrames;
    for (const auto& sw : m_switches) {
        n += sw->EcnMarks() + sw->Drops();
    }
    return n;
}

uint64_t RoceFabric::Disturbances() const {
    uint64_t n = SwitchDisturbances();
    for (const auto& ch : m_channels) {
        n += ch->Lost();
    }
    for (const RoceNic* nic : m_nics) {
        n += nic->Timeouts() + nic->NacksSent() + nic->RetransmittedBytes() + nic->CnpsSent();
    }
    return n;
}

uint16_t RoceFabric::NextSourcePort(uint32_t srcHost, uint32_t dstHost) {
    if (m_settings.ecmp == EcmpHashing::Ours) {
        return m_flowPorts.next(srcHost);
    }
    auto [it, added] = m_pairPorts.try_emplace(uint64_t{srcHost} << 32 | dstHost, FlowPortAllocator::kFirst);
    const uint16_t port = it->second;
    it->second = port == 65535 ? FlowPortAllocator::kFirst : static_cast<uint16_t>(port + 1);
    return port;
}

bool RoceFabric::ScheduleLinkDown(uint32_t nodeA, uint32_t nodeB, TimePs atPs) {
    for (uint32_t c = 0; c < m_spec->cables.size(); ++c) {
        const SpecCable& cable = m_spec->cables[c];
        const uint32_t a = m_spec->vertices[cable.a].originalId, b = m_spec->vertices[cable.b].originalId;
        if ((a == nodeA && b == nodeB) || (a == nodeB && b == nodeA)) {
            const TimePs now = simNowPs();
            ns3::Simulator::Schedule(ns3::PicoSeconds(atPs > now ? atPs - now : 0), &RoceFabric::TakeDown,
                                     this, c);
            return true;
        }
    }
    return false;
}

void RoceFabric::TakeDown(uint32_t cable) {
    if (m_fastForward) {
        m_fastForward->Touch();
    }
    if (m_memo) {
        m_memo->CableDown(cable);
    }
    if (m_uncontended) {
        m_uncontended->CableDown(cable);
    }
    m_channels[cable]->SetDown();
}

bool RoceFabric::NetworkAhead() const {
    return (m_fastForward && m_fastForward->Ahead()) || (m_memo && m_memo->Replaying()) ||
           (m_uncontended && m_uncontended->Moving()) || (m_scaleUp && m_scaleUp->InFlight() > 0);
}

const FastForwardStats* RoceFabric::FinishFastForward() {
    return m_fastForward ? &m_fastForward->Finish() : nullptr;
}

uint64_t RoceFabric::TotalDrops() const {
    uint64_t drops = 0;
    for (const auto& sw : m_switches) {
        drops += sw->Drops();
    }
    for (const auto& ch : m_channels) {
        drops += ch->Lost();
    }
    return drops;
}

uint64_t RoceFabric::DataPacketHops() const {
    uint64_t hops = 0;
    for (const auto& devices : m_devices) {
        for (const auto& d : devices) {
            hops += d->TxDataFrames();
        }
    }
    return hops;
}

uint64_t RoceFabric::DeliveredBytes() const {
    uint64_t bytes = 0;
    for (const RoceNic* nic : m_nics) {
        bytes += nic->DeliveredBytes();
    }
    return bytes + (m_memo ? m_memo->DeliveredBytes() : 0) + (m_scaleUp ? m_scaleUp->DeliveredBytes() : 0) +
           (m_uncontended ? m_uncontended->DeliveredBytes() : 0);
}

std::string RoceFabric::DescribeActive() const {
    std::string out;
    for (const RoceNic* nic : m_nics) {
        out += nic->DescribeActive();
    }
    return out;
}

std::optional<RoceFabric::FrameOnTheWay> RoceFabric::LatestFrameOnTheWay() const {
    std::optional<FrameOnTheWay> latest;
    const TimePs now = nowPs();
    for (uint32_t v = 0; v < m_devices.size(); ++v) {
        for (uint32_t port = 0; port < m_devices[v].size(); ++port) {
            const RoceNetDevice& d = *m_devices[v][port];
            const TimePs arrival = d.LastFrameArrivalPs();
            if (arrival > now && (!latest || arrival > latest->arrivalPs)) {
                latest = FrameOnTheWay{m_spec->vertices[v].originalId, port, d.RateBps(), d.CableDelayPs(),
                                       arrival};
            }
        }
    }
    return latest;
}

std::string RoceFabric::DescribePauseCycle() const {
    // Wait-for graph between forwarding nodes: A waits for B when A's port towards B is paused for a class in
    // which A still has queued packets. A cycle there is a PFC deadlock.
    const TopologySpec& t = *m_spec;
    std::vector<std::vector<uint32_t>> waitsFor(t.numVertices());
    std::ostringstream paused;
    for (const auto& swPtr : m_switches) {
        const RoceSwitch& sw = *swPtr;
        const uint32_t v = sw.Vertex();
        for (uint32_t port = 0; port < sw.NumPorts(); ++port) {
            const uint8_t mask = sw.PortDevice(port)->PausedMask();
            if (mask && sw.Mmu().egressPortBytes(port) > 0) {
                const uint32_t peer = t.portPeer(v, port);
                waitsFor[v].push_back(peer);
                paused << "  switch " << t.vertices[v].originalId << " port " << port << " (to node "
                       << t.vertices[peer].originalId << ") paused, mask 0x" << std::hex << int{mask}
                       << std::dec << ", " << sw.Mmu().egressPortBytes(port) << " B queued\n";
            }
        }
    }
    std::vector<int> state(t.numVertices(), 0);
    std::vector<uint32_t> stack;
    std::string cycle;
    std::function<bool(uint32_t)> dfs = [&](uint32_t v) {
        state[v] = 1;
        stack.push_back(v);
        for (uint32_t w : waitsFor[v]) {
            if (state[w] == 1) {
                for (auto it = std::find(stack.begin(), stack.end(), w); it != stack.end(); ++it) {
                    cycle += std::to_string(t.vertices[*it].originalId) + " -> ";
                }
                cycle += std::to_string(t.vertices[w].originalId);
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
    for (uint32_t v = 0; v < t.numVertices() && cycle.empty(); ++v) {
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
