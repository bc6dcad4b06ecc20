#include "fluid-steering.h"

#include <cmath>

#include "core-fluid-clock.h"
#include "roce-simulator-impl.h"

namespace mlnet::roce {

namespace {
constexpr double kRateMove = 1e-3;  // smaller moves of a flow's rate leave its link as it is
}

FluidSteering::FluidSteering(FluidLinks& fluid, const TopologySpec& spec, Factory factory, ParamsOf paramsOf,
                             uint32_t dataFrameBytes, uint32_t overheadBytes, bool telemetry)
    : m_fluid(fluid),
      m_spec(spec),
      m_factory(std::move(factory)),
      m_paramsOf(std::move(paramsOf)),
      m_dataWireBytes(dataFrameBytes + overheadBytes),
      m_overheadBytes(overheadBytes),
      m_dataShare(static_cast<double>(dataFrameBytes) / static_cast<double>(m_dataWireBytes)),
      m_telemetry(telemetry) {}

bool FluidSteering::FromSwitch(uint32_t directed) const {
    const SpecCable& cable = m_spec.cables[directed / 2];
    return m_spec.vertices[directed % 2 == 0 ? cable.a : cable.b].kind == VertexKind::Switch;
}

const std::vector<uint32_t>& FluidSteering::Route(uint32_t id, const std::vector<uint32_t>& path) {
    if (id >= m_flows.size()) {
        m_flows.resize(id + 1);
    }
    Steered& f = m_flows[id];
    f.rateBytesPerNs = static_cast<double>(LineRateBps(path)) / 8e9;
    if (f.ownLink == UINT32_MAX) {
        f.ownLink = m_fluid.addLink(f.rateBytesPerNs, 0);
    } else {
        m_fluid.setBandwidth(f.ownLink, f.rateBytesPerNs);  // no flow on it yet: no pass
    }
    m_route.assign(1, f.ownLink);
    m_route.insert(m_route.end(), path.begin(), path.end());
    return m_route;
}

void FluidSteering::Begin(uint32_t id, uint32_t src, uint32_t dst, const std::vector<uint32_t>& path,
                          double wireBytes, TimePs roundTripPs, uint32_t ackFrameBytes) {
    Steered& f = m_flows[id];
    const cc::FlowParams params = cc::onPort(m_paramsOf(src, dst), LineRateBps(path));
    f.cc = m_factory(params);
    f.active = true;
    f.phase = 0;
    f.roundTripPs = roundTripPs;
    f.frameTimePs = bitsTimePs(m_dataWireBytes * 8, params.lineRateBps);
    f.wireBytes = wireBytes;
    f.ackShare = static_cast<double>(ackFrameBytes) / static_cast<double>(ackFrameBytes + m_overheadBytes);
    f.ports.clear();
    if (m_telemetry) {
        for (uint32_t link : path) {
            if (FromSwitch(link)) {
                f.ports.push_back(link);
            }
        }
    }
    f.hops.resize(f.ports.size());
    Take(id, f.early);
    Next(id, 0);
}

void FluidSteering::End(uint32_t id) {
    Steered& f = m_flows[id];
    if (f.active) {
        f.active = false;
        ++f.generation;
        f.cc.reset();
    }
}

std::unique_ptr<cc::CongestionControl> FluidSteering::HandOver(uint32_t id) {
    std::unique_ptr<cc::CongestionControl> cc = std::move(m_flows[id].cc);
    End(id);
    return cc;
}

void FluidSteering::Next(uint32_t id, TimePs delayPs) {
    CoreFluidClock::Later(
        delayPs, makeCallback<&FluidSteering::Tick>(this, uint64_t{m_flows[id].generation} << 32 | id));
}

void FluidSteering::Take(uint32_t id, Sample& sample) {
    const Steered& f = m_flows[id];
    sample.timeNs = static_cast<double>(simNowPs()) / 1000.0;
    sample.sentBytes = f.wireBytes - m_fluid.remainingBytes(id);
    sample.portBytes.resize(f.ports.size());
    for (std::size_t i = 0; i < f.ports.size(); ++i) {
        const FluidLinks::Sent sent = m_fluid.sentBytes(f.ports[i]);
        sample.portBytes[i] = sent.flows * m_dataShare + sent.loads * f.ackShare;
    }
}

// An ACK now for the data sent at `sample`: it acknowledges what was sent by then and carries the ports'
// records of then (no queue: fluid flows queue nowhere).
void FluidSteering::Report(uint32_t id, const Sample& sample) {
    Steered& f = m_flows[id];
    const uint64_t sampledNs = static_cast<uint64_t>(std::llround(sample.timeNs));
    for (std::size_t i = 0; i < f.ports.size(); ++i) {
        f.hops[i] = cc::IntHop{sampledNs, static_cast<uint64_t>(sample.portBytes[i]), 0,
                               m_spec.cables[f.ports[i] / 2].rateBps, 0};
    }
    cc::AckSignal ack;
    ack.nowNs = psToNs(simNowPs());
    // The frame sent at the sample is acknowledged whole.
    ack.ackSeq = static_cast<uint64_t>(std::min(sample.sentBytes + m_dataWireBytes, f.wireBytes));
    ack.sndNxt = static_cast<uint64_t>(f.wireBytes - m_fluid.remainingBytes(id));
    ack.hops = f.hops.data();
    ack.numHops = static_cast<uint32_t>(f.hops.size());
    f.cc->onAck(ack);
    ++m_stats.acks;
    const double rate = static_cast<double>(f.cc->rateBps()) / 8e9;
    if (std::abs(rate - f.rateBytesPerNs) > kRateMove * f.rateBytesPerNs) {
        f.rateBytesPerNs = rate;
        m_fluid.setBandwidth(f.ownLink, rate);
        ++m_stats.rateChanges;
    }
}

// The spacing of the flow's frames at the rate it gets now.
TimePs FluidSteering::GapPs(uint32_t id) const {
    const Steered& f = m_flows[id];
    const double rate = m_fluid.carriedBytesPerNs(f.ownLink);  // its own link carries it alone
    return rate > 0 ? static_cast<TimePs>(std::ceil(static_cast<double>(m_dataWireBytes) / rate * 1000.0))
                    : f.frameTimePs;
}

// The packets' ACK clock, one round trip behind the data. The first ACK (one round trip in) reports the
// first frame and only takes the records; the second, one frame spacing later, reports the second frame
// (the fast reaction, no commit yet). A commit comes with the ACK of the first frame sent after the last
// one: the frames leave in step with the ACKs, a spacing apart, so that is a whole number of spacings
// later, the first longer than the round trip (with sixteen flows sharing a NIC at a 4 KB MTU, a third of
// a round trip more). Each reports the moment of the one before.
void FluidSteering::Tick(uint64_t arg) {
    const uint32_t id = static_cast<uint32_t>(arg);
    Steered& f = m_flows[id];
    if (!f.active || f.generation != static_cast<uint32_t>(arg >> 32)) {
        return;
    }
    const TimePs gapPs = std::max<TimePs>(1, GapPs(id));
    const TimePs commitPs = (f.roundTripPs / gapPs + 1) * gapPs;
    switch (f.phase++) {
        case 0:  // the start, once the rates are in
            Next(id, gapPs);
            return;
        case 1:  // the second frame: what the second ACK reports
            Take(id, f.late);
            Next(id, f.roundTripPs > gapPs ? f.roundTripPs - gapPs : 0);
            return;
        case 2:
            Report(id, f.early);
            Next(id, gapPs);
            return;
        case 3:
            Report(id, f.late);
            Take(id, f.early);
            Next(id, commitPs > gapPs ? commitPs - gapPs : 0);
            return;
        default:
            Report(id, f.early);
            Take(id, f.early);
            Next(id, commitPs);
            return;
    }
}

}  // namespace mlnet::roce
