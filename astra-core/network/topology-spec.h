// The one description of a physical network, below both network models: the analytical Topology converts from
// it and the RoCE fabric builds devices from it. Vertices are hosts (NPUs, each an endpoint with one or more
// NIC ports) and switches; cables are full-duplex links with an integer rate, a delay in picoseconds and a
// loss rate. Builders (topology-builders.h), the HPCC topology reader (hpcc-topology.h) and the JSON /
// ASTRA-sim YAML readers (topology-description.h) all produce one; routing (routing.h) is computed from it
// once.
#ifndef MLNET_NETWORK_TOPOLOGY_SPEC_H
#define MLNET_NETWORK_TOPOLOGY_SPEC_H

#include <cstdint>
#include <string>
#include <vector>

#include "network/dimension.h"
#include "util/diagnostics.h"
#include "util/time.h"

namespace mlnet {

enum class VertexKind : uint8_t { Host, Switch };

struct SpecVertex {
    VertexKind kind = VertexKind::Host;
    // The id the source used (HPCC node id); builders use the vertex index. fct.txt, pfc.txt and the ECMP
    // seed of a switch use it, so a network read from a file and written back routes and reports identically.
    uint32_t originalId = 0;
    // Index into TopologySpec::tierNames: 0 is "host"; switches 1 (leaf / edge / ToR) upwards.
    uint8_t tier = 0;
    // Hosts: the server (scale-up domain) they belong to; hosts of one server share it. UINT32_MAX: none.
    uint32_t server = UINT32_MAX;
    // A switch's reduction engine (TopologySpec::engines): a host no rank, flow or background traffic uses.
    bool reductionEngine = false;
};

struct SpecCable {
    uint32_t a = 0, b = 0;  // vertex indices
    uint64_t rateBps = 0;
    TimePs delayPs = 0;
    double errorRate = 0;  // per frame, 0..1
    int line = 0;          // line of the source file, 0 when built
};

// How routes are computed for this network (see routing.h). Builders know their structure; files do not.
enum class RoutingKind : uint8_t {
    Tables,          // per-vertex range tables: written by the builder from the structure, or found by BFS
    DimensionOrder,  // ASTRA-sim's multi-dimensional networks: lowest differing dimension first
};

struct TopologySpec {
    // Routing tables and the routes packets carry number a vertex's ports in 16 bits, one value reserved.
    static constexpr uint32_t kMaxPortsPerVertex = 65535;

    std::string source;  // file path or builder summary, for messages
    // Hosts come first (vertex 0..numHosts-1, the host index), switches after.
    std::vector<SpecVertex> vertices;
    std::vector<SpecCable> cables;
    std::vector<std::string> tierNames = {"host"};
    // rank -> host index; empty means rank r is host r.
    std::vector<uint32_t> rankToHost;
    // Switches that reduce and multicast (NVLink SHARP in a scale-up switch): each has a reduction engine, a
    // host vertex cabled only to its switch, through which reductions enter and results leave. Collectives
    // address engine i as endpoint numRanks() + i; no rank runs on it.
    struct ReductionEngine {
        uint32_t host = 0;          // the engine's vertex
        uint32_t switchVertex = 0;  // the switch it sits in
    };
    std::vector<ReductionEngine> engines;
    // Multi-dimensional networks keep ASTRA-sim's dimensions exactly (double bandwidth and latency), so the
    // analytical model reproduces ASTRA-sim to the nanosecond while the cables carry the same values rounded
    // to whole bits per second and picoseconds.
    std::vector<Dimension> dimensions;
    RoutingKind routing = RoutingKind::Tables;
    // Filled by builders that know their routes (RoutingKind::Tables from structure); empty: BFS (files).
    struct RangeRoute {
        uint32_t vertex;
        uint32_t hostLo, hostHi;      // destination hosts [hostLo, hostHi)
        std::vector<uint16_t> ports;  // equal-cost local ports at the vertex, ascending
    };
    std::vector<RangeRoute> structuralRoutes;
    // Per vertex: the ports used for destinations no range covers (uplinks); empty for none.
    std::vector<std::vector<uint16_t>> defaultPorts;

    uint32_t numHosts() const { return m_numHosts; }
    uint32_t numSwitches() const { return static_cast<uint32_t>(vertices.size()) - m_numHosts; }
    uint32_t numVertices() const { return static_cast<uint32_t>(vertices.size()); }
    uint32_t numRanks() const {
        return rankToHost.empty() ? m_numHosts : static_cast<uint32_t>(rankToHost.size());
    }
    uint32_t hostOfRank(uint32_t rank) const { return rankToHost.empty() ? rank : rankToHost[rank]; }
    // Ranks, then reduction engines.
    uint32_t numEndpoints() const { return numRanks() + static_cast<uint32_t>(engines.size()); }
    uint32_t hostOfEndpoint(uint32_t endpoint) const {
        return endpoint < numRanks() ? hostOfRank(endpoint) : engines[endpoint - numRanks()].host;
    }
    bool isSwitch(uint32_t vertex) const { return vertex >= m_numHosts; }
    bool isMultiDimensional() const { return !dimensions.empty(); }
    // Hosts forward others' traffic only where hosts are cabled to hosts: multi-dimensional networks
    // (NPU-to-NPU links, as in ASTRA-sim) and switchless file topologies. Valid after finalize().
    bool hostsForward() const { return m_hostsForward; }

    // A vertex's ports are its cables in cable order; port p of vertex v is cable portCable(v, p), towards
    // portPeer(v, p). Valid after finalize().
    uint32_t numPorts(uint32_t vertex) const { return m_portBegin[vertex + 1] - m_portBegin[vertex]; }
    uint32_t portCable(uint32_t vertex, uint32_t port) const {
        return m_portCable[m_portBegin[vertex] + port];
    }
    uint32_t portPeer(uint32_t vertex, uint32_t port) const {
        const SpecCable& c = cables[portCable(vertex, port)];
        return c.a == vertex ? c.b : c.a;
    }
    // The port of `vertex` on `cable` (the cable must touch the vertex).
    uint32_t portOnCable(uint32_t vertex, uint32_t cable) const;

    // Numbers hosts and builds the port index. Call after filling vertices (hosts first) and cables; then
    // validate().
    void finalize();
    // Structural problems, each naming the source, the cable line or the vertex and what was expected: cables
    // to missing vertices, self or zero-rate cables, delays or error rates out of range, hosts without a
    // cable, hosts that cannot reach each other through switches (or, in multi-dimensional networks, through
    // NPUs), a rank map naming missing hosts. Returns true when there was none.
    bool validate(Diagnostics& diag) const;

    // "host", "leaf", ... of a vertex.
    const std::string& tierName(uint32_t vertex) const { return tierNames[vertices[vertex].tier]; }

private:
    uint32_t m_numHosts = 0;
    bool m_hostsForward = false;
    std::vector<uint32_t> m_portBegin;
    std::vector<uint32_t> m_portCable;
};

// A rate for messages: "100 Gb/s", "400 Gb/s", "1.2 Tb/s", else bits per second.
std::string describeRate(uint64_t bps);

}  // namespace mlnet

#endif
