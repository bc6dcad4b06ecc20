// Shared-buffer accounting of an output-queued switch (the HPCC-lineage model, without its defects): per
// (ingress port, priority) a private reserve, then the shared pool under a dynamic threshold
// (free shared buffer >> alpha shift), then its headroom, which absorbs what arrives after its PFC pause
// was sent. Pause when the headroom is in use or the shared share reaches the threshold; resume with
// hysteresis. ECN marking follows RED on the egress queue (kmin, kmax, pmax). Memory is proportional to the
// port count.
#ifndef MLNET_ROCE_SWITCH_MMU_H
#define MLNET_ROCE_SWITCH_MMU_H

#include <cstdint>
#include <vector>

#include "roce-packet.h"

namespace mlnet::roce {

struct MmuPortConfig {
    // PFC headroom of each priority of the port (ours: one link round trip and two frames; the reference's:
    // three one-way BDPs). The buffer sets aside
    // one headroom per port, as the reference does: classes paused on one port at once may go beyond it (a
    // run reports the switches where they did: NetworkTotals::overfullSwitches).
    uint64_t headroomBytes = 0;
    uint32_t alphaShift = 3;  // dynamic-threshold alpha = 2^-alphaShift
    uint64_t kminBytes = 0, kmaxBytes = 0;
    double pmax = 0;
};

struct MmuConfig {
    uint64_t bufferBytes = 32ull << 20;
    uint64_t reserveBytes = 4096;       // per (ingress port, priority)
    uint64_t resumeOffsetBytes = 3072;  // XON hysteresis
    bool pfcEnabled = true;
    bool ecnEnabled = true;
    // The reference's buffer budget: the reserve set aside once per port (each priority still gets one in
    // admission), and a queue holding headroom may put a packet back into the shared pool while it is below
    // the threshold. false (ours): one reserve per (port, priority), and a queue in headroom stays there
    // until it drains.
    bool referenceAccounting = false;
    std::vector<MmuPortConfig> ports;
};

class SwitchMmu {
public:
    static constexpr int kPriorities = kNumPriorities;

    explicit SwitchMmu(MmuConfig config);

    // The buffer never in the shared pool: every port's PFC headroom and every reserve. A buffer not above it
    // has no shared pool at all.
    static uint64_t SetAsideBytes(const MmuConfig& config);

    // Admits a packet arriving on (inPort, priority) for outPort; false means it must be dropped (the switch
    // counts and traces drops).
    bool admit(uint32_t inPort, uint8_t priority, uint32_t outPort, uint32_t bytes);
    // The packet left the switch from outPort.
    void release(uint32_t inPort, uint8_t priority, uint32_t outPort, uint32_t bytes);

    // PFC decisions for an ingress queue; each returns true once per transition (the caller sends the frame).
    bool checkPause(uint32_t inPort, uint8_t priority);
    bool checkResume(uint32_t inPort, uint8_t priority);
    bool paused(uint32_t inPort, uint8_t priority) const { return m_in[index(inPort, priority)].paused; }

    // RED on the egress queue length after the packet left: the marking probability (0 below Kmin, 1 above
    // Kmax).
    double ecnMarkProbability(uint32_t outPort, uint8_t priority) const;
    // Above Kmin: the reference's draw point (ECN on; it draws even where PMAX makes the probability 0).
    bool aboveKmin(uint32_t outPort, uint8_t priority) const {
        return m_config.ecnEnabled && m_egress[outPort].bytes[priority] > m_egress[outPort].kminBytes;
    }
    // Above Kmax: marked without a draw (the reference's rule; with PMAX 1 the probability at Kmax is 1 too).
    bool aboveKmax(uint32_t outPort, uint8_t priority) const {
        return m_egress[outPort].bytes[priority] > m_egress[outPort].kmaxBytes;
    }
    // Marks with that probability given `uniform`, a draw from [0, 1).
    bool ecnMark(uint32_t outPort, uint8_t priority, double uniform) const {
        return uniform < ecnMarkProbability(outPort, priority);
    }

    uint64_t egressBytes(uint32_t outPort, uint8_t priority) const {
        return m_egress[outPort].bytes[priority];
    }
    uint64_t egressPortBytes(uint32_t outPort) const { return m_egress[outPort].portBytes; }
    uint64_t sharedUsedBytes() const { return m_sharedUsed; }
    uint64_t totalBytes() const { return m_total; }
    uint64_t threshold(uint32_t inPort) const;
    uint64_t peakBytes() const { return m_peak; }
    const MmuConfig& config() const { return m_config; }

private:
    // An ingress queue's counters and what admission reads of its port's configuration (copied from
    // m_config.ports, which stays the source), 32 bytes: an admission reads one line, not the counters' and
    // the configuration array's. The part beyond the reserve is kept, not derived: admission, release and
    // both PFC checks read it on every packet. The headroom limit is read from m_config only when a packet
    // is refused the shared pool.
    struct alignas(32) Ingress {
        uint64_t privateBytes = 0;  // queued from this (port, priority) outside the headroom: reserve, shared
        uint64_t shared = 0;        // the part of privateBytes beyond the reserve (counted in m_sharedUsed)
        uint64_t headroom = 0;      // queued in the port's headroom
        uint8_t alphaShift = 0;     // MmuPortConfig::alphaShift
        bool paused = false;
    };
    uint64_t threshold(const Ingress& in) const;
    static std::size_t index(uint32_t port, uint8_t priority) {
        return std::size_t{port} * kPriorities + priority;
    }
    uint64_t beyondReserve(uint64_t privateBytes) const {
        return privateBytes > m_config.reserveBytes ? privateBytes - m_config.reserveBytes : 0;
    }

    // An egress port's queues and what RED reads of its configuration (copied from m_config.ports), in one
    // line for classes 0-3: an enqueue, a dequeue and a marking decision each read one line, not three
    // arrays.
    struct alignas(64) Egress {
        uint64_t portBytes = 0;  // all priorities
        uint64_t kminBytes = 0, kmaxBytes = 0;
        double pmax = 0;
        uint64_t bytes[kPriorities] = {};
    };

    MmuConfig m_config;
    std::vector<Ingress> m_in;
    std::vector<Egress> m_egress;
    uint64_t m_setAsideBytes = 0;  // every port's headroom and every reserve: never in the shared pool
    uint64_t m_sharedUsed = 0;
    uint64_t m_total = 0;
    uint64_t m_peak = 0;
};

}  // namespace mlnet::roce

#endif
