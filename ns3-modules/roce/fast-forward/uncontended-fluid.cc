#include "uncontended-fluid.h"

#include <algorithm>
#include <cmath>

#include "roce-simulator-impl.h"
#include "roce-timing.h"

namespace mlnet::roce {

UncontendedFluid::UncontendedFluid(const TopologySpec& spec, const Routing& routing, const NicSettings& nic,
                                   bool cutThrough, Fabric fabric)
    : m_spec(spec),
      m_routing(routing),
      m_nic(nic),
      m_cutThrough(cutThrough),
      m_fabric(std::move(fabric)),
      m_fluid(*this, makeCallback<&UncontendedFluid::Departed>(this)),
      m_packetUsers(2 * spec.cables.size(), 0),
      m_fluidOn(2 * spec.cables.size()),
      m_fluidAcksOn(2 * spec.cables.size()),
      m_ingress(2 * spec.cables.size(), UINT32_MAX),
      m_down(spec.cables.size(), 0) {
    for (uint32_t c = 0; c < spec.cables.size(); ++c) {
        const uint64_t rate = spec.cables[c].rateBps;
        // No latency on the fluid links: a message's own path latency (its last frame's) is added at its
        // departure.
        const double bytesPerNs = static_cast<double>(rate) / 8e9;
        m_fluid.addLink(bytesPerNs, 0);
        m_fluid.addLink(bytesPerNs, 0);
    }
    // ACKs per data packet: one per ackIntervalBytes of payload (every packet by default), and one more at
    // every ackChunkBytes boundary.
    const uint32_t mtu = nic.mtuPayloadBytes;
    double acksPerPacket =
        1.0 / static_cast<double>(std::max<uint64_t>(1, (nic.ackIntervalBytes + mtu - 1) / mtu));
    if (nic.ackChunkBytes > 0) {
        acksPerPacket += static_cast<double>(mtu) / static_cast<double>(nic.ackChunkBytes);
    }
    m_acksPerPacket = std::min(1.0, acksPerPacket);
    if (m_fabric.steer) {
        m_steering = std::make_unique<FluidSteering>(m_fluid, spec, m_fabric.steer, m_fabric.flowParams,
                                                     nic.frames.Data(mtu, nic.intEnabled),
                                                     nic.frames.OverheadBytes(), nic.intEnabled);
    }
}

TimePs UncontendedFluid::FrameTimePs(uint32_t link, uint64_t frameBytes) const {
    return bitsTimePs(frameBytes * 8, RateBps(link));
}

void UncontendedFluid::Start(uint64_t messageId, uint32_t src, uint32_t dst, uint64_t sizeBytes,
                             uint8_t priority, uint16_t flowDstPort, RoceNic::Done sent,
                             RoceNic::Received received) {
    const uint32_t slot = m_messages.acquire();
    Message& m = m_messages[slot];
    m.id = messageId;
    m.order = m_started++;
    m.src = src;
    m.dst = dst;
    m.sizeBytes = sizeBytes;
    m.priority = priority;
    m.sport = m_fabric.sourcePort(src, dst);
    m.dport = flowDstPort;
    m.startPs = simNowPs();
    m.fluid = false;
    m.holding = false;
    m.sent = std::move(sent);
    m.received = std::move(received);
    const bool routed =
        src != dst && m_routing.directedPath(src, dst, m_routing.flowKey(m.sport, m.dport, false), m.links) &&
        m_routing.directedPath(dst, src, m_routing.flowKey(m.sport, m.dport, true), m.acks);
    if (!routed) {
        m.links.clear();  // the packet model reports what is wrong with it
        m.acks.clear();
        StartPacket(slot, sizeBytes, 0);
        StartQueued();
        return;
    }
    if (sizeBytes == 0 || !Alone(m) || !Quiet()) {
        Convert(m);
        StartPacket(slot, sizeBytes, 0);
        StartQueued();
        return;
    }
    // The frames' bytes, and the latency of the last frame (the shortest) on each hop after the first and
    // of an ACK on every hop back.
    const uint32_t mtu = m_nic.mtuPayloadBytes;
    const uint64_t packets = (sizeBytes + mtu - 1) / mtu;
    const uint32_t last = static_cast<uint32_t>(sizeBytes - (packets - 1) * mtu);
    const FrameCharges& frames = m_nic.frames;
    const uint64_t overhead = frames.OverheadBytes();
    const uint64_t fullFrame = frames.Data(mtu, m_nic.intEnabled) + overhead;
    const uint64_t lastFrame = frames.Data(last, m_nic.intEnabled) + overhead;
    const uint64_t header = frames.Data(0, m_nic.intEnabled) + overhead;
    m.wireBytes = (packets - 1) * fullFrame + lastFrame;
    // From the last frame's departure from the source to its arrival, hop by hop: a switch starts a frame
    // once it is in (cut through: its header) and its egress has sent the frame before it, a full one that
    // left the source one last frame's time earlier. Times relative to the last frame's departure.
    int64_t lastOut = 0, previousOut = -static_cast<int64_t>(FrameTimePs(m.links[0], lastFrame));
    for (std::size_t i = 1; i < m.links.size(); ++i) {
        const int64_t delay = static_cast<int64_t>(m_spec.cables[m.links[i - 1] / 2].delayPs);
        const auto early =
            [&](uint64_t frameBytes) {  // how much earlier than its last bit a switch starts it
                return m_cutThrough ? static_cast<int64_t>(FrameTimePs(m.links[i - 1], frameBytes) -
                                                           FrameTimePs(m.links[i - 1], header))
                                    : 0;
            };
        const int64_t lastIn = lastOut + delay - early(lastFrame);
        const int64_t previousIn = previousOut + delay - early(fullFrame);
        previousOut = previousIn + static_cast<int64_t>(FrameTimePs(m.links[i], fullFrame));
        lastOut = std::max(lastIn, packets > 1 ? previousOut : lastIn) +
                  static_cast<int64_t>(FrameTimePs(m.links[i], lastFrame));
    }
    m.dataLatencyPs = static_cast<TimePs>(lastOut) + m_spec.cables[m.links.back() / 2].delayPs;
    // An ACK echoes the INT records of the switches the data crossed.
    m.ackFrameBytes = frames.Ack(static_cast<uint32_t>(m.links.size() - 1), m_nic.intEnabled);
    m.ackWeight =
        m_acksPerPacket * static_cast<double>(m.ackFrameBytes + overhead) / static_cast<double>(fullFrame);
    const uint64_t ack = m.ackFrameBytes + overhead;
    m.ackLatencyPs = 0;
    for (uint32_t link : m.acks) {
        m.ackLatencyPs += m_spec.cables[link / 2].delayPs + FrameTimePs(link, ack);
    }
    // A full frame's round trip: onto each cable (a cut-through switch starts it once its header is in),
    // across them, back as an ACK.
    m.roundTripPs = m.ackLatencyPs;
    for (std::size_t i = 0; i < m.links.size(); ++i) {
        m.roundTripPs += m_spec.cables[m.links[i] / 2].delayPs + FrameTimePs(m.links[i], fullFrame);
        if (m_cutThrough && i > 0) {
            m.roundTripPs -= FrameTimePs(m.links[i - 1], fullFrame) - FrameTimePs(m.links[i - 1], header);
        }
    }
    m_stats.packetHops += packets * m.links.size();
    ++m_stats.messages;
    m_stats.bytes += sizeBytes;
    m_fluidStartedPs = simNowPs();
    StartFluid(slot);
}

bool UncontendedFluid::Quiet() {
    const TimePs now = simNowPs();
    if (m_fabric.congestion && now - m_congestionPolledPs >= kCongestionPollPs) {
        m_congestionPolledPs = now;
        const uint64_t count = m_fabric.congestion();
        if (count != m_congestion) {
            m_congestion = count;
            m_congestedAtPs = now;
        }
    }
    if (m_congestion > 0 && now - m_congestedAtPs < kQuietPs) {  // counts only grow: > 0 once congested
        return false;
    }
    return m_stats.converted <= kConversionGrace || m_stats.converted * 5 <= m_stats.messages;
}

bool UncontendedFluid::Alone(const Message& m) const {
    for (uint32_t link : m.acks) {
        if (m_packetUsers[link] > 0) {
            return false;  // its ACKs would meet packets, which see no fluid load
        }
    }
    for (std::size_t i = 0; i < m.links.size(); ++i) {
        const uint32_t link = m.links[i];
        if (m_packetUsers[link] > 0 || m_down[link / 2]) {
            return false;
        }
        if (i == 0) {
            continue;  // the source NIC's port: its flows share it round robin
        }
        const uint32_t in = m.links[i - 1];
        if (RateBps(in) > RateBps(link) || (!m_fluidOn[link].empty() && m_ingress[link] != in)) {
            return false;  // a queue could build at this switch
        }
    }
    return true;
}

void UncontendedFluid::StartFluid(uint32_t slot) {
    Message& m = m_messages[slot];
    m.fluid = true;
    m.holding = true;
    for (std::size_t i = 0; i < m.links.size(); ++i) {
        m_fluidOn[m.links[i]].push_back(slot);
        if (i > 0) {
            m_ingress[m.links[i]] = m.links[i - 1];
        }
    }
    for (uint32_t link : m.acks) {
        m_fluidAcksOn[link].push_back(slot);
    }
    ++m_fluidInFlight;
    if (m_steering) {
        // Its own link (the rate its congestion control sets) and its NIC's cable are the source's.
        m_fluid.start(slot, m_steering->Route(slot, m.links), m.wireBytes, m.acks, m.ackWeight, 2);
        m_steering->Begin(slot, m.src, m.dst, m.links, static_cast<double>(m.wireBytes), m.roundTripPs,
                          m.ackFrameBytes);
    } else {
        m_fluid.start(slot, m.links, m.wireBytes, m.acks, m.ackWeight);
    }
}

void UncontendedFluid::StartPacket(uint32_t slot, uint64_t sizeBytes, int64_t aloneNs,
                                   std::unique_ptr<cc::CongestionControl> steered) {
    Message& m = m_messages[slot];
    m.fluid = false;
    m.holding = true;
    for (uint32_t link : m.links) {
        ++m_packetUsers[link];
    }
    for (uint32_t link : m.acks) {
        ++m_packetUsers[link];
    }
    ++m_stats.packetMessages;
    m_waiting.push_back({slot, sizeBytes, aloneNs, std::move(steered)});
}

void UncontendedFluid::StartQueued() {
    if (m_waiting.empty() || m_waitingForInstantEnd) {
        return;
    }
    if (m_fluidStartedPs == simNowPs()) {
        m_waitingForInstantEnd = true;
        Later(0, makeCallback<&UncontendedFluid::StartWaiting>(this, 0));
        return;
    }
    StartWaiting(0);
}

void UncontendedFluid::StartWaiting(uint64_t) {
    m_waitingForInstantEnd = false;
    std::vector<WaitingStart> waiting = std::move(m_waiting);
    m_waiting.clear();
    std::sort(waiting.begin(), waiting.end(), [this](const WaitingStart& a, const WaitingStart& b) {
        return m_messages[a.slot].order < m_messages[b.slot].order;
    });
    for (WaitingStart& w : waiting) {
        StartOnNic(std::move(w));
    }
}

void UncontendedFluid::StartOnNic(WaitingStart start) {
    const uint32_t slot = start.slot;
    Message& m = m_messages[slot];
    RoceNic::Received received;
    if (m.received) {
        received = [this, slot](uint64_t, TimePs atPs) {
            Message& msg = m_messages[slot];
            const RoceNic::Received r = std::move(msg.received);
            msg.received = nullptr;
            r(msg.id, atPs);
        };
    }
    m_fabric.start(
        m.id, m.src, m.dst, start.sizeBytes, m.priority, m.sport, m.dport, start.aloneNs,
        std::move(start.steered), [this, slot](const FlowCompletion& done) { PacketSent(slot, done); },
        std::move(received));
}

void UncontendedFluid::PacketSent(uint32_t slot, const FlowCompletion& done) {
    Message& m = m_messages[slot];
    Release(slot);
    // The whole message as its sender saw it, from its start (a converted message's fluid part included).
    FlowCompletion whole = done;
    whole.sizeBytes = m.sizeBytes;
    whole.startPs = m.startPs;
    const RoceNic::Done sent = std::move(m.sent);
    m.sent = nullptr;
    m.received = nullptr;
    m_messages.release(slot);
    if (sent) {
        sent(whole);
    }
}

void UncontendedFluid::Release(uint32_t slot) {
    Message& m = m_messages[slot];
    if (!m.holding) {
        return;
    }
    m.holding = false;
    if (m.fluid && m_steering) {
        m_steering->End(slot);
    }
    const auto off = [slot](std::vector<uint32_t>& on) { on.erase(std::find(on.begin(), on.end(), slot)); };
    for (uint32_t link : m.links) {
        m.fluid ? off(m_fluidOn[link]) : void(--m_packetUsers[link]);
    }
    for (uint32_t link : m.acks) {
        m.fluid ? off(m_fluidAcksOn[link]) : void(--m_packetUsers[link]);
    }
}

void UncontendedFluid::Convert(const Message& packet) {
    m_work.insert(m_work.end(), packet.links.begin(), packet.links.end());
    m_work.insert(m_work.end(), packet.acks.begin(), packet.acks.end());
    Drain();
}

void UncontendedFluid::Drain() {
    // Gather every fluid flow the cables reach (and the cables those occupy), then move them.
    while (!m_work.empty()) {
        const uint32_t link = m_work.back();
        m_work.pop_back();
        for (const std::vector<uint32_t>* on : {&m_fluidOn[link], &m_fluidAcksOn[link]}) {
            for (uint32_t slot : *on) {
                Message& m = m_messages[slot];
                if (!m.reached) {
                    m.reached = true;
                    m_reached.push_back(slot);
                    if (m_fluid.sending(slot)) {  // else it stays fluid to its arrival (ConvertOne)
                        m_work.insert(m_work.end(), m.links.begin(), m.links.end());
                        m_work.insert(m_work.end(), m.acks.begin(), m.acks.end());
                    }
                }
            }
        }
    }
    const std::vector<uint32_t> reached = std::move(m_reached);
    m_reached.clear();
    for (uint32_t slot : reached) {
        m_messages[slot].reached = false;
        ConvertOne(slot);
    }
}

void UncontendedFluid::ConvertOne(uint32_t slot) {
    Message& m = m_messages[slot];
    // A steered flow's congestion control goes on in its packets at the rate and window it had reached: a new
    // one would start at the line rate, where the full run's flow is steered below it.
    std::unique_ptr<cc::CongestionControl> steered =
        m.fluid && m_steering && m_fluid.sending(slot) ? m_steering->HandOver(slot) : nullptr;
    Release(slot);
    if (!m_fluid.sending(slot)) {
        return;  // every byte has left: its arrival stays fluid
    }
    // The bytes left to send, as whole packets of payload (the frames' share of the wire bytes).
    const double wireLeft = m_fluid.stop(slot);
    const uint32_t mtu = m_nic.mtuPayloadBytes;
    const double fraction = wireLeft / static_cast<double>(m.wireBytes);
    uint64_t left = static_cast<uint64_t>(std::ceil(fraction * static_cast<double>(m.sizeBytes) / mtu)) * mtu;
    left = std::clamp<uint64_t>(left, 1, m.sizeBytes);
    m_deliveredBytes += m.sizeBytes - left;
    --m_fluidInFlight;
    ++m_stats.converted;
    m_stats.convertedBytes += left;
    m_stats.packetHops -= (left + mtu - 1) / mtu * m.links.size();
    const int64_t aloneNs = steered ? 0 : static_cast<int64_t>(psToNs(simNowPs() - m.startPs));
    StartPacket(slot, left, aloneNs, std::move(steered));
}

void UncontendedFluid::heldDownstream(uint32_t id) {
    // Called from inside a rate pass: converted right after it.
    if (m_held.empty()) {
        Later(0, makeCallback<&UncontendedFluid::ConvertHeld>(this, 0));
    }
    m_held.push_back(id);
}

void UncontendedFluid::ConvertHeld(uint64_t) {
    const std::vector<uint32_t> held = std::move(m_held);
    m_held.clear();
    for (uint32_t slot : held) {
        const Message& m = m_messages[slot];
        if (m.fluid && m.holding && m_fluid.sending(slot)) {
            ++m_stats.heldDownstream;
            // It, and the fluid flows its packets will meet.
            m_work.insert(m_work.end(), m.links.begin(), m.links.end());
            m_work.insert(m_work.end(), m.acks.begin(), m.acks.end());
            Drain();
        }
    }
    StartQueued();
}

void UncontendedFluid::CableDown(uint32_t cable) {
    m_down[cable] = 1;
    Message gone;
    gone.links = {2 * cable, 2 * cable + 1};
    Convert(gone);
    StartQueued();
}

void UncontendedFluid::Departed(uint64_t slot) {
    const uint32_t s = static_cast<uint32_t>(slot);
    Release(s);  // its last byte is off the source: the cables are free for what comes next
    Later(m_messages[s].dataLatencyPs, makeCallback<&UncontendedFluid::Received>(this, slot));
}

void UncontendedFluid::Received(uint64_t slot) {
    Message& m = m_messages[static_cast<uint32_t>(slot)];
    m_deliveredBytes += m.sizeBytes;
    if (m.received) {
        const RoceNic::Received r = std::move(m.received);
        m.received = nullptr;
        r(m.id, simNowPs());
    }
    Later(m.ackLatencyPs, makeCallback<&UncontendedFluid::Acknowledged>(this, slot));
}

void UncontendedFluid::Acknowledged(uint64_t slot) {
    const uint32_t s = static_cast<uint32_t>(slot);
    Message& m = m_messages[s];
    --m_fluidInFlight;
    const FlowCompletion done{m.id, m.src, m.dst, m.sport, m.sizeBytes, m.startPs, simNowPs(), 0, true};
    const RoceNic::Done sent = std::move(m.sent);
    m.sent = nullptr;
    m_messages.release(s);
    if (sent) {
        sent(done);
    }
}

UncontendedFluidStats UncontendedFluid::Stats() const {
    UncontendedFluidStats s = m_stats;
    s.ratePasses = m_fluid.counters().rateRecomputations;
    if (m_steering) {
        s.steeredAcks = m_steering->Stats().acks;
        s.steeredRateChanges = m_steering->Stats().rateChanges;
    }
    return s;
}

}  // namespace mlnet::roce
