#include "roce-channel.h"

#include "ns3/nstime.h"

#include "roce-simulator-impl.h"

#include "ns3/double.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include "roce-net-device.h"

namespace mlnet::roce {

NS_OBJECT_ENSURE_REGISTERED(RoceChannel);

ns3::TypeId RoceChannel::GetTypeId() {
    static ns3::TypeId tid =
        ns3::TypeId("mlnet::roce::RoceChannel")
            .SetParent<ns3::Channel>()
            .SetGroupName("Roce")
            .AddConstructor<RoceChannel>()
            .AddAttribute("Delay", "One-way propagation delay (default 1 us; kept in whole picoseconds).",
                          ns3::TimeValue(ns3::MicroSeconds(1)),
                          ns3::MakeTimeAccessor(&RoceChannel::SetDelay, &RoceChannel::GetDelay),
                          ns3::MakeTimeChecker(ns3::Time(0)))
            .AddAttribute("ErrorRate", "Probability that a frame is lost on the cable (default 0).",
                          ns3::DoubleValue(0.0),
                          ns3::MakeDoubleAccessor(&RoceChannel::SetErrorRate, &RoceChannel::GetErrorRate),
                          ns3::MakeDoubleChecker<double>(0.0, 1.0))
            .AddTraceSource("Drop",
                            "A frame was lost on the cable: packet, reason (random loss or link down).",
                            ns3::MakeTraceSourceAccessor(&RoceChannel::m_dropTrace),
                            "mlnet::roce::RoceChannel::DropCallback");
    return tid;
}

RoceChannel::RoceChannel() : m_random(ns3::CreateObject<ns3::UniformRandomVariable>()) {}

int64_t RoceChannel::AssignStreams(int64_t stream) {
    m_random->SetStream(stream);
    return 1;
}

RoceChannel::~RoceChannel() = default;

void RoceChannel::Attach(ns3::Ptr<RoceNetDevice> device) {
    const int slot = m_ends[0] ? 1 : 0;
    NS_ABORT_MSG_IF(m_ends[1], "a RoceChannel joins exactly two devices");
    m_ends[slot] = ns3::PeekPointer(device);
    m_keep[slot] = device;
    Mirror();
}

void RoceChannel::Mirror() {
    for (int end = 0; end < 2; ++end) {
        if (m_ends[end]) {
            // A cable that is down loses every frame: its devices ask the channel about each while it is
            // (the channel goes down before it tells either end, so an end told later sends into a down
            // cable).
            m_ends[end]->MirrorCable(m_ends[1 - end], m_delayPs, m_lossy || !m_up, m_epoch);
        }
    }
}

ns3::Ptr<RoceNetDevice> RoceChannel::Peer(const RoceNetDevice* device) const {
    return m_keep[m_ends[0] == device ? 1 : 0];
}

bool RoceChannel::Loses(const RocePacket* packet) {
    if (m_up && !(m_lossy && m_random->GetValue() < m_errorRate)) {
        return false;
    }
    ++m_lost;
    m_dropTrace(packet, m_up ? DropReason::RandomLoss : DropReason::LinkDown);
    return true;
}

void RoceChannel::LostInFlight(const RocePacket* packet) {
    ++m_lost;
    m_dropTrace(packet, DropReason::LinkDown);
}

void RoceChannel::SetDown() {
    m_up = false;
    ++m_epoch;
    Mirror();
    for (RoceNetDevice* d : m_ends) {
        d->NotifyLinkChange(false);
    }
}

void RoceChannel::SetUp() {
    m_up = true;
    Mirror();
    for (RoceNetDevice* d : m_ends) {
        d->NotifyLinkChange(true);
    }
}

std::size_t RoceChannel::GetNDevices() const {
    return m_ends[1] ? 2 : (m_ends[0] ? 1 : 0);
}

ns3::Ptr<ns3::NetDevice> RoceChannel::GetDevice(std::size_t i) const {
    return m_keep[i];
}

}  // namespace mlnet::roce
