// The interface between a NIC queue pair and its congestion-control algorithm. Algorithms are plain state
// machines: the NIC feeds them events (ACKs with ECN echo, RTT samples and INT hops; CNPs; timers; bytes
// sent) and reads back a sending rate and an optional window. Nothing here knows about ns-3.
#ifndef MLNET_CONGESTION_CONGESTION_CONTROL_H
#define MLNET_CONGESTION_CONGESTION_CONTROL_H

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "int-hop.h"

namespace mlnet::cc {

using TimeNs = uint64_t;
inline constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();

// What a queue pair tells its algorithm when it is created.
struct FlowParams {
    uint64_t lineRateBps = 100'000'000'000ull;
    TimeNs baseRttNs = 0;      // propagation + one MTU serialization per hop, both ways
    uint64_t bdpBytes = 0;     // line rate x base RTT
    uint32_t mtuBytes = 1000;  // payload per packet
};

// The flow as it leaves a port of lineRateBps: that is its line rate, and its BDP is at most what the port
// puts in flight in one base RTT. A network-wide BDP (GLOBAL_T) is sized for the fastest port; on a slower
// port a window of it would bind only once queues are several BDPs deep, and HPCC would read queues against
// a BDP the flow cannot have.
FlowParams onPort(FlowParams flow, uint64_t lineRateBps);

// The window an algorithm keeps besides its rate (the reference's HAS_WIN / VAR_WIN): none, the flow's BDP,
// or BDP x rate / line rate (at least 1 byte: 0 would mean "no window"). No window when the BDP is unknown
// (0).
enum class WindowMode : uint8_t { None, Bdp, FollowsRate };

struct AckSignal {
    TimeNs nowNs = 0;
    uint64_t ackSeq = 0;      // cumulative: next byte the receiver expects
    uint64_t newlyAcked = 0;  // bytes this ACK acknowledged for the first time
    uint64_t sndNxt = 0;      // next byte the sender will send
    bool ecnEcho = false;     // the acknowledged data was CE-marked
    TimeNs rttNs = 0;         // 0 when the ACK carries no timestamp
    const IntHop* hops = nullptr;
    uint32_t numHops = 0;
};

class CongestionControl {
public:
    virtual ~CongestionControl() = default;
    virtual const char* name() const = 0;
    // The bytes from the object's start that an ACK reads (at most its size): a NIC with thousands of flows
    // fetches them in one go before it hands the algorithm an ACK.
    virtual std::size_t stateBytes() const = 0;

    virtual void onAck(const AckSignal&) {}
    virtual void onCnp(TimeNs /*nowNs*/) {}
    virtual void onSend(TimeNs /*nowNs*/, uint64_t /*bytes*/) {}
    // The NIC calls onTimer at nextTimerNs() (re-read after every event).
    virtual TimeNs nextTimerNs() const { return kNever; }
    virtual void onTimer(TimeNs /*nowNs*/) {}
    // Fast-forward skipped deltaNs in which no congestion signal arrived anywhere and the rate stood still:
    // state that evolves with time alone (a decaying congestion estimate) moves on as it would have; the
    // rest stays. Events the skipped time carried (ACKs, sends) are not replayed. A negative delta takes
    // back part of an earlier skip (a jump cut short).
    virtual void skipQuietTime(int64_t /*deltaNs*/) {}
    // The flow goes on from a new queue pair (a fluid flow's congestion control handed to the packets that
    // take over its bytes): sequence numbers start again at 0 and its feedback comes from counters this state
    // has not seen, so what it keeps of earlier feedback (path records, sequence gates) goes; the rate, the
    // window and the estimates stay.
    virtual void resumeOnNewConnection() {}
    // Whether a flow alone on an idle path sends at its line rate from its first packet to its last
    // (nothing marks, nothing queues, so nothing moves its rate): then a fluid flow at the line rate stands
    // for it exactly. HPCC steers even a lone flow to a fraction of the line rate through its INT feedback.
    virtual bool lineRateWhenAlone() const { return true; }

    uint64_t rateBps() const { return m_rateBps; }
    // Bytes allowed in flight; 0 means no window.
    uint64_t windowBytes() const { return m_windowBytes; }
    // How many times the algorithm has set its rate (changed or not): an ACK that moved it tells a rate
    // update ran even when the value stayed (the reference reschedules its NIC after every HPCC update).
    uint64_t rateUpdates() const { return m_rateUpdates; }

protected:
    // Publishes `rateBps` (rounded) and the window the mode implies. No window when the BDP is unknown (0).
    // integerWindow: bdp·rate/line in integers on the rounded rate (the reference's uint64 arithmetic).
    void publishRate(double rateBps, WindowMode mode, uint64_t bdpBytes, double lineRateBps,
                     bool integerWindow = false);

    uint64_t m_rateBps = 0;
    uint64_t m_windowBytes = 0;
    uint64_t m_rateUpdates = 0;
};

// "PFC only": line rate, plus a fixed window when one is configured (HPCC's HAS_WIN with CC_MODE other than
// 1/3/7/8).
class NoCongestionControl : public CongestionControl {
public:
    NoCongestionControl(const FlowParams& flow, uint64_t windowBytes);
    const char* name() const override;
    std::size_t stateBytes() const override { return sizeof(*this); }
};

}  // namespace mlnet::cc

#endif
