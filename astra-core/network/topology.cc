#include "topology.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace mlnet {

namespace {

constexpr uint16_t kUnreachable = std::numeric_limits<uint16_t>::max();

uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// A ring of two has a single neighbour each way, so only the "forward" links exist.
uint64_t linksPerGroup(const Dimension& d) {
    const uint64_t n = d.npus;
    switch (d.kind) {
        case DimensionKind::Ring:
            return n == 2 ? 2 : 2 * n;
        case DimensionKind::FullyConnected:
            return n * (n - 1);
        case DimensionKind::Switch:
            return 2 * n;
    }
    return 0;
}

}  // namespace

const char* toString(DimensionKind kind) {
    switch (kind) {
        case DimensionKind::Ring:
            return "Ring";
        case DimensionKind::FullyConnected:
            return "FullyConnected";
        case DimensionKind::Switch:
            return "Switch";
    }
    return "?";
}

std::string Topology::checkDimensions(const std::vector<Dimension>& dimensions) {
    if (dimensions.empty()) {
        return "no dimensions; expected at least one";
    }
    uint64_t npus = 1;
    for (std::size_t i = 0; i < dimensions.size(); ++i) {
        const Dimension& d = dimensions[i];
        const std::string where = "dimension " + std::to_string(i) + ": ";
        if (d.npus < 2) {
            return where + "npus_count " + std::to_string(d.npus) + "; expected at least 2";
        }
        if (!(d.bandwidthBytesPerNs > 0) || !std::isfinite(d.bandwidthBytesPerNs)) {
            return where + "bandwidth must be a finite number > 0";
        }
        if (!(d.latencyNs >= 0) || !std::isfinite(d.latencyNs)) {
            return where + "latency must be a finite number >= 0";
        }
        npus *= d.npus;
        if (npus > std::numeric_limits<int32_t>::max()) {
            return "the dimensions multiply to more than 2^31-1 NPUs";
        }
    }
    uint64_t vertices = npus;
    uint64_t links = 0;
    for (const Dimension& d : dimensions) {
        const uint64_t groups = npus / d.npus;
        vertices += d.kind == DimensionKind::Switch ? groups : 0;
        links += groups * linksPerGroup(d);
    }
    if (vertices > UINT32_MAX || links > UINT32_MAX) {
        return "the network has more than 2^32 vertices or links";
    }
    return {};
}

uint32_t Topology::hops(DimensionKind kind, uint32_t npus, uint32_t a, uint32_t b) {
    if (a == b) {
        return 0;
    }
    switch (kind) {
        case DimensionKind::Ring: {
            const uint32_t d = a > b ? a - b : b - a;
            return std::min(d, npus - d);
        }
        case DimensionKind::FullyConnected:
            return 1;
        case DimensionKind::Switch:
            return 2;
    }
    return 0;
}

Topology Topology::multiDimensional(std::vector<Dimension> dimensions) {
    if (std::string why = checkDimensions(dimensions); !why.empty()) {
        throw std::invalid_argument("multi-dimensional topology: " + why);
    }
    Topology t;
    t.m_dims = std::move(dimensions);
    uint32_t stride = 1;
    for (const Dimension& d : t.m_dims) {
        t.m_dimStride.push_back(stride);
        stride *= d.npus;
    }
    t.m_numNpus = stride;
    uint32_t linkBase = 0;
    uint32_t switchBase = 0;
    for (const Dimension& d : t.m_dims) {
        const uint32_t groups = t.m_numNpus / d.npus;
        t.m_dimLinkBase.push_back(linkBase);
        t.m_dimSwitchBase.push_back(switchBase);
        linkBase += static_cast<uint32_t>(groups * linksPerGroup(d));
        switchBase += d.kind == DimensionKind::Switch ? groups : 0;
    }
    t.m_dimLinkBase.push_back(linkBase);
    t.m_numLinks = linkBase;
    t.m_numVertices = t.m_numNpus + switchBase;
    return t;
}

Topology Topology::graph(uint32_t numHosts, uint32_t numSwitches, std::vector<Link> links) {
    if (numHosts == 0 || uint64_t{numHosts} + numSwitches > UINT32_MAX || links.size() > UINT32_MAX) {
        throw std::invalid_argument("graph topology: expected 1..2^32-1 vertices with at least one host");
    }
    Topology t;
    t.m_numNpus = numHosts;
    t.m_numVertices = numHosts + numSwitches;
    for (std::size_t i = 0; i < links.size(); ++i) {
        const Link& l = links[i];
        if (l.from >= t.m_numVertices || l.to >= t.m_numVertices || l.from == l.to ||
            !(l.bandwidthBytesPerNs > 0) || !std::isfinite(l.bandwidthBytesPerNs) || !(l.latencyNs >= 0) ||
            !std::isfinite(l.latencyNs)) {
            throw std::invalid_argument("graph topology: link " + std::to_string(i) + " (" +
                                        std::to_string(l.from) + "->" + std::to_string(l.to) +
                                        ") needs distinct existing vertices, bandwidth > 0 and latency >= 0");
        }
    }
    t.m_numLinks = static_cast<uint32_t>(links.size());
    t.m_links = std::move(links);
    t.buildAdjacency();
    return t;
}

void Topology::buildAdjacency() {
    auto build = [this](std::vector<uint32_t>& begin, std::vector<uint32_t>& ids, bool outgoing) {
        begin.assign(m_numVertices + 1, 0);
        for (const Link& l : m_links) {
            ++begin[(outgoing ? l.from : l.to) + 1];
        }
        for (uint32_t v = 0; v < m_numVertices; ++v) {
            begin[v + 1] += begin[v];
        }
        ids.resize(m_links.size());
        std::vector<uint32_t> fill(begin.begin(), begin.end() - 1);
        for (uint32_t id = 0; id < m_numLinks; ++id) {
            ids[fill[outgoing ? m_links[id].from : m_links[id].to]++] = id;
        }
    };
    build(m_outBegin, m_outLinks, true);
    build(m_inBegin, m_inLinks, false);
    m_hopsTo.assign(m_numNpus, {});
}

Topology Topology::fatTree(uint32_t k, double bandwidthGBps, double latencyNs) {
    if (k < 2 || k % 2 != 0 || k > 128) {
        throw std::invalid_argument("fat-tree: k = " + std::to_string(k) +
                                    "; expected an even number in 2..128");
    }
    const uint32_t half = k / 2;
    const uint32_t hosts = k * k * k / 4;
    const uint32_t edgeBase = hosts;
    const uint32_t aggBase = edgeBase + k * half;
    const uint32_t coreBase = aggBase + k * half;
    const double bw = gigabytesPerSecondToBytesPerNs(bandwidthGBps);
    std::vector<Link> links;
    links.reserve(6 * static_cast<std::size_t>(hosts));
    auto cable = [&](uint32_t a, uint32_t b) {
        links.push_back({a, b, bw, latencyNs});
        links.push_back({b, a, bw, latencyNs});
    };
    for (uint32_t h = 0; h < hosts; ++h) {
        cable(h, edgeBase + h / half);  // edge switch p*half+i serves hosts of pod p, position i
    }
    for (uint32_t pod = 0; pod < k; ++pod) {
        for (uint32_t i = 0; i < half; ++i) {
            for (uint32_t j = 0; j < half; ++j) {
                cable(edgeBase + pod * half + i, aggBase + pod * half + j);
            }
        }
        for (uint32_t j = 0; j < half; ++j) {
            for (uint32_t m = 0; m < half; ++m) {
                cable(aggBase + pod * half + j,
                      coreBase + j * half + m);  // aggregation j reaches core group j
            }
        }
    }
    return graph(hosts, coreBase + half * half - hosts, std::move(links));
}

std::vector<uint32_t> Topology::coordinates(uint32_t npu) const {
    std::vector<uint32_t> out(m_dims.size());
    for (std::size_t d = 0; d < m_dims.size(); ++d) {
        out[d] = coordinate(npu, d);
    }
    return out;
}

uint32_t Topology::groupOf(uint32_t npu, std::size_t dim) const {
    const uint32_t stride = m_dimStride[dim];
    return npu / (stride * m_dims[dim].npus) * stride + npu % stride;
}

Link Topology::link(uint32_t id) const {
    if (!isMultiDimensional()) {
        return m_links.at(id);
    }
    if (id >= m_numLinks) {
        throw std::out_of_range("link " + std::to_string(id) + " beyond " + std::to_string(m_numLinks));
    }
    const std::size_t d = static_cast<std::size_t>(
        std::upper_bound(m_dimLinkBase.begin(), m_dimLinkBase.end(), id) - m_dimLinkBase.begin() - 1);
    const Dimension& dim = m_dims[d];
    const uint32_t n = dim.npus;
    const uint32_t perGroup = static_cast<uint32_t>(linksPerGroup(dim));
    const uint32_t local = id - m_dimLinkBase[d];
    const uint32_t group = local / perGroup;
    const uint32_t r = local % perGroup;
    const uint32_t stride = m_dimStride[d];
    auto npuAt = [&](uint32_t c) { return group / stride * stride * n + c * stride + group % stride; };
    Link l{0, 0, dim.bandwidthBytesPerNs, dim.latencyNs};
    switch (dim.kind) {
        case DimensionKind::Ring:
            l.from = npuAt(r % n);
            l.to = npuAt(r < n ? (r + 1) % n : (r - n + n - 1) % n);
            break;
        case DimensionKind::FullyConnected: {
            const uint32_t a = r / (n - 1);
            const uint32_t j = r % (n - 1);
            l.from = npuAt(a);
            l.to = npuAt(j < a ? j : j + 1);
            break;
        }
        case DimensionKind::Switch: {
            const uint32_t sw = m_numNpus + m_dimSwitchBase[d] + group;
            l.from = r < n ? npuAt(r) : sw;
            l.to = r < n ? sw : npuAt(r - n);
            break;
        }
    }
    return l;
}

const std::vector<Link>& Topology::links() const {
    if (m_links.size() != m_numLinks) {
        m_links.reserve(m_numLinks);
        for (uint32_t id = 0; id < m_numLinks; ++id) {
            m_links.push_back(link(id));
        }
    }
    return m_links;
}

const std::vector<uint16_t>& Topology::hopsTo(uint32_t dst) const {
    std::vector<uint16_t>& dist = m_hopsTo[dst];
    if (!dist.empty()) {
        return dist;
    }
    // Breadth-first over incoming links from dst; hosts other than dst are reached but never expanded,
    // because end hosts do not forward traffic.
    dist.assign(m_numVertices, kUnreachable);
    dist[dst] = 0;
    m_bfsQueue.clear();
    m_bfsQueue.push_back(dst);
    for (std::size_t head = 0; head < m_bfsQueue.size(); ++head) {
        const uint32_t u = m_bfsQueue[head];
        if (u != dst && !isSwitch(u)) {
            continue;
        }
        if (dist[u] + 1 >= kUnreachable) {
            throw std::runtime_error("graph topology: paths longer than 65534 hops are not supported");
        }
        for (uint32_t i = m_inBegin[u]; i < m_inBegin[u + 1]; ++i) {
            const uint32_t v = m_links[m_inLinks[i]].from;
            if (dist[v] == kUnreachable) {
                dist[v] = static_cast<uint16_t>(dist[u] + 1);
                m_bfsQueue.push_back(v);
            }
        }
    }
    return dist;
}

void Topology::route(uint32_t src, uint32_t dst, uint64_t flowHash, std::vector<uint32_t>& linkIds) const {
    linkIds.clear();
    if (src >= m_numNpus || dst >= m_numNpus) {
        throw std::out_of_range("route " + std::to_string(src) + "->" + std::to_string(dst) +
                                ": NPU beyond " + std::to_string(m_numNpus));
    }
    if (src == dst) {
        return;
    }
    if (isMultiDimensional()) {
        uint32_t cur = src;
        for (std::size_t d = 0; d < m_dims.size(); ++d) {
            const uint32_t a = coordinate(cur, d);
            const uint32_t b = coordinate(dst, d);
            if (a == b) {
                continue;
            }
            const Dimension& dim = m_dims[d];
            const uint32_t n = dim.npus;
            const uint32_t base =
                m_dimLinkBase[d] + groupOf(cur, d) * static_cast<uint32_t>(linksPerGroup(dim));
            switch (dim.kind) {
                case DimensionKind::Ring: {
                    const uint32_t forward = (b + n - a) % n;
                    if (forward <= n - forward) {
                        for (uint32_t c = a; c != b; c = (c + 1) % n) {
                            linkIds.push_back(base + c);
                        }
                    } else {
                        for (uint32_t c = a; c != b; c = (c + n - 1) % n) {
                            linkIds.push_back(base + n + c);
                        }
                    }
                    break;
                }
                case DimensionKind::FullyConnected:
                    linkIds.push_back(base + a * (n - 1) + (b < a ? b : b - 1));
                    break;
                case DimensionKind::Switch:
                    linkIds.push_back(base + a);
                    linkIds.push_back(base + n + b);
                    break;
            }
            cur = cur - a * m_dimStride[d] + b * m_dimStride[d];
        }
        return;
    }
    const std::vector<uint16_t>& dist = hopsTo(dst);
    if (dist[src] == kUnreachable) {
        throw std::runtime_error("graph topology: no path from NPU " + std::to_string(src) + " to NPU " +
                                 std::to_string(dst));
    }
    const uint64_t pairHash = mix(mix(flowHash) ^ (uint64_t{src} << 32 | dst));
    for (uint32_t v = src; v != dst;) {
        auto usable = [&](uint32_t id) {
            const uint32_t w = m_links[id].to;
            return dist[w] + 1 == dist[v] && (w == dst || isSwitch(w));
        };
        uint32_t candidates = 0;
        for (uint32_t i = m_outBegin[v]; i < m_outBegin[v + 1]; ++i) {
            candidates += usable(m_outLinks[i]) ? 1 : 0;
        }
        uint32_t pick = candidates > 1 ? static_cast<uint32_t>(mix(pairHash ^ v) % candidates) : 0;
        for (uint32_t i = m_outBegin[v];; ++i) {
            const uint32_t id = m_outLinks[i];
            if (usable(id) && pick-- == 0) {
                linkIds.push_back(id);
                v = m_links[id].to;
                break;
            }
        }
    }
}

std::vector<uint32_t> Topology::route(uint32_t src, uint32_t dst, uint64_t flowHash) const {
    std::vector<uint32_t> ids;
    route(src, dst, flowHash, ids);
    return ids;
}

}  // namespace mlnet
