// RoceNic's receive path (one class over two files; the rest is in roce-nic.cc): receive contexts, data in
// with the ACK/NACK/CNP it triggers (OnData, SendControl), and ACKs and CNPs for the sending QPs.
#include <algorithm>
#include <vector>

#include "ns3/simulator.h"

#include "roce-nic.h"
#include "roce-timing.h"
#include "wire-format.h"

namespace mlnet::roce {

uint32_t RoceNic::OpenReceive(uint64_t connectionId, uint32_t srcHost, uint16_t udpSrcPort,
                              uint16_t flowDstPort) {
    const uint32_t index = m_rx.acquire();
    RxContext& rx = m_rx[index];
    std::vector<IncomingMessage> keep = std::move(rx.messages);  // keeps its capacity across reuse
    keep.clear();
    rx = RxContext{};
    rx.messages = std::move(keep);
    rx.active = true;
    // The ACK direction: from this host back to the sender.
    const uint32_t key = m_routing->flowKey(udpSrcPort, flowDstPort, true);
    rx.port = PortTowards(srcHost, key);
    rx.route = m_spec ? RoceRoute::Compute(*m_spec, *m_routing, m_host, srcHost, key) : RoceRoute{};
    rx.flowId = connectionId;
    rx.srcHost = srcHost;
    rx.udpSrcPort = udpSrcPort;
    return index;
}

void RoceNic::ExpectMessage(uint32_t receiveContext, uint64_t messageId, uint64_t sizeBytes,
                            Received received) {
    RxContext& rx = m_rx[receiveContext];
    rx.expectedEnd += sizeBytes;
    rx.messages.push_back({messageId, rx.expectedEnd, std::move(received)});
    if (rx.messages.size() == rx.head + 1) {
        rx.headEndSeq = rx.expectedEnd;
    }
    if (rx.expectedEnd <= rx.expected && rx.messages.size() == rx.head + 1) {
        ns3::Simulator::ScheduleNow(&RoceNic::ReceiveEmpty, this, receiveContext, rx.flowId);
    }
}

void RoceNic::ReceiveEmpty(uint32_t receiveContext, uint64_t flowId) {
    RxContext& rx = m_rx[receiveContext];
    if (rx.active && rx.flowId == flowId) {
        DeliverCompleted(receiveContext);
    }
}

void RoceNic::DeliverCompleted(uint32_t receiveContext) {
    RxContext& rx = m_rx[receiveContext];
    m_completedScratch.clear();
    while (rx.head < rx.messages.size() && rx.messages[rx.head].endSeq <= rx.expected) {
        m_completedScratch.push_back(std::move(rx.messages[rx.head++]));
    }
    if (rx.head == rx.messages.size()) {
        rx.messages.clear();
        rx.head = 0;
    }
    rx.headEndSeq = rx.head < rx.messages.size() ? rx.messages[rx.head].endSeq : UINT64_MAX;
    const TimePs now = simNowPs();
    // Callbacks may expect the connection's next message, which may grow rx.messages: they run off a copy.
    for (IncomingMessage& m : m_completedScratch) {
        if (m.received) {
            m.received(m.id, now);
        }
    }
    m_completedScratch.clear();
}

void RoceNic::CloseReceive(uint32_t receiveContext) {
    m_rx[receiveContext].active = false;
    m_rx[receiveContext].messages.clear();
    m_rx[receiveContext].head = 0;
    m_rx[receiveContext].headEndSeq = UINT64_MAX;
    m_rx.release(receiveContext);
}

void RoceNic::ExpectFrame(void* object, const RoceNetDevice::ExpectedFrame& frame) {
    const RoceNic& nic = *static_cast<const RoceNic*>(object);
    if (frame.kind == PacketKind::Data) {
        if (frame.dstQp < nic.m_rx.size()) {
            PrefetchLines(&nic.m_rx[frame.dstQp], sizeof(RxContext));
        }
    } else if (frame.kind == PacketKind::Ack || frame.kind == PacketKind::Nack) {
        if (frame.dstQp < nic.m_qps.size()) {
            PrefetchLines(&nic.m_qps[frame.dstQp], kQpHotBytes);
            const CcLines& cc = nic.m_ccLines[frame.dstQp];
            PrefetchLines(cc.object, cc.bytes);
            PrefetchLines(frame.hops, frame.intHops * sizeof(IntHop));
        }
    }
}

void RoceNic::Receive(uint32_t, RocePacket* packet) {
    switch (packet->kind) {
        case PacketKind::Data:
            OnData(packet);
            break;
        case PacketKind::Ack:
        case PacketKind::Nack:
            OnAck(packet);
            break;
        case PacketKind::Cnp:
            OnCnp(packet);
            break;
        case PacketKind::Pause:
            m_pool->release(packet);
            break;
    }
}

void RoceNic::OnData(RocePacket* p) {
    RxContext* rx = p->dstQp < m_rx.size() ? &m_rx[p->dstQp] : nullptr;
    if (!rx || !rx->active || rx->flowId != p->flow) {
        m_pool->release(p);  // a late copy of a finished message
        return;
    }
    const uint32_t context = p->dstQp;
    rx->srcQp = p->srcQp;  // the sender's QP, which our ACKs address
    const TimePs now = nowPs();
    if (p->ecn == kEcnCe) {
        rx->ceSinceAck = true;
        if (!m_settings.ecnEchoOnAck && (!rx->cnpSent || now - rx->lastCnpPs >= m_settings.cnpIntervalPs)) {
            rx->cnpSent = true;
            rx->lastCnpPs = now;
            ++m_cnpsSent;
            SendControl(PacketKind::Cnp, context, rx->expected, p, false);
        }
    }
    // The ACK or NACK, if any, is built in p's slot: p is gone once it is sent.
    bool completed = false, answered = true;
    if (p->seq == rx->expected) {
        const uint64_t before = rx->expected;
        rx->expected += p->payloadBytes;
        rx->unacked += p->payloadBytes;
        m_deliveredBytes += p->payloadBytes;
        completed = rx->expected >= rx->headEndSeq;
        const bool chunkBoundary = m_settings.ackChunkBytes && before / m_settings.ackChunkBytes !=
                                                                   rx->expected / m_settings.ackChunkBytes;
        if (rx->unacked >= m_settings.ackIntervalBytes || p->lastOfMessage || chunkBoundary) {
            SendControl(PacketKind::Ack, context, rx->expected, p, true);
        } else {
            answered = false;
        }
    } else if (p->seq > rx->expected) {
        ++m_outOfOrder;
        if (rx->lastNackSeq != rx->expected || now - rx->lastNackPs >= m_settings.nackIntervalPs) {
            rx->lastNackSeq = rx->expected;
            rx->lastNackPs = now;
            ++m_nacksSent;
            SendControl(PacketKind::Nack, context, rx->expected, p, true);
        } else {
            answered = false;
        }
    } else {
        // A duplicate: re-acknowledge, so a lost ACK is repaired without waiting for another timeout.
        SendControl(PacketKind::Ack, context, rx->expected, p, true);
    }
    if (!answered) {
        m_pool->release(p);
    }
    if (completed) {
        DeliverCompleted(context);  // after this packet's ACK is queued
    }
}

void RoceNic::SendControl(PacketKind kind, uint32_t rxIndex, uint64_t seq, RocePacket* data, bool reuseData) {
    RxContext& rx = m_rx[rxIndex];
    // What the reply takes from the data, read before a reused slot is overwritten.
    const uint8_t priority = m_settings.ackClassFromData ? data->priority : m_settings.ackPriority;
    const uint16_t udpSrcPort = data->udpSrcPort;
    const uint64_t sentPs = data->sentPs;
    const uint32_t hops = kind != PacketKind::Cnp && m_settings.intEnabled ? data->intHops : 0;
    RocePacket* p;
    if (reuseData) {
        p = m_pool->recycle(data);
    } else {
        p = m_pool->allocate();
        std::copy(data->hops, data->hops + hops, p->hops);
    }
    p->kind = kind;
    p->priority = priority;
    p->ecn = kEcnNotEct;
    p->srcHost = m_host;
    p->dstHost = rx.srcHost;
    p->srcQp = rxIndex;
    p->dstQp = rx.srcQp;
    p->flow = rx.flowId;
    p->udpSrcPort = udpSrcPort;
    // The data's 5-tuple picks the path; a context's route was made from the tuple it was opened with.
    p->route = udpSrcPort == rx.udpSrcPort ? rx.route : RoceRoute{};
    p->seq = seq;
    p->payloadBytes = 0;
    p->sentPs = sentPs;
    p->intHops = static_cast<uint8_t>(hops);
    if (kind == PacketKind::Cnp) {
        p->frameBytes = m_settings.frames.Cnp();
    } else {
        p->ecnEcho = m_settings.ecnEchoOnAck && rx.ceSinceAck;
        p->frameBytes = m_settings.frames.Ack(hops, m_settings.intEnabled);
        rx.unacked = 0;
        rx.ceSinceAck = false;
    }
    Port& port = m_ports[rx.port];
    port.control.push(p);
    port.device->Kick();
}

void RoceNic::OnAck(RocePacket* p) {
    // The QP and its CC state were asked for by the frame's arrival hint (ExpectFrame).
    QueuePair* q = p->dstQp < m_qps.size() ? &m_qps[p->dstQp] : nullptr;
    if (!q || q->state == QpState::Free || q->flowId != p->flow) {
        m_pool->release(p);
        return;
    }
    const uint32_t qp = p->dstQp;
    const TimePs now = nowPs();
    const uint64_t newly = p->seq > q->sndUna ? p->seq - q->sndUna : 0;
    if (newly) {
        q->sndUna = p->seq;
        q->lastProgressPs = now;
    }
    if (q->sndNxt < q->sndUna) {
        q->sndNxt = q->sndUna;
    }
    if (p->kind == PacketKind::Nack && q->sndNxt > p->seq) {
        q->sndNxt = p->seq;  // go-back-N from the receiver's next expected byte
    }
    cc::AckSignal signal;
    signal.nowNs = now / 1000;
    signal.ackSeq = p->seq;
    signal.newlyAcked = newly;
    signal.sndNxt = q->sndNxt;
    signal.ecnEcho = p->ecnEcho;
    signal.rttNs = p->sentPs ? (now - p->sentPs) / 1000 : 0;
    signal.hops = p->hops;
    signal.numHops = p->intHops;
    const uint64_t rateBefore = q->cc->rateBps(), windowBefore = q->cc->windowBytes();
    const uint64_t updatesBefore = q->cc->rateUpdates();
    q->cc->onAck(signal);
    m_pool->release(p);
    // The reference's ChangeRate follows every HPCC rate update, the same rate too: it shifts the pending
    // send and may pull the port's wake-up earlier.
    if (m_settings.shiftPacingOnRateChange && q->cc->rateUpdates() != updatesBefore) {
        ShiftPacing(*q, rateBefore);
    }
    if (q->cc->rateBps() != rateBefore || q->cc->windowBytes() != windowBefore) {
        m_rateTrace(q->flowId, q->cc->rateBps(), q->cc->windowBytes());
    }
    const uint32_t portIndex = q->port;
    if (q->sndUna >= q->headEndSeq && !CompleteMessages(qp)) {
        if (m_settings.arbitration == NicArbitration::ScanAll) {
            // The reference prompts its port after every ACK (TriggerTransmit), also the one that ends a
            // flow: a paced QP whose time has come goes then, if no wake-up was pending for it.
            m_ports[portIndex].device->Kick();
        }
        return;
    }
    ArmCcTimer(qp);
    Activate(qp);
}

void RoceNic::ShiftPacing(QueuePair& q, uint64_t rateBefore) {
    // Before a QP's first frame there is nothing to shift (the reference's shift is 0 then).
    const TimePs before =
        q.lastFrameBytes ? chargedWireTimePs(m_settings.frames, q.lastFrameBytes, rateBefore) : 0;
    const TimePs after =
        q.lastFrameBytes ? chargedWireTimePs(m_settings.frames, q.lastFrameBytes, q.cc->rateBps()) : 0;
    q.nextAvailPs = after >= before ? q.nextAvailPs + (after - before)
                                    : q.nextAvailPs - std::min(q.nextAvailPs, before - after);
    if (q.state == QpState::Pacing) {
        // Queue it again at the new time (Activate below); the heap entry at the old time is then stale and
        // only re-activates a QP that is still waiting.
        q.state = QpState::Idle;
    }
    Port& port = m_ports[q.port];
    if (m_settings.arbitration == NicArbitration::ScanAll && port.wakePending &&
        q.nextAvailPs < port.wakeAtPs) {
        WakeAt(q.port, std::max(q.nextAvailPs, nowPs()));  // the reference's UpdateNextAvail
    }
}

void RoceNic::OnCnp(RocePacket* p) {
    QueuePair* q = p->dstQp < m_qps.size() ? &m_qps[p->dstQp] : nullptr;
    if (q && q->state != QpState::Free && q->flowId == p->flow) {
        const uint64_t rateBefore = q->cc->rateBps();
        q->cc->onCnp(nowPs() / 1000);
        if (q->cc->rateBps() != rateBefore) {
            m_rateTrace(q->flowId, q->cc->rateBps(), q->cc->windowBytes());
        }
        ArmCcTimer(p->dstQp);
    }
    m_pool->release(p);
}

}  // namespace mlnet::roce
