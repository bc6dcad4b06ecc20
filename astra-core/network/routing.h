// Routes of a TopologySpec, computed once and shared by both network models, so the analytical and the packet
// model send a given (source, destination, flow) over the same path:
// - equal-cost next ports per (vertex, destination host), from range tables (one entry per contiguous block
// of
//   destinations with the same ports, plus a default for the rest: O(ports) per switch in fat-trees and Clos
//   networks) or from ASTRA-sim's dimension order (arithmetic, nothing stored per destination);
// - one ECMP hash of (source host, destination host, flow port) seeded per vertex, which every hop of both
//   models uses to pick among equal-cost ports;
// - one allocation of flow ports (the RoCEv2 UDP source port of a queue pair) per source host.
#ifndef MLNET_NETWORK_ROUTING_H
#define MLNET_NETWORK_ROUTING_H

#include <cstdint>
#include <memory>
#include <vector>

#include "network/topology-spec.h"

namespace mlnet {

// murmur3's 64-bit finalizer.
inline uint64_t ecmpMix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

// The hash a vertex applies to a flow: the RoCEv2 5-tuple (source and destination host, UDP source port, the
// RoCEv2 port 4791, UDP) under the vertex's seed.
inline uint64_t ecmpHash(uint32_t srcHost, uint32_t dstHost, uint16_t flowPort, uint64_t vertexSeed) {
    const uint64_t hosts = uint64_t{srcHost} << 32 | dstHost;
    const uint64_t ports = uint64_t{flowPort} << 16 | 4791;
    return ecmpMix(ecmpMix(hosts ^ vertexSeed) ^ (ports << 8 | 17));
}

// How a vertex picks among equal-cost ports.
enum class EcmpHashing : uint8_t {
    // ecmpHash of the hosts and the flow's UDP source port under a per-vertex seed (from the run's seed);
    // both directions of a flow hash the same key. Equal-cost ports in port order.
    Ours,
    // The HPCC reference simulator's: 32-bit x86 MurmurHash3 of (source IPv4, destination IPv4, source port |
    // destination port << 16) as each packet carries them (an ACK swaps addresses and ports), seeded with the
    // switch's node id, over the next hops in ascending order of the neighbour's node id.
    HpccReference,
};

// 32-bit x86 MurmurHash3 of `words` 32-bit blocks (little-endian bytes, as the reference hashes its buffer).
uint32_t murmur3x86(const uint32_t* blocks, uint32_t words, uint32_t seed);

// Every vertex hashes differently (as real switches salt their hash), from the run's seed and its original
// id.
inline uint64_t ecmpVertexSeed(uint64_t runSeed, uint32_t originalId) {
    return runSeed * 0x9e3779b97f4a7c15ull + originalId;
}

// RoCEv2 NICs give every queue pair its own UDP source port for ECMP entropy: per source host from 10000
// upwards, wrapping back to 10000 after 65535.
class FlowPortAllocator {
public:
    explicit FlowPortAllocator(uint32_t hosts = 0) : m_next(hosts, kFirst) {}
    void resize(uint32_t hosts) { m_next.assign(hosts, kFirst); }
    uint16_t next(uint32_t srcHost) {
        const uint16_t port = m_next[srcHost];
        m_next[srcHost] = port == 65535 ? kFirst : static_cast<uint16_t>(port + 1);
        return port;
    }
    static constexpr uint16_t kFirst = 10000;

private:
    std::vector<uint16_t> m_next;
};

struct PortSpan {
    const uint16_t* ports = nullptr;
    uint32_t count = 0;
};

class Routing {
public:
    // Builds the routes of `spec` (which must outlive the routing and be finalized and valid). `runSeed`
    // salts the ECMP hash (the packet model's --seed).
    static std::unique_ptr<Routing> build(const TopologySpec& spec, uint64_t runSeed = 1,
                                          EcmpHashing hashing = EcmpHashing::Ours);
    virtual ~Routing() = default;

    // Equal-cost next ports (local port indices, ascending) at `vertex` towards host `dstHost`; empty when
    // the destination cannot be reached from there (or vertex is dstHost).
    virtual PortSpan nextPorts(uint32_t vertex, uint32_t dstHost) const = 0;
    // Size of the routing state (table entries, port lists), for mlnet-topology.
    virtual uint64_t stateEntries() const = 0;

    // What the packets of one direction of a flow hash on, from the flow's UDP ports (the data's; `reverse`:
    // for the ACKs from dstHost back to srcHost). Ours: the source port; the reference's: the ports as the
    // packet carries them.
    uint32_t flowKey(uint16_t dataSrcPort, uint16_t dataDstPort, bool reverse) const {
        if (m_hashing == EcmpHashing::Ours) {
            return dataSrcPort;
        }
        return reverse ? dataDstPort | uint32_t{dataSrcPort} << 16
                       : dataSrcPort | uint32_t{dataDstPort} << 16;
    }
    // The port a packet from srcHost to dstHost with `flowKey` takes at `vertex`, or UINT32_MAX when there
    // is none.
    uint32_t choose(uint32_t vertex, uint32_t srcHost, uint32_t dstHost, uint32_t flowKey) const {
        const PortSpan span = nextPorts(vertex, dstHost);
        if (span.count <= 1) {
            return span.count ? span.ports[0] : UINT32_MAX;
        }
        if (m_hashing == EcmpHashing::HpccReference) {
            return chooseAsReference(vertex, srcHost, dstHost, flowKey, span);
        }
        return span
            .ports[ecmpHash(srcHost, dstHost, static_cast<uint16_t>(flowKey), m_seeds[vertex]) % span.count];
    }
    // The cables of the flow's path from srcHost to dstHost, in order (empty when they are the same host).
    // Returns false when dstHost cannot be reached.
    bool path(uint32_t srcHost, uint32_t dstHost, uint32_t flowKey, std::vector<uint32_t>& cables) const;
    // The same path as directed cables: 2 x cable, + 1 where the path crosses it from its b end to its a end
    // (what per-direction link models index).
    bool directedPath(uint32_t srcHost, uint32_t dstHost, uint32_t flowKey,
                      std::vector<uint32_t>& directed) const;
    // Number of distinct equal-cost paths between two hosts (saturating at UINT64_MAX).
    uint64_t equalCostPaths(uint32_t srcHost, uint32_t dstHost) const;

    const TopologySpec& spec() const { return m_spec; }
    uint64_t vertexSeed(uint32_t vertex) const { return m_seeds[vertex]; }
    EcmpHashing hashing() const { return m_hashing; }

protected:
    Routing(const TopologySpec& spec, uint64_t runSeed);
    const TopologySpec& m_spec;

private:
    uint32_t chooseAsReference(uint32_t vertex, uint32_t srcHost, uint32_t dstHost, uint32_t flowKey,
                               PortSpan span) const;
    std::vector<uint64_t> m_seeds;
    EcmpHashing m_hashing = EcmpHashing::Ours;
};

}  // namespace mlnet

#endif
