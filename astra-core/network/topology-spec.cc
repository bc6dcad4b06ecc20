#include "topology-spec.h"

#include <cmath>
#include <numeric>
#include <sstream>

namespace mlnet {

namespace {

// Disjoint sets, for the connectivity check.
struct Components {
    explicit Components(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0u); }
    uint32_t find(uint32_t x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }
    void join(uint32_t a, uint32_t b) { parent[find(a)] = find(b); }
    std::vector<uint32_t> parent;
};

}  // namespace

std::string describeRate(uint64_t bps) {
    std::ostringstream s;
    if (bps >= 1'000'000'000'000ull && bps % 100'000'000'000ull == 0) {
        s << bps / 1e12 << " Tb/s";
    } else if (bps >= 1'000'000'000ull && bps % 1'000'000ull == 0) {
        s << bps / 1e9 << " Gb/s";
    } else if (bps >= 1'000'000ull && bps % 1000ull == 0) {
        s << bps / 1e6 << " Mb/s";
    } else {
        s << bps << " b/s";
    }
    return s.str();
}

void TopologySpec::finalize() {
    m_numHosts = 0;
    while (m_numHosts < vertices.size() && vertices[m_numHosts].kind == VertexKind::Host) {
        ++m_numHosts;
    }
    const uint32_t n = numVertices();
    m_portBegin.assign(n + 1, 0);
    for (const SpecCable& c : cables) {
        if (c.a < n && c.b < n) {
            ++m_portBegin[c.a + 1];
            ++m_portBegin[c.b + 1];
        }
    }
    for (uint32_t v = 0; v < n; ++v) {
        m_portBegin[v + 1] += m_portBegin[v];
    }
    m_portCable.assign(m_portBegin[n], 0);
    std::vector<uint32_t> fill(m_portBegin.begin(), m_portBegin.end() - 1);
    m_hostsForward = false;
    for (uint32_t id = 0; id < cables.size(); ++id) {
        const SpecCable& c = cables[id];
        if (c.a < n && c.b < n) {
            m_portCable[fill[c.a]++] = id;
            if (c.b != c.a) {
                m_portCable[fill[c.b]++] = id;
            }
            m_hostsForward |= c.a < m_numHosts && c.b < m_numHosts;
        }
    }
    m_hostsForward |= isMultiDimensional();
}

uint32_t TopologySpec::portOnCable(uint32_t vertex, uint32_t cable) const {
    for (uint32_t p = 0; p < numPorts(vertex); ++p) {
        if (portCable(vertex, p) == cable) {
            return p;
        }
    }
    return UINT32_MAX;
}

bool TopologySpec::validate(Diagnostics& diag) const {
    const std::size_t before = diag.errorCount();
    auto at = [&](const SpecCable& c) { return atLine(source, c.line) + (c.line ? "" : " (built)"); };
    auto name = [&](uint32_t v) {
        return std::string(isSwitch(v) ? "switch " : "host ") + std::to_string(vertices[v].originalId);
    };
    if (m_numHosts == 0) {
        diag.error(source + ": the network has no host");
    }
    for (uint32_t v = m_numHosts; v < vertices.size(); ++v) {
        if (vertices[v].kind != VertexKind::Switch) {
            diag.error(source + ": vertex " + std::to_string(v) +
                       " is a host after the first switch; hosts come first");
            return false;
        }
    }
    for (const SpecVertex& v : vertices) {
        if (v.tier >= tierNames.size()) {
            diag.error(source + ": a vertex has tier " + std::to_string(v.tier) + " but only " +
                       std::to_string(tierNames.size()) + " tiers are named");
            return false;
        }
    }
    for (const SpecCable& c : cables) {
        if (c.a >= vertices.size() || c.b >= vertices.size()) {
            diag.error(at(c) + ": a link names a node that does not exist");
        } else if (c.a == c.b) {
            diag.error(at(c) + ": link from " + name(c.a) + " to itself; expected two different nodes");
        } else if (c.rateBps == 0) {
            diag.error(at(c) + ": link " + name(c.a) + " - " + name(c.b) +
                       " has rate 0; expected a rate > 0");
        } else if (!(c.errorRate >= 0 && c.errorRate <= 1)) {
            diag.error(at(c) + ": link " + name(c.a) + " - " + name(c.b) + " has error rate " +
                       std::to_string(c.errorRate) + "; expected 0..1");
        }
    }
    for (uint32_t rank = 0; rank < rankToHost.size(); ++rank) {
        if (rankToHost[rank] >= m_numHosts) {
            diag.error(source + ": rank " + std::to_string(rank) + " is mapped to host index " +
                       std::to_string(rankToHost[rank]) + " but the network has " +
                       std::to_string(m_numHosts) + " hosts");
            break;
        }
    }
    if (diag.errorCount() != before) {
        return false;
    }
    for (uint32_t h = 0; h < m_numHosts; ++h) {
        if (numPorts(h) == 0) {
            diag.error(source + ": " + name(h) + " has no link; every host needs one");
            return false;
        }
    }
    for (uint32_t v = 0; v < vertices.size(); ++v) {
        if (numPorts(v) > kMaxPortsPerVertex) {
            diag.error(source + ": " + name(v) + " has " + std::to_string(numPorts(v)) + " links; at most " +
                       std::to_string(kMaxPortsPerVertex) +
                       " per node are supported (routes number ports in 16 bits)");
            return false;
        }
    }
    // Every host must reach every other through forwarding vertices: switches, and hosts only where hosts are
    // cabled to hosts (multi-dimensional and switchless networks). A mistyped link then fails here instead of
    // leaving messages that never arrive.
    Components components(vertices.size());
    for (const SpecCable& c : cables) {
        const bool forwards = m_hostsForward || (isSwitch(c.a) && isSwitch(c.b));
        if (forwards) {
            components.join(c.a, c.b);
        } else {
            components.join(isSwitch(c.a) ? c.b : c.a, isSwitch(c.a) ? c.a : c.b);
        }
    }
    // Hosts join the component of a switch they are cabled to; two hosts are connected iff their switches
    // are.
    const uint32_t root = components.find(0);
    for (uint32_t h = 1; h < m_numHosts; ++h) {
        if (components.find(h) != root) {
            diag.error(source + ": " + name(h) + " has no path to " + name(0) +
                       (m_hostsForward ? "" : " through switches (hosts do not forward)"));
            return false;
        }
    }
    return true;
}

}  // namespace mlnet
