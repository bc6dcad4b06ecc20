#include "roce-switch.h"

#include "ns3/simulator.h"

#include "roce-timing.h"
#include "wire-format.h"

namespace mlnet::roce {

NS_OBJECT_ENSURE_REGISTERED(RoceSwitch);

ns3::TypeId RoceSwitch::GetTypeId() {
    static ns3::TypeId tid =
        ns3::TypeId("mlnet::roce::RoceSwitch")
            .SetParent<ns3::Node>()
            .SetGroupName("Roce")
            .AddConstructor<RoceSwitch>()
            .AddTraceSource(
                "Pfc",
                "The switch sent a PFC frame upstream: node (the switch's node id in the topology), "
                "port (the ingress port whose queue crossed its threshold), priority (0-7), pause "
                "(false: a resume).",
                ns3::MakeTraceSourceAccessor(&RoceSwitch::m_pfcTrace), "mlnet::roce::RoceSwitch::PfcCallback")
            .AddTraceSource("Drop",
                            "The buffer had no room for a frame: node (the switch's node id in the "
                            "topology), ingressPort, packet, reason.",
                            ns3::MakeTraceSourceAccessor(&RoceSwitch::m_dropTrace),
                            "mlnet::roce::RoceSwitch::DropCallback")
            .AddTraceSource("EcnMark",
                            "A data packet was CE-marked at dequeue: node (the switch's node id in the "
                            "topology), egressPort, packet, queueBytes (its class's egress queue after it "
                            "left).",
                            ns3::MakeTraceSourceAccessor(&RoceSwitch::m_ecnTrace),
                            "mlnet::roce::RoceSwitch::MarkCallback")
            .AddTraceSource(
                "QueueSample",
                "An egress port's queue at a dequeue, at most once per SwitchSettings::queueSampleIntervalPs "
                "and only inside the sampling window: node (the switch's node id in the topology), port, "
                "queueBytes (all classes).",
                ns3::MakeTraceSourceAccessor(&RoceSwitch::m_queueSampleTrace),
                "mlnet::roce::RoceSwitch::QueueSampleCallback");
    return tid;
}

RoceSwitch::RoceSwitch() : m_random(ns3::CreateObject<ns3::UniformRandomVariable>()) {}

int64_t RoceSwitch::AssignStreams(int64_t stream) {
    m_random->SetStream(stream);
    return 1;
}

void RoceSwitch::Configure(std::vector<ns3::Ptr<RoceNetDevice>> ports, MmuConfig mmu, SwitchSettings settings,
                           PacketPool* pool, uint32_t nodeId) {
    m_ports.resize(ports.size());
    for (std::size_t i = 0; i < ports.size(); ++i) {
        m_ports[i].device = ports[i];
        ports[i]->Setup(this, static_cast<uint32_t>(i), pool);
    }
    m_mmu = std::make_unique<SwitchMmu>(std::move(mmu));
    m_settings = settings;
    m_settings.queueIntegral = settings.intEnabled || settings.queueIntegral;
    m_histograms.assign(settings.queueHistograms ? ports.size() : 0, PortHistogram{});
    for (Port& port : m_ports) {
        port.nextSamplePs = settings.queueSampleIntervalPs != 0 ? settings.queueSampleStartPs : kNeverPs;
    }
    uint64_t fastest = 0;
    for (const auto& p : ports) {
        fastest = std::max(fastest, p->RateBps());
    }
    for (const auto& p : ports) {
        p->SetCutThrough(settings.cutThrough && p->RateBps() >= fastest);
        p->SetLocalHost(m_localHost);
    }
    m_pool = pool;
    m_nodeId = nodeId;
}

uint32_t RoceSwitch::Route(RocePacket& packet) const {
    uint32_t port;
    if (packet.route.length != 0) {
        // Past the route's end only a packet that went astray (a route cut short where none existed).
        port = packet.routeHop < packet.route.length ? packet.route.ports[packet.routeHop++] : UINT32_MAX;
    } else {
        port = m_routing->choose(m_vertex, packet.srcHost, packet.dstHost, packet.udpSrcPort);
    }
    // Routes are checked when the network is built, so a missing one is a bug, not an input error.
    NS_ABORT_MSG_IF(port == UINT32_MAX, "switch " << m_nodeId << " has no route to host " << packet.dstHost);
    return port;
}

void RoceSwitch::Receive(uint32_t port, RocePacket* packet) {
    if (packet->dstHost == m_localHost) {
        m_localNic->Receive(port, packet);
        return;
    }
    packet->ingressPort = port;
    const uint32_t out = Route(*packet);
    const uint8_t q = packet->priority;
    if (!m_mmu->admit(port, q, out, packet->frameBytes)) {
        ++m_drops;
        m_dropTrace(m_nodeId, port, packet, DropReason::BufferFull);
        m_pool->release(packet);
        return;
    }
    Port& egress = m_ports[out];
    egress.queues[q].push(packet);
    egress.nonEmpty |= static_cast<uint8_t>(1u << q);
    if (m_settings.queueIntegral) {
        // Only INT and fast-forward read the queue integral, which runs up to now at the queue before this
        // packet.
        IntegrateQueue(egress, m_mmu->egressPortBytes(out) - packet->frameBytes);
        if (packet->kind == PacketKind::Data && packet->intHops < m_pool->intHops()) {
            // Dequeue stamps this hop's record; its line is rarely in cache by then unless asked for now.
            __builtin_prefetch(&packet->hops[packet->intHops], 1);
        }
    }
    egress.maxQueueBytes = std::max(egress.maxQueueBytes, m_mmu->egressPortBytes(out));
    Sample(out);
    if (m_mmu->checkPause(port, q)) {
        SendPause(port, q);
    }
    egress.device->Kick();
}

void RoceSwitch::SendPause(uint32_t port, uint8_t priority) {
    if (m_referenceDraws) {
        m_referenceDraws->Skip();
    }
    ++m_pausesSent;
    m_pfcTrace(m_nodeId, port, priority, true);
    Port& p = m_ports[port];
    p.device->SendPause(static_cast<uint8_t>(1u << priority), m_settings.pauseQuanta);
    if (m_settings.refreshPauses && !p.refreshPending[priority]) {
        // Renew the pause before it expires for as long as the queue stays congested.
        p.refreshPending[priority] = true;
        const TimePs half = pauseDurationPs(m_settings.pauseQuanta, p.device->RateBps()) / 2;
        ScheduleMember<&RoceSwitch::RefreshPause>(half, this, uint64_t{port} << 8 | priority);
    }
}

void RoceSwitch::RefreshPause(uint64_t portAndPriority) {
    const uint32_t port = static_cast<uint32_t>(portAndPriority >> 8);
    const uint8_t priority = static_cast<uint8_t>(portAndPriority & 0xff);
    Port& p = m_ports[port];
    p.refreshPending[priority] = false;
    if (m_mmu->paused(port, priority)) {
        p.device->SendPause(static_cast<uint8_t>(1u << priority), m_settings.pauseQuanta);
        p.refreshPending[priority] = true;
        const TimePs half = pauseDurationPs(m_settings.pauseQuanta, p.device->RateBps()) / 2;
        ScheduleMember<&RoceSwitch::RefreshPause>(half, this, uint64_t{port} << 8 | priority);
    }
}

int RoceSwitch::PickDataClass(Port& port, uint8_t pausedMask) {
    const unsigned ready = port.nonEmpty & ~pausedMask & 0xfeu;  // data classes with a frame, not paused
    auto eligible = [&](int q) { return (ready >> q & 1) != 0; };
    if (m_settings.scheduler == DataScheduler::RoundRobin) {
        // Per-packet round robin among classes 1..7, as the reference switch does: the first ready class
        // after the one served last, wrapping around.
        if (ready == 0) {
            return -1;
        }
        const unsigned after = ready & ~((2u << port.current) - 1);
        port.current = __builtin_ctz(after ? after : ready);
        return port.current;
    }
    // Deficit round robin by bytes: keep serving the current class while its deficit covers the head packet.
    // With no class ready there is no round to run: an idle poll leaves the pointer and deficits alone, so
    // how often a port is polled cannot change what it sends.
    if (ready == 0) {
        return -1;
    }
    for (int k = 0; k < 2 * kNumPriorities; ++k) {
        const int q = port.current;
        if (eligible(q) && port.deficit[q] >= port.queues[q].front()->frameBytes) {
            port.deficit[q] -= port.queues[q].front()->frameBytes;
            return q;
        }
        if (!eligible(q) && port.queues[q].empty()) {
            port.deficit[q] = 0;
        }
        port.current = 1 + port.current % (kNumPriorities - 1);
        if (eligible(port.current)) {
            port.deficit[port.current] += m_settings.dwrrQuantumBytes;
        }
    }
    return -1;
}

RocePacket* RoceSwitch::Dequeue(uint32_t portIndex, uint8_t pausedMask) {
    Port& port = m_ports[portIndex];
    const bool control = !(pausedMask & 1) && !port.queues[0].empty();
    if (m_localNic && !control) {
        // An NPU's port alternates between its own NIC's frames and the data it forwards.
        port.localFirst = !port.localFirst;
        if (port.localFirst) {
            if (RocePacket* own = m_localNic->Dequeue(portIndex, pausedMask)) {
                return own;
            }
        }
    }
    int q = control ? 0 : PickDataClass(port, pausedMask);
    if (q < 0) {
        return m_localNic && !port.localFirst ? m_localNic->Dequeue(portIndex, pausedMask) : nullptr;
    }
    RocePacket* packet = port.queues[q].pop();
    if (port.queues[q].empty()) {
        port.nonEmpty &= static_cast<uint8_t>(~(1u << q));
    } else {
        port.device->HintNextFrame(port.queues[q].front());
    }
    if (m_settings.queueIntegral) {
        IntegrateQueue(port, m_mmu->egressPortBytes(portIndex));
    }
    m_mmu->release(packet->ingressPort, static_cast<uint8_t>(q), portIndex, packet->frameBytes);
    Sample(portIndex);
    if (m_referenceDraws) {
        MarkAsTheReference(*packet, portIndex, static_cast<uint8_t>(q));
    } else if (packet->kind == PacketKind::Data) {
        // Draw a random number only when marking is possible: most dequeues see a queue below Kmin.
        const double markProbability = packet->ecn != kEcnNotEct && packet->ecn != kEcnCe
                                           ? m_mmu->ecnMarkProbability(portIndex, static_cast<uint8_t>(q))
                                           : 0;
        if (markProbability >= 1 || (markProbability > 0 && m_random->GetValue() < markProbability)) {
            packet->ecn = kEcnCe;
            ++m_ecnMarks;
            m_ecnTrace(m_nodeId, portIndex, packet, m_mmu->egressBytes(portIndex, static_cast<uint8_t>(q)));
        }
    }
    if (packet->kind == PacketKind::Data) {
        if (m_settings.intEnabled) {
            NS_ABORT_MSG_IF(packet->intHops >= m_pool->intHops(),
                            "INT stack full: path longer than " << m_pool->intHops() << " switch hops");
            uint64_t txBytes = port.txBytes, queueBytes = m_mmu->egressPortBytes(portIndex);
            if (const uint64_t m = m_settings.intFieldMulti) {
                txBytes -= txBytes % (128 * m);
                queueBytes -= queueBytes % (80 * m);
            }
            packet->hops[packet->intHops++] =
                IntHop{psToNs(nowPs()), txBytes, queueBytes, port.device->RateBps(),
                       static_cast<uint64_t>(port.queueByteNs)};
        }
    }
    port.txBytes += packet->frameBytes;
    if (m_mmu->checkResume(packet->ingressPort, static_cast<uint8_t>(q))) {
        if (m_referenceDraws) {
            m_referenceDraws->Skip();
        }
        m_pfcTrace(m_nodeId, packet->ingressPort, static_cast<uint8_t>(q), false);
        m_ports[packet->ingressPort].device->SendPause(static_cast<uint8_t>(1u << q), 0);
    }
    return packet;
}

void RoceSwitch::MarkAsTheReference(RocePacket& packet, uint32_t portIndex, uint8_t q) {
    // Its rule (ShouldSendCN) at every dequeue from a class other than 0, ACKs included: above Kmax marked,
    // above Kmin marked when a draw falls below the probability; class 0 never draws.
    if (q == 0 || !m_mmu->aboveKmin(portIndex, q)) {
        return;
    }
    const bool mark =
        m_mmu->aboveKmax(portIndex, q) || m_referenceDraws->Next() < m_mmu->ecnMarkProbability(portIndex, q);
    // The draw is taken whatever the packet; a mark lands only where ours would (ECN-capable data): the
    // reference marks every packet, but only the algorithms that read ECN ever see it.
    if (mark && packet.kind == PacketKind::Data && packet.ecn != kEcnNotEct && packet.ecn != kEcnCe) {
        packet.ecn = kEcnCe;
        ++m_ecnMarks;
        m_ecnTrace(m_nodeId, portIndex, &packet, m_mmu->egressBytes(portIndex, q));
    }
}

void RoceSwitch::IntegrateQueue(Port& port, uint64_t queueBytes) {
    const TimePs now = nowPs();
    // Through int64_t: a signed conversion is one instruction, an unsigned one a branch and several more
    // (both values are far below 2^63, so the result is the same).
    port.queueByteNs += static_cast<double>(static_cast<int64_t>(queueBytes)) *
                        static_cast<double>(static_cast<int64_t>(now - port.queueChangedPs)) /
                        static_cast<double>(kPsPerNs);
    port.queueChangedPs = now;
}

int QueueHistogram::Bucket(uint64_t bytes) {
    if (bytes < 4) {
        return static_cast<int>(bytes);
    }
    const int e = 63 - __builtin_clzll(bytes);  // bytes in [2^e, 2^(e+1))
    return std::min(kBuckets - 1, 4 * (e - 1) + static_cast<int>((bytes >> (e - 2)) & 3));
}

uint64_t QueueHistogram::BucketUpperBytes(int bucket) {
    if (bucket < 4) {
        return static_cast<uint64_t>(bucket);
    }
    const int e = bucket / 4 + 1, sub = bucket % 4;
    return ((uint64_t{4} + sub + 1) << (e - 2)) - 1;
}

void QueueHistogram::Merge(const QueueHistogram& other) {
    for (int b = 0; b < kBuckets; ++b) {
        m_ps[b] += other.m_ps[b];
    }
}

TimePs QueueHistogram::TotalPs() const {
    TimePs total = 0;
    for (TimePs ps : m_ps) {
        total += ps;
    }
    return total;
}

double QueueHistogram::MeanBytes() const {
    double byteTime = 0;
    TimePs total = 0;
    for (int b = 0; b < kBuckets; ++b) {
        byteTime += static_cast<double>(BucketUpperBytes(b)) * static_cast<double>(m_ps[b]);
        total += m_ps[b];
    }
    return total ? byteTime / static_cast<double>(total) : 0;
}

uint64_t QueueHistogram::QuantileBytes(double fraction) const {
    const TimePs total = TotalPs();
    if (total == 0) {
        return 0;
    }
    TimePs seen = 0;
    for (int b = 0; b < kBuckets; ++b) {
        seen += m_ps[b];
        if (static_cast<double>(seen) >= fraction * static_cast<double>(total)) {
            return BucketUpperBytes(b);
        }
    }
    return BucketUpperBytes(kBuckets - 1);
}

void RoceSwitch::Histogram(uint32_t portIndex) {
    PortHistogram& h = m_histograms[portIndex];
    const TimePs now = nowPs();
    h.histogram.Add(h.bytes, now - h.sincePs);
    h.sincePs = now;
    h.bytes = m_mmu->egressPortBytes(portIndex);
}

QueueHistogram RoceSwitch::QueueTime(uint32_t portIndex) const {
    if (m_histograms.empty()) {
        return QueueHistogram{};
    }
    const PortHistogram& p = m_histograms[portIndex];
    QueueHistogram h = p.histogram;
    h.Add(p.bytes, nowPs() - p.sincePs);
    return h;
}

double RoceSwitch::QueueIntegralByteNs(uint32_t portIndex) const {
    const Port& port = m_ports[portIndex];
    return port.queueByteNs + static_cast<double>(m_mmu->egressPortBytes(portIndex)) *
                                  static_cast<double>(nowPs() - port.queueChangedPs) /
                                  static_cast<double>(kPsPerNs);
}

void RoceSwitch::CountSkippedTime(TimePs ps) {
    for (PortHistogram& h : m_histograms) {
        h.histogram.Add(h.bytes, ps);
    }
}

void RoceSwitch::SampleDue(uint32_t port) {
    if (m_settings.queueHistograms) {
        Histogram(port);
    }
    Port& p = m_ports[port];
    const TimePs now = nowPs();
    if (now >= p.nextSamplePs) {
        if (now > m_settings.queueSampleEndPs) {
            p.nextSamplePs = kNeverPs;
            return;
        }
        m_queueSampleTrace(m_nodeId, port, m_mmu->egressPortBytes(port));
        p.nextSamplePs = now + m_settings.queueSampleIntervalPs;
    }
}

}  // namespace mlnet::roce
