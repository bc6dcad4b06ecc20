// The only thing the training-loop core knows about networks. Implemented by the analytical backends here and
// by the RoCE bridge in ns3-modules/. Sizes are 64-bit; tags are 64-bit (bit 63 set for collective-internal
// traffic).
#ifndef MLNET_NETWORK_NETWORK_API_H
#define MLNET_NETWORK_NETWORK_API_H

#include <cstdint>
#include <vector>

#include "common/callback.h"
#include "common/event-queue.h"
#include "util/time.h"
#include "workload/trace-types.h"

namespace mlnet {

class NetworkApi {
public:
    virtual ~NetworkApi() = default;

    virtual TimeNs now() const = 0;
    // Runs `callback` after `delayNs` (0 allowed: after the events already due now).
    virtual void schedule(TimeNs delayNs, Callback callback) = 0;
    // The same at the clock's own resolution (the packet model's picoseconds), for a replay that must land
    // where the simulation would have. Whole nanoseconds unless the backend says more.
    virtual TimePs nowPs() const { return nsToPs(now()); }
    // Whole nanoseconds round up: a replay's event never fires before its time.
    virtual void schedulePs(TimePs delayPs, Callback callback) {
        schedule(psToNs(delayPs) + (delayPs % kPsPerNs != 0 ? 1 : 0), callback);
    }
    // Moves sizeBytes from src to dst. `sent` fires when the sender may consider the message done
    // (analytical: when it has arrived, as in ASTRA-sim; RoCE: when the last byte is acknowledged).
    // `commPriority`: the trace's comm_priority of the collective (0 for point-to-point sends); the packet
    // network maps it to a traffic class, the analytical networks ignore it (as ASTRA-sim's do).
    virtual void send(Rank src, Rank dst, uint64_t tag, uint64_t sizeBytes, uint32_t commPriority,
                      Callback sent) = 0;
    // Posts a receive; `received` fires once sizeBytes matching (src, dst, tag) have arrived. Matching is
    // byte-counted and FIFO per (src, dst, tag), whether the data arrives before or after the receive is
    // posted.
    virtual void recv(Rank src, Rank dst, uint64_t tag, uint64_t sizeBytes, Callback received) = 0;

    virtual uint32_t numRanks() const = 0;
    // Endpoints numRanks() .. numEndpoints()-1 are the reduction engines of switches that reduce and
    // multicast (TopologySpec::engines, in order): collectives that reduce in the network send to them and
    // receive from them like ranks.
    virtual uint32_t numEndpoints() const { return numRanks(); }

    // A set of endpoints whose messages to one another use links that nothing else can use (a server's
    // scale-up domain, modelled on its own): what a collective among them does depends only on when its
    // members start and on what else the domain carries meanwhile.
    struct PrivateDomain {
        uint64_t id = 0;
        // Equal for two domains that are copies of each other with the endpoints in the same places.
        uint64_t shape = 0;
        uint64_t messagesStarted = 0;  // inside the domain, so far
        bool idle = false;             // no message inside it now
    };
    // Whether `endpoints` all lie in one private domain, and its state. The default: the network has none.
    virtual bool privateDomain(const std::vector<Rank>& /*endpoints*/, PrivateDomain& /*out*/) const {
        return false;
    }
    // Messages inside a private domain that a collective did not send because its outcome was known
    // (collective memo): counted as sent and delivered.
    virtual void countReplayed(uint64_t /*messages*/, uint64_t /*bytes*/) {}
};

// Tags the system layer uses for its own messages never collide with trace tags, which are below 2^63.
inline constexpr uint64_t kCollectiveTagBit = uint64_t{1} << 63;

}  // namespace mlnet

#endif
