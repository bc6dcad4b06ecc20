// RoceNic: setup, connections and their messages, the send scheduler and the timers. The receive path is in
// roce-nic-receive.cc.
#include "roce-nic.h"

#include <algorithm>
#include <functional>
#include <sstream>

#include "ns3/simulator.h"

#include "roce-timing.h"
#include "wire-format.h"

namespace mlnet::roce {

NS_OBJECT_ENSURE_REGISTERED(RoceNic);

namespace {

constexpr uint32_t kNone = UINT32_MAX;

}  // namespace

ns3::TypeId RoceNic::GetTypeId() {
    static ns3::TypeId tid =
        ns3::TypeId("mlnet::roce::RoceNic")
            .SetParent<ns3::Object>()
            .SetGroupName("Roce")
            .AddConstructor<RoceNic>()
            .AddTraceSource("Rate",
                            "A queue pair's congestion control set its rate or window: flowId (the message, "
                            "or the connection with per-peer connections), rateBps (bit/s), windowBytes "
                            "(bytes in flight allowed, 0: no window).",
                            ns3::MakeTraceSourceAccessor(&RoceNic::m_rateTrace),
                            "mlnet::roce::RoceNic::RateCallback");
    return tid;
}

RoceNic::RoceNic() = default;

void RoceNic::Setup(uint32_t host, std::vector<ns3::Ptr<RoceNetDevice>> ports, PacketPool* pool,
                    NicSettings settings, CcFactory ccFactory, const Routing* routing,
                    const TopologySpec* spec, RocePortOwner* owner) {
    NS_ABORT_MSG_IF(ports.empty(), "a NIC needs a port");
    m_host = host;
    m_pool = pool;
    m_settings = settings;
    m_ccFactory = std::move(ccFactory);
    m_routing = routing;
    m_spec = spec;
    m_ports.resize(ports.size());
    for (uint32_t p = 0; p < ports.size(); ++p) {
        Port& port = m_ports[p];
        port.device = ports[p];
        std::fill(std::begin(port.ringHead), std::end(port.ringHead), kNone);
        if (!owner) {
            ports[p]->Setup(this, p, pool);
        }
        ports[p]->SetArrivalHint(&RoceNic::ExpectFrame, this);
    }
}

bool RoceNic::FlowRate(uint32_t qp, uint64_t flowId, uint64_t& rateBps, uint64_t& windowBytes) const {
    if (qp >= m_qps.size() || m_qps[qp].state == QpState::Free || m_qps[qp].flowId != flowId) {
        return false;
    }
    rateBps = m_qps[qp].cc->rateBps();
    windowBytes = m_qps[qp].cc->windowBytes();
    return true;
}

uint32_t RoceNic::PortTowards(uint32_t dstHost, uint32_t flowKey) const {
    if (m_ports.size() == 1) {
        return 0;
    }
    const uint32_t port = m_routing->choose(m_host, m_host, dstHost, flowKey);
    NS_ABORT_MSG_IF(port == UINT32_MAX, "host " << m_host << " has no route to host " << dstHost);
    return port;
}

uint32_t RoceNic::OpenConnection(uint64_t connectionId, uint32_t dstHost, uint32_t dstContext,
                                 uint8_t priority, uint16_t udpSrcPort, uint16_t flowDstPort,
                                 const cc::FlowParams& flow, std::unique_ptr<cc::CongestionControl> carried) {
    const uint32_t qp = m_qps.acquire();
    m_ccLines.resize(m_qps.size());
    QueuePair& q = m_qps[qp];
    const TimePs now = nowPs();
    q.flowId = connectionId;
    q.dstHost = dstHost;
    q.udpSrcPort = udpSrcPort;
    q.priority = priority;
    const uint32_t key = m_routing->flowKey(udpSrcPort, flowDstPort, false);
    q.port = PortTowards(dstHost, key);
    q.route = m_spec ? RoceRoute::Compute(*m_spec, *m_routing, m_host, dstHost, key) : RoceRoute{};
    q.sizeBytes = 0;
    if (qp < m_skippedBytes.size()) {
        m_skippedBytes[qp] = 0;
    }
    q.sndNxt = q.sndUna = q.highestSent = 0;
    q.startPs = q.nextAvailPs = q.lastProgressPs = now;
    ++q.generation;
    q.closeWhenDone = false;
    // A host with several ports (one per dimension of a multi-dimensional network) may run them at different
    // rates: the flow's line rate and BDP are those of the port it leaves on, whatever the fabric computed.
    if (carried) {
        q.cc = std::move(carried);
        q.cc->resumeOnNewConnection();
    } else {
        q.cc = m_ccFactory(cc::onPort(flow, m_ports[q.port].device->RateBps()));
    }
    m_ccLines[qp] = {q.cc.get(), static_cast<uint32_t>(q.cc->stateBytes())};
    q.ccTimerPs = 0;
    q.messages.clear();
    q.head = q.sending = 0;
    q.sendingStartSeq = q.sendingEndSeq = 0;
    q.headEndSeq = UINT64_MAX;
    q.dstQp = dstContext;
    q.state = QpState::Idle;
    ++m_activeQps;
    if (m_settings.arbitration == NicArbitration::ScanAll) {
        m_ports[q.port].scanOrder.emplace_back(qp, q.generation);
    }
    return qp;
}

void RoceNic::SendMessage(uint32_t qp, uint64_t messageId, uint64_t sizeBytes, Done done) {
    QueuePair& q = m_qps[qp];
    const TimePs now = nowPs();
    if (q.sndUna == q.sizeBytes) {
        q.lastProgressPs = now;  // an idle connection: the timeout runs from this message on
    }
    q.sizeBytes += sizeBytes;
    q.messages.push_back({messageId, q.sizeBytes, sizeBytes, simNowPs(), std::move(done)});
    if (q.messages.size() == q.head + 1) {
        q.headEndSeq = q.sizeBytes;
    }
    if (sizeBytes == 0 && q.sndUna >= q.sizeBytes && q.messages.size() == q.head + 1) {
        ns3::Simulator::ScheduleNow(&RoceNic::CompleteEmpty, this, qp, q.generation);
        return;
    }
    ArmCcTimer(qp);
    Activate(qp);
}

uint32_t RoceNic::StartFlow(uint64_t flowId, uint32_t dstHost, uint32_t dstContext, uint64_t sizeBytes,
                            uint8_t priority, uint16_t udpSrcPort, uint16_t flowDstPort,
                            const cc::FlowParams& flow, Done done,
                            std::unique_ptr<cc::CongestionControl> carried) {
    const uint32_t qp = OpenConnection(flowId, dstHost, dstContext, priority, udpSrcPort, flowDstPort, flow,
                                       std::move(carried));
    m_qps[qp].closeWhenDone = true;
    SendMessage(qp, flowId, sizeBytes, std::move(done));
    return qp;
}

void RoceNic::CloseConnection(uint32_t qp) {
    NS_ABORT_MSG_IF(!ConnectionIdle(qp), "closing a connection with unacknowledged messages");
    FreeQp(qp);
}

void RoceNic::FreeQp(uint32_t qp) {
    QueuePair& q = m_qps[qp];
    if (q.state == QpState::Ready) {
        RingRemove(qp);
    }
    q.state = QpState::Free;
    ++q.generation;
    q.cc.reset();
    m_ccLines[qp] = {};
    --m_activeQps;
    m_qps.release(qp);
}

void RoceNic::CompleteEmpty(uint32_t qp, uint32_t generation) {
    if (SameConnection(qp, generation)) {
        CompleteMessages(qp);
    }
}

bool RoceNic::CompleteMessages(uint32_t qp) {
    const TimePs now = simNowPs();
    for (;;) {
        // Re-read after every callback: it may open connections (growing m_qps) or queue on this one.
        QueuePair& q = m_qps[qp];
        if (q.head == q.messages.size() || q.messages[q.head].endSeq > q.sndUna) {
            if (q.head == q.messages.size()) {
                q.messages.clear();
                q.head = q.sending = 0;
                q.sendingStartSeq = q.sendingEndSeq = 0;
            }
            q.headEndSeq = q.head < q.messages.size() ? q.messages[q.head].endSeq : UINT64_MAX;
            return true;
        }
        OutgoingMessage m = std::move(q.messages[q.head++]);
        ++m_messagesAcknowledged;
        const bool last = q.closeWhenDone && q.head == q.messages.size();
        const FlowCompletion completion{m.id,      m_host, q.dstHost, q.udpSrcPort, m.sizeBytes,
                                        m.startPs, now,    q.dstQp,   last};
        if (last) {
            FreeQp(qp);
            if (m_closed) {
                m_closed(completion);
            }
        }
        if (m.done) {
            m.done(completion);
        }
        if (last) {
            return false;
        }
    }
}

bool RoceNic::WindowOpen(const QueuePair& q) const {
    const uint64_t window = q.cc->windowBytes();
    return window == 0 || q.sndNxt - q.sndUna < window;
}

void RoceNic::RingInsert(uint32_t qp) {
    QueuePair& q = m_qps[qp];
    q.state = QpState::Ready;
    Port& port = m_ports[q.port];
    uint32_t& head = port.ringHead[q.priority];
    if (head == kNone) {
        q.prev = q.next = qp;
        head = qp;
        port.ringsNonEmpty |= static_cast<uint8_t>(1u << q.priority);
        return;
    }
    // Insert just before the head: the newcomer is served after everyone already waiting.
    QueuePair& h = m_qps[head];
    q.next = head;
    q.prev = h.prev;
    m_qps[h.prev].next = qp;
    h.prev = qp;
}

void RoceNic::RingRemove(uint32_t qp) {
    QueuePair& q = m_qps[qp];
    Port& port = m_ports[q.port];
    uint32_t& head = port.ringHead[q.priority];
    if (q.next == qp) {
        head = kNone;
        port.ringsNonEmpty &= static_cast<uint8_t>(~(1u << q.priority));
    } else {
        m_qps[q.prev].next = q.next;
        m_qps[q.next].prev = q.prev;
        if (head == qp) {
            head = q.next;
        }
    }
}

void RoceNic::Activate(uint32_t qp, bool kick) {
    QueuePair& q = m_qps[qp];
    if (m_settings.arbitration == NicArbitration::ScanAll) {
        // Every dequeue scans all QPs: there is no eligibility to track, only the device to prompt (as the
        // reference's TriggerTransmit).
        if (kick && q.state != QpState::Free) {
            m_ports[q.port].device->Kick();
        }
        return;
    }
    if (q.state == QpState::Ready || q.state == QpState::Pacing || q.state == QpState::Free ||
        q.sndNxt >= q.sizeBytes) {
        return;
    }
    if (!WindowOpen(q)) {
        q.state = QpState::Blocked;
        return;
    }
    if (q.nextAvailPs > nowPs()) {
        q.state = QpState::Pacing;
        Port& port = m_ports[q.port];
        port.pacing.emplace_back(q.nextAvailPs, qp);
        std::push_heap(port.pacing.begin(), port.pacing.end(), std::greater<>());
        WakeAt(q.port, q.nextAvailPs);
        // The port may have skipped the poll at the end of its frame (NothingToSend); if the QP is due by
        // then, that poll, not the later wake-up, must send it: Kick() puts the poll back in its place.
        if (kick) {
            port.device->Kick();
        }
        return;
    }
    RingInsert(qp);
    if (kick) {
        m_ports[q.port].device->Kick();
    }
}

void RoceNic::Reschedule(uint32_t qp) {
    QueuePair& q = m_qps[qp];
    if (q.sndNxt >= q.sizeBytes) {
        RingRemove(qp);
        q.state = QpState::Idle;
    } else if (!WindowOpen(q)) {
        RingRemove(qp);
        q.state = QpState::Blocked;
    }
}

void RoceNic::WakeAt(uint32_t portIndex, TimePs atPs) {
    Port& port = m_ports[portIndex];
    if (port.wakePending && port.wakeAtPs <= atPs) {
        return;
    }
    // An earlier wake supersedes the pending one, which then fires to no effect (as a cancelled event would).
    port.wakePending = true;
    port.wakeAtPs = atPs;
    // The event carries the port (32 bits: an NPU of a large FullyConnected dimension has thousands) and the
    // wake's generation, which tells the latest wake from superseded ones (32 bits wrap only after 2^32 wakes
    // of one port while one is pending, which cannot happen).
    ++port.wakeGeneration;
    ScheduleMember<&RoceNic::Wake>(atPs - nowPs(), this, uint64_t{port.wakeGeneration} << 32 | portIndex);
}

void RoceNic::Wake(uint64_t generationAndPort) {
    Port& port = m_ports[static_cast<uint32_t>(generationAndPort)];
    if (!port.wakePending || static_cast<uint32_t>(generationAndPort >> 32) != port.wakeGeneration) {
        return;
    }
    port.wakePending = false;
    port.device->Kick();
}

RocePacket* RoceNic::DequeueScanning(uint32_t portIndex, uint8_t pausedMask) {
    Port& port = m_ports[portIndex];
    std::vector<std::pair<uint32_t, uint32_t>>& order = port.scanOrder;
    const auto finished = [&](const std::pair<uint32_t, uint32_t>& e) {
        return !SameConnection(e.first, e.second);
    };
    const TimePs now = nowPs();
    const uint32_t n = static_cast<uint32_t>(order.size());
    uint32_t chosen = n, firstFinished = n;
    for (uint32_t i = 1; i <= n; ++i) {
        const uint32_t at = (i + port.scanLast) % n;
        if (finished(order[at])) {
            firstFinished = std::min(firstFinished, at);
            continue;
        }
        const QueuePair& q = m_qps[order[at].first];
        if (!(pausedMask >> q.priority & 1) && q.sndNxt < q.sizeBytes && WindowOpen(q)) {
            if (q.nextAvailPs > now) {
                continue;
            }
            chosen = at;
            break;
        }
    }
    if (firstFinished < n) {
        // The reference's compaction: finished QPs from the first one the scan met on leave the order, the
        // rest keep theirs (and the position served last keeps its number).
        uint32_t kept = firstFinished;
        for (uint32_t i = firstFinished + 1; i < n; ++i) {
            if (!finished(order[i])) {
                if (i == chosen) {
                    chosen = kept;
                }
                order[kept++] = order[i];
            }
        }
        order.resize(kept);
    }
    if (chosen < n) {
        port.scanLast = chosen;
        return BuildData(order[chosen].first);
    }
    TimePs next = kNeverPs;
    for (const auto& e : order) {
        const QueuePair& q = m_qps[e.first];
        if (!finished(e) && q.sndNxt < q.sizeBytes) {
            next = std::min(next, q.nextAvailPs);
        }
    }
    if (!port.wakePending && next != kNeverPs && next > now) {
        WakeAt(portIndex, next);
    }
    return nullptr;
}

RocePacket* RoceNic::Dequeue(uint32_t portIndex, uint8_t pausedMask) {
    Port& port = m_ports[portIndex];
    const auto controlClass = [&] {
        return m_settings.ackClassFromData ? m_settings.ackPriority : port.control.front()->priority;
    };
    if (!port.control.empty() && !(pausedMask >> controlClass() & 1)) {
        return port.control.pop();
    }
    if (m_settings.arbitration == NicArbitration::ScanAll) {
        return DequeueScanning(portIndex, pausedMask);
    }
    const TimePs now = nowPs();
    while (!port.pacing.empty() && port.pacing.front().first <= now) {
        std::pop_heap(port.pacing.begin(), port.pacing.end(), std::greater<>());
        const uint32_t qp = port.pacing.back().second;
        port.pacing.pop_back();
        QueuePair& q = m_qps[qp];
        if (q.state != QpState::Pacing) {
            continue;  // stale entry: the QP finished or moved on
        }
        q.state = QpState::Idle;
        Activate(qp, /*kick=*/false);  // the device is asking us already
    }
    // The priorities with a QP ready and not paused, from the one after the last served round to it (only
    // ring `priority` changes below, so the set is taken once).
    const unsigned ready = port.ringsNonEmpty & ~pausedMask & 0xffu;
    const unsigned start = static_cast<unsigned>(port.lastPriority + 1) % kNumPriorities;
    for (unsigned order = (ready >> start | ready << (kNumPriorities - start)) & 0xffu; order != 0;
         order &= order - 1) {
        const int priority = static_cast<int>((start + __builtin_ctz(order)) % kNumPriorities);
        while (port.ringHead[priority] != kNone) {
            const uint32_t qp = port.ringHead[priority];
            QueuePair& q = m_qps[qp];
            if (q.nextAvailPs > now) {
                // Its rate dropped since it joined the ring: wait in the pacing heap instead.
                RingRemove(qp);
                q.state = QpState::Idle;
                Activate(qp, /*kick=*/false);  // the device is asking us already
                continue;
            }
            port.ringHead[priority] = q.next;                 // round robin: the next QP goes first next time
            PrefetchLines(&m_qps[q.next], kQpHotBytes + 64);  // served at this port's next frame (route too)
            port.lastPriority = priority;
            RocePacket* packet = BuildData(qp);
            Reschedule(qp);
            return packet;
        }
    }
    if (!port.pacing.empty()) {
        WakeAt(portIndex, port.pacing.front().first);
    }
    return nullptr;
}

void RoceNic::SeekSending(QueuePair& q) {
    if (q.sendingStartSeq <= q.sndNxt && q.sndNxt < q.sendingEndSeq) {
        return;  // sndNxt is still inside the message being sent
    }
    if (q.sending < q.head || (q.sending > q.head && q.messages[q.sending - 1].endSeq > q.sndNxt)) {
        q.sending = q.head;  // sndNxt went back (go-back-N or a timeout)
    }
    while (q.sending < q.messages.size() && q.messages[q.sending].endSeq <= q.sndNxt) {
        ++q.sending;
    }
    q.sendingStartSeq = q.sending > 0 ? q.messages[q.sending - 1].endSeq : 0;
    q.sendingEndSeq = q.sending < q.messages.size() ? q.messages[q.sending].endSeq : 0;
}

RocePacket* RoceNic::BuildData(uint32_t qp) {
    QueuePair& q = m_qps[qp];
    const TimePs now = nowPs();
    SeekSending(q);
    const uint64_t boundary = q.sendingEndSeq;  // a packet never spans two messages
    const uint32_t payload =
        static_cast<uint32_t>(std::min<uint64_t>(m_settings.mtuPayloadBytes, boundary - q.sndNxt));
    RocePacket* p = m_pool->allocate();
    p->kind = PacketKind::Data;
    p->priority = q.priority;
    p->ecn = kEcnEct0;
    p->srcHost = m_host;
    p->dstHost = q.dstHost;
    p->srcQp = qp;
    p->dstQp = q.dstQp;
    p->flow = q.flowId;
    p->udpSrcPort = q.udpSrcPort;
    p->route = q.route;
    p->seq = q.sndNxt;
    p->payloadBytes = payload;
    p->frameBytes = m_settings.frames.Data(payload, m_settings.intEnabled);
    p->sentPs = now;
    if (q.sndNxt < q.highestSent) {
        m_retransmittedBytes += payload;
    }
    q.sndNxt += payload;
    q.highestSent = std::max(q.highestSent, q.sndNxt);
    p->lastOfMessage = q.sndNxt == boundary;
    q.nextAvailPs = now + chargedWireTimePs(m_settings.frames, p->frameBytes, q.cc->rateBps());
    q.lastFrameBytes = p->frameBytes;
    q.cc->onSend(now / 1000, payload);
    ArmRtoScan();
    return p;
}

void RoceNic::ArmRtoScan() {
    // Called for every data packet, so the armed state is a flag rather than an EventId query into the
    // simulator.
    if (!m_rtoScanArmed && m_settings.rtoPs != 0) {
        // One timer per NIC instead of one per QP: thousands of concurrent QPs would otherwise keep thousands
        // of far-future events in the scheduler. A timeout is detected within a quarter RTO of its deadline.
        m_rtoScanArmed = true;
        ScheduleMember<&RoceNic::RtoScan>(m_settings.rtoPs / 4, this);
    }
}

void RoceNic::RtoScan(uint64_t) {
    m_rtoScanArmed = false;
    const TimePs now = nowPs();
    bool outstanding = false;
    for (uint32_t qp = 0; qp < m_qps.size(); ++qp) {
        QueuePair& q = m_qps[qp];
        if (q.state == QpState::Free || q.sndUna >= q.highestSent) {
            continue;
        }
        outstanding = true;
        if (now - q.lastProgressPs >= m_settings.rtoPs) {
            // No acknowledgement progress for a whole timeout: resend everything after the last cumulative
            // ACK.
            ++m_timeouts;
            q.lastProgressPs = now;
            if (q.state == QpState::Ready) {
                RingRemove(qp);
            }
            q.sndNxt = q.sndUna;
            q.state = QpState::Idle;
            Activate(qp);
        }
    }
    if (outstanding) {
        ArmRtoScan();
    }
}

void RoceNic::ArmCcTimer(uint32_t qp) {
    QueuePair& q = m_qps[qp];
    const cc::TimeNs due = q.cc->nextTimerNs();
    if (due == cc::kNever) {
        return;
    }
    const TimePs duePs = due * 1000;
    if (q.ccTimerPs != 0 && q.ccTimerPs <= duePs) {
        return;
    }
    q.ccTimerPs = duePs;
    const TimePs now = nowPs();
    ScheduleMember<&RoceNic::CcTimer>(duePs > now ? duePs - now : 0, this, uint64_t{q.generation} << 32 | qp);
}

void RoceNic::CcTimer(uint64_t generationAndQp) {
    const uint32_t qp = static_cast<uint32_t>(generationAndQp);
    const uint32_t generation = static_cast<uint32_t>(generationAndQp >> 32);
    if (!SameConnection(qp, generation)) {
        return;
    }
    QueuePair& q = m_qps[qp];
    const TimePs now = nowPs();
    if (q.ccTimerPs > now) {
        return;  // superseded by an earlier timer that re-armed a later one
    }
    q.ccTimerPs = 0;
    const uint64_t rateBefore = q.cc->rateBps();
    if (q.cc->nextTimerNs() <= now / 1000) {
        q.cc->onTimer(now / 1000);
    }
    if (q.cc->rateBps() != rateBefore) {
        m_rateTrace(q.flowId, q.cc->rateBps(), q.cc->windowBytes());
    }
    ArmCcTimer(qp);
    Activate(qp);
}

uint64_t RoceNic::AckedBytes(uint64_t flowId) const {
    for (uint32_t qp = 0; qp < m_qps.size(); ++qp) {
        const QueuePair& q = m_qps[qp];
        if (q.state != QpState::Free && q.flowId == flowId) {
            return q.sndUna + SkippedBytes(qp);
        }
    }
    return 0;
}

void RoceNic::CollectProgress(std::vector<QpProgress>& out) const {
    for (uint32_t qp = 0; qp < m_qps.size(); ++qp) {
        const QueuePair& q = m_qps[qp];
        if (q.state == QpState::Free) {
            continue;
        }
        QpProgress p;
        p.host = m_host;
        p.qp = qp;
        p.generation = q.generation;
        p.dstHost = q.dstHost;
        p.busy = q.head < q.messages.size();
        p.ackedBytes = q.sndUna + SkippedBytes(qp);
        p.rateBps = q.cc->rateBps();
        // Skippable: one message being sent and acknowledged (sndNxt inside the oldest unacknowledged one),
        // nothing being resent; what is left of it beyond the highest byte sent.
        const bool inHead = q.head < q.messages.size() && q.highestSent < q.headEndSeq;
        p.skippable = inHead && q.sndNxt == q.highestSent;
        p.unsentBytes = inHead ? q.headEndSeq - q.highestSent : 0;
        out.push_back(p);
    }
}

void RoceNic::SkipBytes(uint32_t qp, int64_t bytes, RoceNic& receiver) {
    QueuePair& q = m_qps[qp];
    const uint64_t magnitude = static_cast<uint64_t>(bytes < 0 ? -bytes : bytes);
    NS_ABORT_MSG_IF(q.state == QpState::Free || q.head >= q.messages.size(),
                    "fast-forward: host " << m_host << " QP " << qp << " has no message to skip bytes of");
    NS_ABORT_MSG_IF(bytes > 0 && q.highestSent + magnitude > q.headEndSeq,
                    "fast-forward: skipping " << magnitude << " bytes would end host " << m_host << " QP "
                                              << qp << "'s message inside the jump");
    const auto move = [bytes](uint64_t& seq) {
        seq = static_cast<uint64_t>(static_cast<int64_t>(seq) - bytes);
    };
    for (std::size_t i = q.head; i < q.messages.size(); ++i) {
        move(q.messages[i].endSeq);
    }
    move(q.sizeBytes);
    move(q.headEndSeq);
    if (q.sending == q.head && q.sendingEndSeq != 0) {
        move(q.sendingEndSeq);
    }
    if (qp >= m_skippedBytes.size()) {
        m_skippedBytes.resize(m_qps.size(), 0);
    }
    m_skippedBytes[qp] = static_cast<uint64_t>(static_cast<int64_t>(m_skippedBytes[qp]) + bytes);
    RxContext& rx = receiver.m_rx[q.dstQp];
    NS_ABORT_MSG_IF(!rx.active || rx.flowId != q.flowId || rx.head >= rx.messages.size(),
                    "fast-forward: host " << receiver.m_host << " has no receive context for host " << m_host
                                          << " QP " << qp);
    for (std::size_t i = rx.head; i < rx.messages.size(); ++i) {
        move(rx.messages[i].endSeq);
    }
    move(rx.headEndSeq);
    move(rx.expectedEnd);
    receiver.m_deliveredBytes =
        static_cast<uint64_t>(static_cast<int64_t>(receiver.m_deliveredBytes) + bytes);
}

void RoceNic::SkipQuietTime(int64_t deltaNs) {
    for (uint32_t qp = 0; qp < m_qps.size(); ++qp) {
        if (m_qps[qp].state != QpState::Free) {
            m_qps[qp].cc->skipQuietTime(deltaNs);
        }
    }
}

std::string RoceNic::DescribeActive() const {
    static const char* kStates[] = {"free", "ready", "pacing", "window-blocked", "idle"};
    std::ostringstream out;
    for (const QueuePair& q : m_qps) {
        if (q.state != QpState::Free) {
            out << "  host " << m_host << " flow " << q.flowId << " -> host " << q.dstHost << ": " << q.sndUna
                << " of " << q.sizeBytes << " B acknowledged, next byte " << q.sndNxt << ", "
                << kStates[static_cast<int>(q.state)] << "\n";
        }
    }
    return out.str();
}

}  // namespace mlnet::roce
