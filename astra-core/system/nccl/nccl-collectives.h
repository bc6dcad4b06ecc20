// Collectives as NCCL 2.23 runs them, over any NetworkApi (the analytical networks and the packet-level RoCE
// fabric alike). For each collective the members agree, as NCCL's tuner does (nccl-tuner.h), on an algorithm,
// a protocol and a number of channels; then every channel moves its share of the buffer:
//   - Ring: a ring per channel through every member, servers in turn and, between servers, rings alternating
//     direction so that each inter-server hop stays on one rail (NCCL's alternating rings); the buffer goes
//     round in chunks (2 MiB Simple, 32 KiB LL, 576 kB LL128 of data), all-reduce in 2(n-1) steps per chunk
//     loop, all-gather and reduce-scatter in n-1, broadcast and reduce along the ring from the root;
//   - Tree (all-reduce): per channel a chain through each server's GPUs and a double binary tree over the
//     servers (even channels tree 0, odd tree 1), chunks reduced up and broadcast down, pipelined;
//   - NVLS (one server whose NVSwitch reduces, TopologySpec::engines): all-reduce, all-gather and
//     reduce-scatter through the switch's reduction engine, shares per head reduced in the switch and results
//     multicast back (nccl-collectives.cc);
//   - all-to-all: point-to-point sends to every peer, split over the per-peer channels, each through the
//     GPU on the peer's rail when the peer is on another server (PXN).
// Every message carries the protocol's wire overhead (LL 2x, LL128 128/120); a step's data is ready at the
// receiver when it has arrived and the channel's GPU side could have produced it: one NVLink or network hop
// latency (the tuner's) plus its bytes at the channel's share of the algorithm's bus bandwidth. The
// collective begins after the tuner's base latency. Every channel's traffic is tagged with its channel, so a
// packet-level backend can give each its own connection.
#ifndef MLNET_SYSTEM_NCCL_NCCL_COLLECTIVES_H
#define MLNET_SYSTEM_NCCL_NCCL_COLLECTIVES_H

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "network/network-api.h"
#include "system/collective-service.h"
#include "system/nccl/nccl-memo.h"
#include "system/nccl/nccl-topology.h"
#include "system/nccl/nccl-tuner.h"
#include "system/system-config.h"
#include "workload/comm-groups.h"
#include "workload/trace-types.h"

namespace mlnet::nccl {

struct NcclConfig {
    NcclEnv env;
    GpuPlatform platform;
    bool forType[kNumCollectiveTypes] = {};  // which collective types NCCL runs (others: the fallback)
    bool memoize = false;                    // replay repeated collectives of private domains (nccl-memo.h)
};

// NCCL's settings from a system configuration: the types it runs, the GPU it tunes for ("nccl-gpu": a100,
// h100, h200, b200, gb200) and the NCCL_* keys (NCCL_ALGO, NCCL_PROTO, NCCL_MIN_NCHANNELS,
// NCCL_MAX_NCHANNELS, NCCL_NCHANNELS_PER_NET_PEER, NCCL_IB_QPS_PER_CONNECTION, NCCL_IB_SPLIT_DATA_ON_QPS,
// NCCL_PXN_DISABLE, NCCL_NVLS_ENABLE, NCCL_COLLNET_ENABLE); errors name the key.
bool ncclConfigFrom(const SystemConfig& system, NcclConfig& config, Diagnostics& diag);
// Every NCCL_* setting the model reads, in the order above (tools that take them from the environment).
const std::vector<const char*>& ncclSettingNames();

// The tag of an NCCL message: collective traffic (bit 63), NCCL's (bit 62), the communicator, the
// collective's sequence on it, the channel, the kind of message and a pipeline slot. FIFO matching per
// (source, destination, tag) then pairs each message with its receive.
inline uint64_t ncclTag(uint32_t group, uint32_t sequence, uint32_t channel, uint32_t kind, uint32_t slot) {
    return kCollectiveTagBit | uint64_t{1} << 62 | uint64_t(group & 0x3fff) << 48 |
           uint64_t(sequence & 0xffff) << 32 | uint64_t(channel & 0xff) << 24 | uint64_t(kind & 0xf) << 20 |
           (slot & 0xfffff);
}
// The channel of an NCCL tag (for backends that give each channel a connection of its own).
inline bool isNcclTag(uint64_t tag) {
    return (tag >> 62) == 3;
}
inline uint32_t ncclTagChannel(uint64_t tag) {
    return static_cast<uint32_t>(tag >> 24) & 0xff;
}

class NcclCollectives final : public CollectiveService {
public:
    NcclCollectives(NetworkApi& network, const NcclTopology& topology, const CommGroups& groups,
                    NcclConfig config, CollectiveService& fallback);
    ~NcclCollectives() override;

    void issue(Rank rank, const TraceNode& node, Callback done) override;
    std::string describeUnfinished(Rank rank) const override;

    // One entry per rank per NCCL collective, in issue order.
    struct Record {
        Rank rank = 0;
        uint64_t nodeId = 0;
        CollectiveType type = CollectiveType::AllReduce;
        uint64_t sizeBytes = 0;
        GroupId group = 0;
        TimeNs startNs = 0, endNs = 0;
        Choice choice;
    };
    const std::vector<Record>& records() const { return m_records; }
    // What the switches' reduction engines did (NVLS): sums formed (one per channel, head and loop) and
    // bytes in and out of the engines.
    struct EngineCounters {
        uint64_t reductions = 0, bytesIn = 0, bytesOut = 0;
    };
    const EngineCounters& engineCounters() const { return m_engine; }
    // What the collective memo did (null when it is off).
    std::optional<CollectiveMemo::Stats> memoStats() const {
        return m_config.memoize ? std::optional(m_memo.stats()) : std::nullopt;
    }

    class Op;  // one collective of one communicator, every member's part

private:
    friend class Op;
    void memberDone(uint64_t index);
    struct DoneEntry {
        std::pair<GroupId, uint32_t> key;
        Callback user;
    };
    NetworkApi& m_network;
    const NcclTopology& m_topology;
    const CommGroups& m_groups;
    NcclConfig m_config;
    CollectiveService& m_fallback;
    std::map<GroupId, uint32_t> m_denseGroup;
    std::map<uint64_t, uint32_t> m_nextSeq;                             // (rank, group) -> collectives issued
    std::map<std::pair<GroupId, uint32_t>, std::unique_ptr<Op>> m_ops;  // in flight, by (group, sequence)
    std::vector<Record> m_records;
    std::vector<DoneEntry> m_done;               // per member's part, by callback argument
    std::vector<std::unique_ptr<Op>> m_retired;  // finished, destroyed at the next issue
    EngineCounters m_engine;
    CollectiveMemo m_memo;
};

}  // namespace mlnet::nccl

#endif
