// The bridge: the training-loop core's NetworkApi on the packet-level RoCE fabric. A message between two
// ranks becomes a RoCE message between their hosts (a queue pair of its own, or the connection of the pair
// and traffic class); its receive side completes when the last byte has arrived in order at the destination
// NIC, its send side when the last byte is acknowledged. Compute and delays of the core are ns-3 events, so
// one simulator clock drives the trace, the collectives and every packet.
#ifndef MLNET_ROCE_NETWORK_API_H
#define MLNET_ROCE_NETWORK_API_H

#include <cstdint>
#include <vector>

#include "network/message-network.h"
#include "roce-fabric.h"
#include "util/pools.h"

namespace mlnet::roce {

// Sees every message of the trace when its sender completes (fct.txt, timelines).
class MessageObserver {
public:
    virtual ~MessageObserver() = default;
    virtual void messageFinished(Rank src, Rank dst, const FlowCompletion& completion) = 0;
};

class RoceNetworkApi : public MessageNetwork {
public:
    // Ranks 0..numRanks-1 run on hosts spec.hostOfRank(rank). A message of comm_priority p travels in
    // classByPriority[p] (the last entry for higher priorities); the list must not be empty.
    RoceNetworkApi(RoceFabric& fabric, uint32_t numRanks, std::vector<uint8_t> classByPriority);

    TimeNs now() const override;
    void schedule(TimeNs delayNs, Callback callback) override;
    TimePs nowPs() const override;
    void schedulePs(TimePs delayPs, Callback callback) override;

    // The scale-up domains modelled as NVLink flows (ScaleUpFluid::PrivateDomain).
    bool privateDomain(const std::vector<Rank>& endpoints, PrivateDomain& out) const override;
    void countReplayed(uint64_t messages, uint64_t bytes) override;

    void setObserver(MessageObserver* observer) { m_observer = observer; }
    // ASTRA-sim's ns-3 frontend (ModelRules::deliveryAtAck): a receive completes when the sender's last ACK
    // is back, right after the send, instead of when the last byte arrives. Set before the first message.
    void SetDeliveryAtAck(bool atAck) { m_deliveryAtAck = atAck; }
    // Core events (compute, delays) scheduled and not yet run: with no message in flight either, nothing can
    // make progress any more.
    uint64_t pendingEvents() const { return m_pendingEvents; }
    uint64_t messagesAcknowledged() const { return m_acknowledged; }
    // Ranks, then the reduction engines of the description (TopologySpec::engines).
    uint32_t hostOfEndpoint(Rank endpoint) const {
        const TopologySpec& spec = m_fabric.Spec();
        return endpoint < numRanks() ? spec.hostOfRank(endpoint) : spec.engines[endpoint - numRanks()].host;
    }
    // Stops the simulator once every message sent so far is acknowledged (the training is done: its last
    // sends may still await their ACKs, which fct.txt and the timeline want).
    void StopWhenDrained();

protected:
    void transmit(uint64_t id, Rank src, Rank dst, uint64_t sizeBytes) override;

private:
    void RunPooled(uint64_t slot) {
        const Callback callback = m_scheduled[slot];
        m_scheduled.release(slot);
        --m_pendingEvents;
        callback();
    }
    void SelfMessage(uint64_t id);
    void Settled();

    RoceFabric& m_fabric;
    std::vector<uint8_t> m_classByPriority;
    uint64_t m_nextMessage = 0;  // RoCE message ids: unique for the run, unlike the pooled record ids
    uint64_t m_acknowledged = 0;
    uint64_t m_pendingEvents = 0;
    bool m_stopWhenDrained = false;
    bool m_deliveryAtAck = false;
    MessageObserver* m_observer = nullptr;
    // Core events are the simulator's pooled light events on its own clock (no allocation per event).
    SlotPool<Callback, uint64_t> m_scheduled;
};

}  // namespace mlnet::roce

#endif
