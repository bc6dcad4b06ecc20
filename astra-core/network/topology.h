// Physical topologies shared by the analytical backends: ASTRA-sim's multi-dimensional networks (Ring,
// FullyConnected, Switch per dimension) and general switched graphs (HPCC topology files, fat-trees). Both
// expose the same directed link graph and routing, so the congestion-aware model works on either; the
// congestion-unaware model also reads the per-dimension parameters.
#ifndef MLNET_NETWORK_TOPOLOGY_H
#define MLNET_NETWORK_TOPOLOGY_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "network/dimension.h"
#include "network/routing.h"
#include "network/topology-spec.h"

namespace mlnet {

// How the congestion-unaware model charges a message whose ends differ in several dimensions.
enum class UnawareRouting {
    LowestDimension,  // ASTRA-sim parity: only the lowest differing dimension's hops, latency and bandwidth
    AllDimensions,    // every differing dimension's hops x latency, serialized at the slowest of them
};

// A directed link between two vertices. NPUs are vertices 0..numNpus()-1 (the hosts of the description),
// switches follow.
struct Link {
    uint32_t from, to;
    double bandwidthBytesPerNs;
    double latencyNs;
};

class Topology {
public:
    // Throws std::invalid_argument when checkDimensions() rejects the list. Routes are computed from the
    // dimensions; no TopologySpec is built (the congestion-unaware model of 65,536 NPUs needs no link list).
    static Topology multiDimensional(std::vector<Dimension> dimensions);
    // From a finalized, valid description; the topology shares it. Multi-dimensional descriptions keep their
    // exact dimensions; graphs route through Routing (the packet model's routes, salted by ecmpSeed).
    static Topology fromSpec(std::shared_ptr<const TopologySpec> spec, uint64_t ecmpSeed = 1);
    // The k-ary fat-tree of buildFatTree with every cable at `bandwidthGBps` (GB/s, 2^30 convention) and
    // latencyNs.
    static Topology fatTree(uint32_t k, double bandwidthGBps, double latencyNs);

    // Empty when the list makes a valid multi-dimensional network, otherwise why not.
    static std::string checkDimensions(const std::vector<Dimension>& dimensions);
    // ASTRA-sim's hop count inside one dimension between coordinates a and b.
    static uint32_t hops(DimensionKind kind, uint32_t npus, uint32_t a, uint32_t b);

    uint32_t numNpus() const { return m_numNpus; }
    uint32_t numVertices() const { return m_numVertices; }
    bool isSwitch(uint32_t vertex) const { return vertex >= m_numNpus; }
    // Ranks of the trace and the NPU (host) each runs on.
    uint32_t numRanks() const { return m_spec ? m_spec->numRanks() : m_numNpus; }
    uint32_t npuOfRank(uint32_t rank) const { return m_spec ? m_spec->hostOfRank(rank) : rank; }
    // Ranks, then the reduction engines of switches that reduce (TopologySpec::engines).
    uint32_t numEndpoints() const { return m_spec ? m_spec->numEndpoints() : m_numNpus; }
    uint32_t npuOfEndpoint(uint32_t endpoint) const {
        return m_spec ? m_spec->hostOfEndpoint(endpoint) : endpoint;
    }
    // The description this topology was built from; null for multiDimensional().
    const TopologySpec* spec() const { return m_spec.get(); }

    bool isMultiDimensional() const { return !m_dims.empty(); }
    const std::vector<Dimension>& dimensions() const { return m_dims; }
    // Dimension 0 is the fastest-varying digit of the NPU id.
    uint32_t coordinate(uint32_t npu, std::size_t dim) const {
        return npu / m_dimStride[dim] % m_dims[dim].npus;
    }
    std::vector<uint32_t> coordinates(uint32_t npu) const;

    uint32_t numLinks() const { return m_numLinks; }
    Link link(uint32_t id) const;
    // Built on first use for multi-dimensional networks, which the congestion-unaware model never needs.
    // Graphs: cable c is links 2c (a -> b) and 2c + 1 (b -> a).
    const std::vector<Link>& links() const;

    // Replaces linkIds with the path from NPU src to NPU dst (empty when src == dst). Multi-dimensional:
    // dimension order, shortest ring direction (ties go towards increasing index), switch dimensions through
    // their switch. Graphs: the packet model's route of a flow with UDP source port `flowPort` (Routing).
    // Throws std::runtime_error when dst cannot be reached.
    void route(uint32_t src, uint32_t dst, uint64_t flowPort, std::vector<uint32_t>& linkIds) const;
    std::vector<uint32_t> route(uint32_t src, uint32_t dst,
                                uint64_t flowPort = FlowPortAllocator::kFirst) const;

private:
    Topology() = default;
    uint32_t groupOf(uint32_t npu, std::size_t dim) const;

    uint32_t m_numNpus = 0;
    uint32_t m_numVertices = 0;
    uint32_t m_numLinks = 0;

    // Multi-dimensional: links are numbered dimension by dimension, group by group (a group is the set of
    // NPUs that differ only in that dimension), so a link id is computed from coordinates instead of stored
    // per route.
    std::vector<Dimension> m_dims;
    std::vector<uint32_t> m_dimStride;      // product of the sizes of the lower dimensions
    std::vector<uint32_t> m_dimLinkBase;    // first link id of each dimension, plus the total at the end
    std::vector<uint32_t> m_dimSwitchBase;  // first switch vertex of each Switch dimension
    mutable std::vector<Link> m_links;      // the whole list for graphs; lazily built for multi-dimensional

    std::shared_ptr<const TopologySpec> m_spec;
    std::shared_ptr<const Routing> m_routing;  // graphs
    mutable std::vector<uint32_t> m_cables;
};

}  // namespace mlnet

#endif
