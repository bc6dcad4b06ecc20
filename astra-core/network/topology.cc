#include "topology.h"

#include "network/topology-builders.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace mlnet {

namespace {

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

Topology Topology::fromSpec(std::shared_ptr<const TopologySpec> spec, uint64_t ecmpSeed) {
    if (spec->isMultiDimensional()) {
        Topology t = multiDimensional(spec->dimensions);
        t.m_spec = std::move(spec);
        return t;
    }
    Topology t;
    t.m_numNpus = spec->numHosts();
    t.m_numVertices = spec->numVertices();
    t.m_numLinks = static_cast<uint32_t>(2 * spec->cables.size());
    t.m_links.reserve(t.m_numLinks);
    for (const SpecCable& c : spec->cables) {
        const double bytesPerNs = static_cast<double>(c.rateBps) / 8e9;
        const double latencyNs = static_cast<double>(c.delayPs) / static_cast<double>(kPsPerNs);
        t.m_links.push_back({c.a, c.b, bytesPerNs, latencyNs});
        t.m_links.push_back({c.b, c.a, bytesPerNs, latencyNs});
    }
    t.m_routing = Routing::build(*spec, ecmpSeed);
    t.m_spec = std::move(spec);
    return t;
}

Topology Topology::fatTree(uint32_t k, double bandwidthGBps, double latencyNs) {
    LinkSettings link;
    link.rateBps = static_cast<uint64_t>(std::llround(gigabytesPerSecondToBytesPerNs(bandwidthGBps) * 8e9));
    link.delayPs = static_cast<TimePs>(std::llround(latencyNs * static_cast<double>(kPsPerNs)));
    return fromSpec(std::make_shared<const TopologySpec>(buildFatTree(k, link)));
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

void Topology::route(uint32_t src, uint32_t dst, uint64_t flowPort, std::vector<uint32_t>& linkIds) const {
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
    if (!m_routing->path(src, dst, static_cast<uint16_t>(flowPort), m_cables)) {
        throw std::runtime_error("graph topology: no path from NPU " + std::to_string(src) + " to NPU " +
                                 std::to_string(dst));
    }
    for (uint32_t c : m_cables) {
        const uint32_t link = 2 * c + (m_links[2 * c].from == src ? 0 : 1);
        linkIds.push_back(link);
        src = m_links[link].to;
    }
}

std::vector<uint32_t> Topology::route(uint32_t src, uint32_t dst, uint64_t flowPort) const {
    std::vector<uint32_t> ids;
    route(src, dst, flowPort, ids);
    return ids;
}

}  // namespace mlnet
