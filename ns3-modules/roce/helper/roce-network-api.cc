#include "roce-network-api.h"

#include <algorithm>

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include "roce-simulator-impl.h"
#include "roce-timing.h"
#include "scale-up-fluid.h"

namespace mlnet::roce {

RoceNetworkApi::RoceNetworkApi(RoceFabric& fabric, uint32_t numRanks, std::vector<uint8_t> classByPriority)
    : MessageNetwork(numRanks, numRanks + static_cast<uint32_t>(fabric.Spec().engines.size())),
      m_fabric(fabric),
      m_classByPriority(std::move(classByPriority)) {
    NS_ABORT_MSG_IF(m_classByPriority.empty(), "RoceNetworkApi needs at least one traffic class");
}

TimeNs RoceNetworkApi::now() const {
    return psToNs(simNowPs());
}

void RoceNetworkApi::schedule(TimeNs delayNs, Callback callback) {
    schedulePs(nsToPs(delayNs), callback);
}

TimePs RoceNetworkApi::nowPs() const {
    return simNowPs();
}

void RoceNetworkApi::schedulePs(TimePs delayPs, Callback callback) {
    ++m_pendingEvents;
    const uint64_t slot = m_scheduled.acquire();
    m_scheduled[slot] = callback;
    ScheduleCoreCall(delayPs, &CallMember<&RoceNetworkApi::RunPooled, RoceNetworkApi>, this, slot);
}

void RoceNetworkApi::transmit(uint64_t id, Rank src, Rank dst, uint64_t sizeBytes) {
    const uint32_t srcHost = hostOfEndpoint(src), dstHost = hostOfEndpoint(dst);
    if (srcHost == dstHost) {
        // Two ranks on one host (or a rank to itself) exchange through memory, not the network.
        ns3::Simulator::ScheduleNow(&RoceNetworkApi::SelfMessage, this, id);
        return;
    }
    const uint32_t priority = message(id).commPriority;
    const uint8_t trafficClass =
        m_classByPriority[std::min<std::size_t>(priority, m_classByPriority.size() - 1)];
    m_fabric.StartMessage(
        m_nextMessage++, srcHost, dstHost, sizeBytes, trafficClass,
        [this, id](const FlowCompletion& c) {
            const Message m = message(id);
            ++m_acknowledged;
            if (m_deliveryAtAck) {
                arrived(id);  // the send callback, then the receive
            } else {
                acknowledged(id);
            }
            if (m_observer) {
                m_observer->messageFinished(m.src, m.dst, c);
            }
            Settled();
        },
        [this, id](uint64_t, TimePs) {
            if (!m_deliveryAtAck) {
                delivered(id);
                Settled();
            }
        });
}

bool RoceNetworkApi::privateDomain(const std::vector<Rank>& endpoints, PrivateDomain& out) const {
    const ScaleUpFluid* scaleUp = m_fabric.ScaleUpModel();
    if (!scaleUp) {
        return false;
    }
    std::vector<uint32_t> hosts;
    hosts.reserve(endpoints.size());
    for (Rank e : endpoints) {
        if (e >= numRanks()) {
            return false;  // a switch's reduction engine
        }
        hosts.push_back(hostOfEndpoint(e));
    }
    return scaleUp->PrivateDomain(hosts, out);
}

void RoceNetworkApi::countReplayed(uint64_t messages, uint64_t bytes) {
    MessageNetwork::countReplayed(messages, bytes);
    m_fabric.ScaleUpModel()->CountReplayed(messages, bytes);
}

void RoceNetworkApi::StopWhenDrained() {
    m_stopWhenDrained = true;
    Settled();
}

void RoceNetworkApi::Settled() {
    if (m_stopWhenDrained && messagesInFlight() == 0) {
        ns3::Simulator::Stop();
    }
}

void RoceNetworkApi::SelfMessage(uint64_t id) {
    ++m_acknowledged;
    arrived(id);
    Settled();
}

}  // namespace mlnet::roce
