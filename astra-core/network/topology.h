// Physical topologies shared by the analytical backends: ASTRA-sim's multi-dimensional networks (Ring,
// FullyConnected, Switch per dimension) and general switched graphs (HPCC topology files, fat-trees). Both
// expose the same directed link graph and routing, so the congestion-aware model works on either; the
// congestion-unaware model also reads the per-dimension parameters.
#ifndef MLNET_NETWORK_TOPOLOGY_H
#define MLNET_NETWORK_TOPOLOGY_H

#include <cstdint>
#include <string>
#include <vector>

namespace mlnet {

enum class DimensionKind { Ring, FullyConnected, Switch };
const char* toString(DimensionKind kind);

struct Dimension {
    DimensionKind kind;
    uint32_t npus;
    double bandwidthBytesPerNs;
    // Fractional on purpose: ASTRA-sim keeps latency as a double and its reference configs use values like
    // 936.25.
    double latencyNs;
};

// ASTRA-sim's network convention: 1 GB = 2^30 bytes, so 50 GB/s = 53.687 B/ns.
inline double gigabytesPerSecondToBytesPerNs(double gigabytesPerSecond) {
    return gigabytesPerSecond * 1073741824.0 / 1e9;
}

// How the congestion-unaware model charges a message whose ends differ in several dimensions.
enum class UnawareRouting {
    LowestDimension,  // ASTRA-sim parity: only the lowest differing dimension's hops, latency and bandwidth
    AllDimensions,    // every differing dimension's hops x latency, serialized at the slowest of them
};

// A directed link between two vertices. NPUs are vertices 0..numNpus()-1, switches follow.
struct Link {
    uint32_t from, to;
    double bandwidthBytesPerNs;
    double latencyNs;
};

class Topology {
public:
    // Throws std::invalid_argument when checkDimensions() rejects the list.
    static Topology multiDimensional(std::vector<Dimension> dimensions);
    // Vertices 0..numHosts-1 are the NPUs, numHosts.. the switches. Throws std::invalid_argument on a link to
    // a vertex that does not exist, a self-loop or a non-positive bandwidth.
    static Topology graph(uint32_t numHosts, uint32_t numSwitches, std::vector<Link> links);
    // Three-tier k-ary fat-tree (k even, at most 128): k^3/4 hosts, k^2/2 edge and k^2/2 aggregation
    // switches, k^2/4 cores; every cable is a link each way with the given bandwidth (GB/s, 2^30 convention)
    // and latency.
    static Topology fatTree(uint32_t k, double bandwidthGBps, double latencyNs);

    // Empty when the list makes a valid multi-dimensional network, otherwise why not.
    static std::string checkDimensions(const std::vector<Dimension>& dimensions);
    // ASTRA-sim's hop count inside one dimension between coordinates a and b.
    static uint32_t hops(DimensionKind kind, uint32_t npus, uint32_t a, uint32_t b);

    uint32_t numNpus() const { return m_numNpus; }
    uint32_t numVertices() const { return m_numVertices; }
    bool isSwitch(uint32_t vertex) const { return vertex >= m_numNpus; }

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
    const std::vector<Link>& links() const;

    // Replaces linkIds with the path from NPU src to NPU dst (empty when src == dst). Multi-dimensional:
    // dimension order, shortest ring direction (ties go towards increasing index), switch dimensions through
    // their switch. Graphs: fewest hops, only switches forward, equal-cost next hops chosen by a hash of
    // (src, dst, flowHash, vertex). Throws std::runtime_error when dst cannot be reached. Not thread-safe:
    // graphs cache distances.
    void route(uint32_t src, uint32_t dst, uint64_t flowHash, std::vector<uint32_t>& linkIds) const;
    std::vector<uint32_t> route(uint32_t src, uint32_t dst, uint64_t flowHash = 0) const;

private:
    Topology() = default;
    void buildAdjacency();
    const std::vector<uint16_t>& hopsTo(uint32_t dst) const;
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

    // Graphs: outgoing and incoming links per vertex (CSR), and per destination NPU the hop count from every
    // vertex, computed on first use.
    std::vector<uint32_t> m_outBegin, m_outLinks, m_inBegin, m_inLinks;
    mutable std::vector<std::vector<uint16_t>> m_hopsTo;
    mutable std::vector<uint32_t> m_bfsQueue;
};

}  // namespace mlnet

#endif
