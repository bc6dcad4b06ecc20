#include "roce-net-device.h"

#include <algorithm>
#include <iterator>

#include "ns3/abort.h"
#include "ns3/data-rate.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include "pcap-writer.h"
#include "roce-channel.h"
#include "roce-nic.h"
#include "roce-simulator-impl.h"
#include "roce-switch.h"
#include "roce-timing.h"
#include "wire-format.h"

namespace mlnet::roce {

NS_OBJECT_ENSURE_REGISTERED(RoceNetDevice);

namespace {}  // namespace

ns3::TypeId RoceNetDevice::GetTypeId() {
    static ns3::TypeId tid =
        ns3::TypeId("mlnet::roce::RoceNetDevice")
            .SetParent<ns3::NetDevice>()
            .SetGroupName("Roce")
            .AddConstructor<RoceNetDevice>()
            .AddAttribute("DataRate", "Line rate (default 100 Gb/s).",
                          ns3::DataRateValue(ns3::DataRate(100'000'000'000ull)),
                          ns3::MakeDataRateAccessor(&RoceNetDevice::SetDataRate, &RoceNetDevice::GetDataRate),
                          ns3::MakeDataRateChecker())
            .AddTraceSource("Pause",
                            "A PFC frame arrived here, pausing or resuming this port's sending of a class: "
                            "port (this device's index on its node), priority (the class, 0-7), pause "
                            "(false: a resume), quanta (pause time in 512-bit times at the port's rate).",
                            ns3::MakeTraceSourceAccessor(&RoceNetDevice::m_pauseTrace),
                            "mlnet::roce::RoceNetDevice::PauseCallback")
            .AddTraceSource("Tx",
                            "A frame started on the wire here: packet (kind, flow, sizes; valid during the "
                            "call only).",
                            ns3::MakeTraceSourceAccessor(&RoceNetDevice::m_txTrace),
                            "mlnet::roce::RoceNetDevice::TxCallback");
    return tid;
}

RoceNetDevice::RoceNetDevice() = default;

void RoceNetDevice::SetDataRate(ns3::DataRate rate) {
    NS_ABORT_MSG_IF(rate.GetBitRate() == 0, "RoceNetDevice: DataRate must be above 0 bps");
    m_rateBps = rate.GetBitRate();
    m_psPerFramedByte = framedPsPerByte(m_charges, m_rateBps);
}

void RoceNetDevice::SetFrameCharges(const FrameCharges& charges) {
    m_charges = charges;
    m_psPerFramedByte = framedPsPerByte(m_charges, m_rateBps);
}

void RoceNetDevice::Setup(RocePortOwner* owner, uint32_t port, PacketPool* pool) {
    m_owner = owner;
    m_ownerKind = dynamic_cast<RoceSwitch*>(owner) ? OwnerKind::Switch
                  : dynamic_cast<RoceNic*>(owner)  ? OwnerKind::Nic
                                                   : OwnerKind::Other;
    m_port = port;
    m_pool = pool;
}

void RoceNetDevice::SetCutThrough(bool on) {
    // The header and the preamble before it, at this port's rate.
    m_reception.cutThroughPs = on ? bitsTimePs(uint64_t{kCutThroughHeaderBytes + 8} * 8, m_rateBps) : 0;
    ReceptionChanged();
}

void RoceNetDevice::SetArrivalHint(ArrivalHint hint, void* owner) {
    m_reception.hint = hint;
    m_reception.hintOwner = owner;
    ReceptionChanged();
}

void RoceNetDevice::SetArrivalHintAtPreviousFrame(bool on) {
    m_reception.hintAtPreviousFrame = on;
    ReceptionChanged();
}

void RoceNetDevice::SetLocalHost(uint32_t host) {
    m_reception.localHost = host;
    ReceptionChanged();
}

void RoceNetDevice::ReceptionChanged() {
    if (m_peer) {
        m_peer->m_peerReception = m_reception;
    }
}

void RoceNetDevice::Attach(ns3::Ptr<RoceChannel> channel) {
    m_channel = channel;
    channel->Attach(this);
}

ns3::Ptr<ns3::Channel> RoceNetDevice::GetChannel() const {
    return m_channel;
}

void RoceNetDevice::DoDispose() {
    m_channel = nullptr;
    m_peer = nullptr;
    m_node = nullptr;
    ns3::NetDevice::DoDispose();
}

bool RoceNetDevice::IsPaused(uint8_t priority) const {
    return m_pausedUntil[priority] > nowPs();
}

TimePs RoceNetDevice::PausedPs() const {
    if (m_pauseRx == 0) {
        return 0;  // never paused (fast-forward reads every device every window)
    }
    const TimePs now = nowPs();
    TimePs total = m_pausedPs;
    for (int q = 0; q < kNumPriorities; ++q) {
        if (m_pausedUntil[q] > m_pauseStart[q]) {
            total += std::min(now, m_pausedUntil[q]) - m_pauseStart[q];
        }
    }
    return total;
}

uint8_t RoceNetDevice::PausedMask() const {
    const TimePs now = nowPs();
    if (m_lastPauseEndPs <= now) {
        return 0;  // the common case: no pause in force, nothing to look at per priority
    }
    uint8_t mask = 0;
    for (int q = 0; q < kNumPriorities; ++q) {
        if (m_pausedUntil[q] > now) {
            mask |= static_cast<uint8_t>(1u << q);
        }
    }
    return mask;
}

RocePacket* RoceNetDevice::OwnerDequeue(uint8_t pausedMask) {
    switch (m_ownerKind) {
        case OwnerKind::Switch:
            return static_cast<RoceSwitch*>(m_owner)->Dequeue(m_port, pausedMask);
        case OwnerKind::Nic:
            return static_cast<RoceNic*>(m_owner)->Dequeue(m_port, pausedMask);
        case OwnerKind::Other:
            break;
    }
    return m_owner->Dequeue(m_port, pausedMask);
}

bool RoceNetDevice::OwnerHasNothingToSend() const {
    switch (m_ownerKind) {
        case OwnerKind::Switch:
            return static_cast<const RoceSwitch*>(m_owner)->NothingToSend(m_port);
        case OwnerKind::Nic:
            return static_cast<const RoceNic*>(m_owner)->NothingToSend(m_port);
        case OwnerKind::Other:
            break;
    }
    return m_owner->NothingToSend(m_port);
}

void RoceNetDevice::OwnerReceive(RocePacket* packet) {
    switch (m_ownerKind) {
        case OwnerKind::Switch:
            static_cast<RoceSwitch*>(m_owner)->Receive(m_port, packet);
            return;
        case OwnerKind::Nic:
            static_cast<RoceNic*>(m_owner)->Receive(m_port, packet);
            return;
        case OwnerKind::Other:
            break;
    }
    m_owner->Receive(m_port, packet);
}

void RoceNetDevice::TryStart() {
    if (m_busy && !m_donePending) {
        // Without our implementation (disposed, or another one chosen since) the place in the order cannot be
        // kept; the poll then runs at its time, after what is already due then.
        RoceSimulatorImpl* sim = RoceSimulatorImpl::Current();
        if (sim ? sim->HasPassed(m_doneAtPs, m_doneUid) : nowPs() >= m_doneAtPs) {
            m_busy = false;  // the frame ended and the skipped poll would have found nothing
        } else {
            // Something changed before the frame ended: the poll is needed, in the place it would have had.
            if (sim) {
                sim->ScheduleCallAt(m_doneAtPs, m_doneUid,
                                    &CallMember<&RoceNetDevice::TransmitComplete, RoceNetDevice>, this, 0);
            } else {
                ScheduleMember<&RoceNetDevice::TransmitComplete>(m_doneAtPs - nowPs(), this);
            }
            m_donePending = true;
            return;
        }
    }
    // The owner may call Kick() again from inside Dequeue (a QP becoming eligible); only the outer call may
    // start a transmission, or two frames would share the wire.
    if (m_busy || !m_linkUp || m_dequeuing) {
        return;
    }
    m_dequeuing = true;
    RocePacket* packet = m_control.empty() ? OwnerDequeue(PausedMask()) : m_control.pop();
    m_dequeuing = false;
    if (packet) {
        StartTransmission(packet);
    }
}

void RoceNetDevice::StartTransmission(RocePacket* packet) {
    m_busy = true;
    m_donePending = true;  // until decided below: a Kick() from a trace sink must find the wire busy
    const TimePs txPs = m_psPerFramedByte != 0
                            ? (TimePs{packet->frameBytes} + m_charges.OverheadBytes()) * m_psPerFramedByte
                            : chargedWireTimePs(m_charges, packet->frameBytes, m_rateBps);
    m_txBytes += packet->frameBytes;
    ++m_txFrames;
    m_txDataFrames += packet->kind == PacketKind::Data;
    if (m_txTraced) {
        TraceTx(packet);
    }
    if (m_capturing) {
        Capture(*packet);
    }
    RoceSimulatorImpl* sim = RoceSimulatorImpl::Current();
    const RocePacket* nextFrame = m_nextFrameHint;
    m_nextFrameHint = nullptr;
    m_doneAtPs = nowPs() + txPs;  // also what LastFrameArrivalPs reports
    if (sim && m_control.empty() && OwnerHasNothingToSend()) {
        // Nothing waits: the poll at the end of this frame would find nothing unless something arrives (or a
        // pause ends) first, and each of those calls Kick(). Kick() schedules the poll then; most idle ports
        // never need it (a third of an incast's events were such polls).
        m_doneUid = sim->ReserveUid();
        m_donePending = false;
    } else {
        ScheduleMember<&RoceNetDevice::TransmitComplete>(txPs, this, reinterpret_cast<uint64_t>(nextFrame));
        m_donePending = true;
    }
    Propagate(packet, txPs);
}

void RoceNetDevice::Propagate(RocePacket* packet, TimePs txPs) {
    if (m_lossy && m_channel->Loses(packet)) {
        m_pool->release(packet);
        return;
    }
    if (m_peerReception.hint) {
        const ExpectedFrame frame{packet, packet->hops, packet->dstQp, packet->kind, packet->intHops};
        if (!(m_peerReception.hintAtPreviousFrame && m_peer->HintAfterPrevious(frame))) {
            m_peerReception.hint(m_peerReception.hintOwner, frame);
        }
    }
    packet->cableEpoch = m_linkEpoch;
    ScheduleMember<&RoceNetDevice::Deliver>(m_peerReception.ArrivalPs(*packet, txPs) + m_delayPs, m_peer,
                                            reinterpret_cast<uint64_t>(packet));
}

bool RoceNetDevice::HintAfterPrevious(const ExpectedFrame& frame) {
    if (m_inFlightCount == kInFlightSlots) {
        return false;
    }
    m_inFlight[(m_inFlightHead + m_inFlightCount++) % kInFlightSlots] = frame;
    return m_inFlightCount > 1;
}

void RoceNetDevice::Deliver(uint64_t arg) {
    RocePacket* packet = reinterpret_cast<RocePacket*>(arg);
    if (m_inFlightCount != 0 && m_inFlight[m_inFlightHead].packet == packet) {
        m_inFlightHead = (m_inFlightHead + 1) % kInFlightSlots;
        if (--m_inFlightCount != 0 && m_reception.hint) {
            const ExpectedFrame& next = m_inFlight[m_inFlightHead];
            // Its sender last wrote it a cable's delay ago; its delivery reads both lines.
            __builtin_prefetch(next.packet);
            __builtin_prefetch(reinterpret_cast<const char*>(next.packet) + 64);
            m_reception.hint(m_reception.hintOwner, next);
        }
    }
    if (!m_linkUp || packet->cableEpoch != m_linkEpoch) {
        m_channel->LostInFlight(packet);
        m_pool->release(packet);
        return;
    }
    ReceiveFrame(packet);
}

void RoceNetDevice::TraceTx(const RocePacket* packet) {
    m_txTrace(packet);
}

void RoceNetDevice::Capture(const RocePacket& packet) {
    FrameContext ctx;
    ctx.srcNodeId = m_nodeId;
    ctx.srcPort = m_port;
    ctx.dstNodeId = m_peer->NodeId();
    ctx.dstPort = m_peer->Port();
    ctx.mtuPayloadBytes = m_pcapMtu;
    ctx.withInt = m_pcapInt;
    ctx.chargedAsFramed = m_charges.framing == Framing::RoceV2;
    RocePacket named = packet;
    named.srcHost = (*m_hostNodeIds)[packet.srcHost];
    named.dstHost = (*m_hostNodeIds)[packet.dstHost];
    m_pcap->write(nowPs() / 1000, serializeFrame(named, ctx));
}

void RoceNetDevice::TransmitComplete(uint64_t) {
    m_busy = false;
    m_donePending = false;
    Kick();
}

void RoceNetDevice::SendPause(uint8_t classes, uint16_t quanta) {
    RocePacket* p = m_pool->allocate();
    p->kind = PacketKind::Pause;
    p->priority = 0;
    p->payloadBytes = 0;
    p->frameBytes = m_charges.Pause();
    p->pauseClasses = classes;
    p->pauseQuanta = quanta;
    ++m_pauseTx;
    m_control.push(p);
    Kick();
}

void RoceNetDevice::ReceiveFrame(RocePacket* packet) {
    if (packet->kind != PacketKind::Pause) {
        OwnerReceive(packet);
        return;
    }
    ++m_pauseRx;
    const TimePs now = nowPs();
    TimePs earliest = kNeverPs;
    for (int q = 0; q < kNumPriorities; ++q) {
        if (!(packet->pauseClasses >> q & 1)) {
            continue;
        }
        const uint16_t quanta = packet->pauseQuanta;
        const bool wasPaused = m_pausedUntil[q] > now;
        if (!wasPaused && m_pausedUntil[q] > m_pauseStart[q]) {
            m_pausedPs += m_pausedUntil[q] - m_pauseStart[q];  // the last pause ran out unrenewed
        }
        if (wasPaused && quanta == 0) {
            m_pausedPs += now - m_pauseStart[q];
        }
        if (!wasPaused) {
            m_pauseStart[q] = now;
        }
        // A new frame replaces the old pause time: zero quanta resume at once, others restart the timer.
        m_pausedUntil[q] = quanta == 0          ? now
                           : m_pauseUntilResume ? kNeverPs
                                                : now + pauseDurationPs(quanta, m_rateBps);
        if (quanta == 0) {
            m_pauseStart[q] = now;
        }
        m_pauseTrace(m_port, static_cast<uint8_t>(q), quanta != 0, quanta);
        if (quanta != 0) {
            earliest = std::min(earliest, m_pausedUntil[q]);
        }
    }
    m_lastPauseEndPs = *std::max_element(std::begin(m_pausedUntil), std::end(m_pausedUntil));
    m_pool->release(packet);
    if (earliest != kNeverPs) {
        ScheduleWake(earliest);
    }
    Kick();
}

void RoceNetDevice::ScheduleWake(TimePs atPs) {
    if (m_wakePending && m_wakeAt <= atPs) {
        return;
    }
    // An earlier wake supersedes the pending one, which then fires to no effect (as a cancelled event would).
    m_wakePending = true;
    m_wakeAt = atPs;
    ScheduleMember<&RoceNetDevice::PauseExpired>(atPs - nowPs(), this, ++m_wakeGeneration);
}

void RoceNetDevice::PauseExpired(uint64_t generation) {
    if (!m_wakePending || generation != m_wakeGeneration) {
        return;
    }
    m_wakePending = false;
    const TimePs now = nowPs();
    TimePs next = kNeverPs;
    for (int q = 0; q < kNumPriorities; ++q) {
        if (m_pausedUntil[q] > now) {
            next = std::min(next, m_pausedUntil[q]);
        }
    }
    if (next != kNeverPs) {
        ScheduleWake(next);
    }
    Kick();
}

void RoceNetDevice::NotifyLinkChange(bool up) {
    m_linkUp = up;
    m_linkChange();
    if (up) {
        Kick();
    }
}

}  // namespace mlnet::roce
