#include "routing.h"

#include "util/hpcc-address.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>

namespace mlnet {

namespace {

constexpr uint16_t kFar = std::numeric_limits<uint16_t>::max();
constexpr uint16_t kNoPort = std::numeric_limits<uint16_t>::max();

// Range tables: per vertex, entries for blocks of destination hosts with their equal-cost ports, and a
// default port list for every destination no entry covers. Port lists are interned per vertex.
class TableRouting final : public Routing {
public:
    TableRouting(const TopologySpec& spec, uint64_t runSeed) : Routing(spec, runSeed) {
        const uint32_t n = spec.numVertices();
        m_vertexEntries.resize(n);
        m_default.assign(n, Group{});
        m_interned.resize(n);
        if (!spec.structuralRoutes.empty() || !spec.defaultPorts.empty()) {
            fromStructure();
        } else if (spec.hostsForward()) {
            searchPerHost();
        } else {
            searchPerAttachment();
        }
        m_interned.clear();
        m_interned.shrink_to_fit();
        m_entryBegin.assign(n + 1, 0);
        for (uint32_t v = 0; v < n; ++v) {
            m_entryBegin[v + 1] = m_entryBegin[v] + static_cast<uint32_t>(m_vertexEntries[v].size());
            m_entries.insert(m_entries.end(), m_vertexEntries[v].begin(), m_vertexEntries[v].end());
        }
        m_vertexEntries.clear();
        m_vertexEntries.shrink_to_fit();
    }

    PortSpan nextPorts(uint32_t vertex, uint32_t dstHost) const override {
        const Entry* begin = m_entries.data() + m_entryBegin[vertex];
        const Entry* end = m_entries.data() + m_entryBegin[vertex + 1];
        const Entry* it =
            std::upper_bound(begin, end, dstHost, [](uint32_t d, const Entry& e) { return d < e.hostLo; });
        const Group g = it != begin && dstHost < (it - 1)->hostHi ? (it - 1)->group : m_default[vertex];
        return {m_ports.data() + g.offset, g.count};
    }

    uint64_t stateEntries() const override { return m_entries.size() + m_ports.size(); }

private:
    struct Group {
        uint32_t offset = 0;
        uint32_t count = 0;
        bool operator==(const Group& o) const { return offset == o.offset && count == o.count; }
    };
    struct Entry {
        uint32_t hostLo, hostHi;
        Group group;
    };

    Group intern(uint32_t vertex, const std::vector<uint16_t>& ports) {
        if (ports.empty()) {
            return {};
        }
        auto [it, inserted] = m_interned[vertex].try_emplace(ports, Group{});
        if (inserted) {
            it->second = {static_cast<uint32_t>(m_ports.size()), static_cast<uint32_t>(ports.size())};
            m_ports.insert(m_ports.end(), ports.begin(), ports.end());
        }
        return it->second;
    }

    void fromStructure() {
        const TopologySpec& spec = m_spec;
        for (uint32_t v = 0; v < spec.defaultPorts.size(); ++v) {
            m_default[v] = intern(v, spec.defaultPorts[v]);
        }
        std::vector<const TopologySpec::RangeRoute*> routes;
        for (const auto& r : spec.structuralRoutes) {
            routes.push_back(&r);
        }
        std::sort(routes.begin(), routes.end(), [](const auto* a, const auto* b) {
            return a->vertex != b->vertex ? a->vertex < b->vertex : a->hostLo < b->hostLo;
        });
        for (std::size_t i = 0; i < routes.size(); ++i) {
            const auto& r = *routes[i];
            if (r.hostLo >= r.hostHi || r.hostHi > spec.numHosts() ||
                (i > 0 && routes[i - 1]->vertex == r.vertex && routes[i - 1]->hostHi > r.hostLo)) {
                throw std::logic_error(spec.source + ": overlapping or empty route ranges at vertex " +
                                       std::to_string(r.vertex));
            }
            m_vertexEntries[r.vertex].push_back({r.hostLo, r.hostHi, intern(r.vertex, r.ports)});
        }
    }

    // Stores vertex v's routes given its group for every destination host: runs of equal groups become
    // entries, except runs of the most common group, which becomes the default. The vertex's own index (when
    // it is a host) takes the group before it, so it never splits a run.
    void encode(uint32_t v, const std::vector<Group>& byHost) {
        std::map<std::pair<uint32_t, uint32_t>, uint32_t> counts;
        for (const Group& g : byHost) {
            ++counts[{g.offset, g.count}];
        }
        Group common;
        uint32_t best = 0;
        for (const auto& [key, count] : counts) {
            if (count > best && key.second > 0) {
                best = count;
                common = {key.first, key.second};
            }
        }
        m_default[v] = common;
        const uint32_t hosts = static_cast<uint32_t>(byHost.size());
        for (uint32_t lo = 0; lo < hosts;) {
            uint32_t hi = lo + 1;
            while (hi < hosts && byHost[hi] == byHost[lo]) {
                ++hi;
            }
            if (!(byHost[lo] == common)) {
                m_vertexEntries[v].push_back({lo, hi, byHost[lo]});
            }
            lo = hi;
        }
    }

    // Switched networks (hosts never forward): hosts cabled to the same switches share their routes
    // everywhere but on the last hop, so one breadth-first search per such attachment set suffices.
    void searchPerAttachment() {
        const TopologySpec& spec = m_spec;
        const uint32_t hosts = spec.numHosts();
        const uint32_t switches = spec.numSwitches();
        std::map<std::vector<uint32_t>, uint32_t> attachmentIds;
        std::vector<uint32_t> attachmentOf(hosts);
        std::vector<std::vector<uint32_t>> attachments;
        for (uint32_t h = 0; h < hosts; ++h) {
            std::vector<uint32_t> sw;
            for (uint32_t p = 0; p < spec.numPorts(h); ++p) {
                sw.push_back(spec.portPeer(h, p));
            }
            std::sort(sw.begin(), sw.end());
            sw.erase(std::unique(sw.begin(), sw.end()), sw.end());
            auto [it, inserted] = attachmentIds.try_emplace(sw, static_cast<uint32_t>(attachments.size()));
            if (inserted) {
                attachments.push_back(sw);
            }
            attachmentOf[h] = it->second;
        }
        const uint32_t sets = static_cast<uint32_t>(attachments.size());
        // dist[set * switches + s]: switch hops from switch s to the nearest switch of the set.
        std::vector<uint16_t> dist(std::size_t{sets} * switches, kFar);
        std::vector<Group> towards(std::size_t{sets} * switches);
        std::vector<uint32_t> queue;
        std::vector<uint16_t> ports;
        for (uint32_t set = 0; set < sets; ++set) {
            uint16_t* d = dist.data() + std::size_t{set} * switches;
            queue.clear();
            for (uint32_t s : attachments[set]) {
                d[s - hosts] = 0;
                queue.push_back(s);
            }
            for (std::size_t head = 0; head < queue.size(); ++head) {
                const uint32_t u = queue[head];
                for (uint32_t p = 0; p < spec.numPorts(u); ++p) {
                    const uint32_t w = spec.portPeer(u, p);
                    if (spec.isSwitch(w) && d[w - hosts] == kFar) {
                        d[w - hosts] = static_cast<uint16_t>(d[u - hosts] + 1);
                        queue.push_back(w);
                    }
                }
            }
            for (uint32_t i = 0; i < switches; ++i) {
                const uint32_t s = hosts + i;
                if (d[i] == 0 || d[i] == kFar) {
                    continue;
                }
                ports.clear();
                for (uint32_t p = 0; p < spec.numPorts(s); ++p) {
                    const uint32_t w = spec.portPeer(s, p);
                    if (spec.isSwitch(w) && d[w - hosts] + 1 == d[i]) {
                        ports.push_back(static_cast<uint16_t>(p));
                    }
                }
                towards[std::size_t{set} * switches + i] = intern(s, ports);
            }
        }
        std::vector<Group> byHost(hosts);
        for (uint32_t i = 0; i < switches; ++i) {
            const uint32_t s = hosts + i;
            for (uint32_t h = 0; h < hosts; ++h) {
                const std::size_t at = std::size_t{attachmentOf[h]} * switches + i;
                if (dist[at] == 0) {
                    ports.clear();  // the last hop: every cable from s to h
                    for (uint32_t p = 0; p < spec.numPorts(s); ++p) {
                        if (spec.portPeer(s, p) == h) {
                            ports.push_back(static_cast<uint16_t>(p));
                        }
                    }
                    byHost[h] = intern(s, ports);
                } else {
                    byHost[h] = towards[at];
                }
            }
            encode(s, byHost);
        }
        // A host sends on its ports towards the switches nearest the destination's set.
        for (uint32_t v = 0; v < hosts; ++v) {
            std::vector<Group> bySet(sets);
            for (uint32_t set = 0; set < sets; ++set) {
                uint16_t nearest = kFar;
                for (uint32_t p = 0; p < spec.numPorts(v); ++p) {
                    nearest =
                        std::min(nearest, dist[std::size_t{set} * switches + spec.portPeer(v, p) - hosts]);
                }
                ports.clear();
                for (uint32_t p = 0; p < spec.numPorts(v) && nearest != kFar; ++p) {
                    if (dist[std::size_t{set} * switches + spec.portPeer(v, p) - hosts] == nearest) {
                        ports.push_back(static_cast<uint16_t>(p));
                    }
                }
                bySet[set] = intern(v, ports);
            }
            if (sets == 1 || spec.numPorts(v) == 1) {
                m_default[v] = bySet[attachmentOf[v]];  // one port, or one set: every destination alike
                continue;
            }
            for (uint32_t h = 0; h < hosts; ++h) {
                byHost[h] = bySet[attachmentOf[h == v ? (v ? v - 1 : std::min(1u, hosts - 1)) : h]];
            }
            encode(v, byHost);
        }
    }

    // Networks where hosts are cabled to hosts (switchless rings): hosts forward, so one search per
    // destination.
    void searchPerHost() {
        const TopologySpec& spec = m_spec;
        const uint32_t hosts = spec.numHosts();
        const uint32_t n = spec.numVertices();
        if (uint64_t{hosts} * n > (uint64_t{1} << 26)) {
            throw std::invalid_argument(spec.source +
                                        ": networks whose hosts forward are routed per destination; " +
                                        std::to_string(hosts) + " hosts and " + std::to_string(n) +
                                        " vertices are more than this supports (2^26 pairs)");
        }
        std::vector<std::vector<Group>> byHost(n, std::vector<Group>(hosts));
        std::vector<uint16_t> dist(n);
        std::vector<uint32_t> queue;
        std::vector<uint16_t> ports;
        for (uint32_t dst = 0; dst < hosts; ++dst) {
            std::fill(dist.begin(), dist.end(), kFar);
            dist[dst] = 0;
            queue.assign(1, dst);
            for (std::size_t head = 0; head < queue.size(); ++head) {
                const uint32_t u = queue[head];
                for (uint32_t p = 0; p < spec.numPorts(u); ++p) {
                    const uint32_t w = spec.portPeer(u, p);
                    if (dist[w] == kFar) {
                        dist[w] = static_cast<uint16_t>(dist[u] + 1);
                        queue.push_back(w);
                    }
                }
            }
            for (uint32_t v = 0; v < n; ++v) {
                ports.clear();
                for (uint32_t p = 0; p < spec.numPorts(v) && v != dst && dist[v] != kFar; ++p) {
                    if (dist[spec.portPeer(v, p)] + 1 == dist[v]) {
                        ports.push_back(static_cast<uint16_t>(p));
                    }
                }
                byHost[v][dst] = intern(v, ports);
            }
        }
        for (uint32_t v = 0; v < n; ++v) {
            if (v < hosts) {
                byHost[v][v] = byHost[v][v ? v - 1 : std::min(1u, hosts - 1)];
            }
            encode(v, byHost[v]);
        }
    }

    std::vector<std::vector<Entry>> m_vertexEntries;  // while building
    std::vector<std::map<std::vector<uint16_t>, Group>> m_interned;
    std::vector<uint32_t> m_entryBegin;
    std::vector<Entry> m_entries;
    std::vector<Group> m_default;
    std::vector<uint16_t> m_ports;
};

// ASTRA-sim's multi-dimensional networks: a message travels the lowest dimension in which it still differs
// from its destination (Ring: the shorter way round, ties towards increasing coordinates; FullyConnected: the
// direct link; Switch: through the dimension's switch). Per NPU only its own ports are stored.
class DimensionOrderRouting final : public Routing {
public:
    DimensionOrderRouting(const TopologySpec& spec, uint64_t runSeed) : Routing(spec, runSeed) {
        const auto& dims = spec.dimensions;
        uint32_t stride = 1, block = 0, switches = 0;
        for (const Dimension& d : dims) {
            m_stride.push_back(stride);
            m_slot.push_back(block);
            m_switchBase.push_back(spec.numHosts() + switches);
            stride *= d.npus;
            block += slotsOf(d);
            switches += d.kind == DimensionKind::Switch ? spec.numHosts() / d.npus : 0;
        }
        m_block = block;
        const uint32_t npus = spec.numHosts();
        m_npuPorts.assign(std::size_t{npus} * block, kNoPort);
        m_switchPorts.resize(spec.numSwitches());
        for (uint32_t v = 0; v < npus; ++v) {
            for (uint32_t p = 0; p < spec.numPorts(v); ++p) {
                const uint32_t w = spec.portPeer(v, p);
                std::size_t slot;
                if (w < npus) {
                    std::size_t k = 0;
                    while (k < dims.size() && coordinate(v, k) == coordinate(w, k)) {
                        ++k;
                    }
                    const uint32_t n = dims[k].npus, a = coordinate(v, k), b = coordinate(w, k);
                    if (dims[k].kind == DimensionKind::FullyConnected) {
                        slot = b;
                    } else {
                        slot = n == 2 ? 0 : (b == (a + 1) % n ? 0 : 1);
                    }
                    slot += m_slot[k];
                } else {
                    slot = m_slot[dimensionOfSwitch(w)];
                    std::vector<uint16_t>& byCoordinate = m_switchPorts[w - npus];
                    const uint32_t k = dimensionOfSwitch(w);
                    byCoordinate.resize(dims[k].npus, kNoPort);
                    byCoordinate[coordinate(v, k)] =
                        static_cast<uint16_t>(spec.portOnCable(w, spec.portCable(v, p)));
                }
                m_npuPorts[std::size_t{v} * block + slot] = static_cast<uint16_t>(p);
            }
        }
    }

    PortSpan nextPorts(uint32_t vertex, uint32_t dstHost) const override {
        const auto& dims = m_spec.dimensions;
        const uint32_t npus = m_spec.numHosts();
        if (vertex >= npus) {
            const uint32_t k = dimensionOfSwitch(vertex);
            const uint16_t* port = &m_switchPorts[vertex - npus][coordinate(dstHost, k)];
            return {port, *port == kNoPort ? 0u : 1u};
        }
        for (std::size_t k = 0; k < dims.size(); ++k) {
            const uint32_t a = coordinate(vertex, k), b = coordinate(dstHost, k);
            if (a == b) {
                continue;
            }
            const uint32_t n = dims[k].npus;
            uint32_t slot = 0;
            if (dims[k].kind == DimensionKind::FullyConnected) {
                slot = b;
            } else if (dims[k].kind == DimensionKind::Ring && n > 2) {
                const uint32_t forward = (b + n - a) % n;
                slot = forward <= n - forward ? 0 : 1;
            }
            const uint16_t* port = &m_npuPorts[std::size_t{vertex} * m_block + m_slot[k] + slot];
            return {port, *port == kNoPort ? 0u : 1u};
        }
        return {};
    }

    uint64_t stateEntries() const override {
        uint64_t n = m_npuPorts.size();
        for (const auto& s : m_switchPorts) {
            n += s.size();
        }
        return n;
    }

private:
    static uint32_t slotsOf(const Dimension& d) {
        switch (d.kind) {
            case DimensionKind::Ring:
                return d.npus == 2 ? 1 : 2;
            case DimensionKind::FullyConnected:
                return d.npus;
            case DimensionKind::Switch:
                return 1;
        }
        return 0;
    }
    uint32_t coordinate(uint32_t npu, std::size_t k) const {
        return npu / m_stride[k] % m_spec.dimensions[k].npus;
    }
    uint32_t dimensionOfSwitch(uint32_t vertex) const {
        uint32_t k = static_cast<uint32_t>(m_switchBase.size()) - 1;
        while (m_spec.dimensions[k].kind != DimensionKind::Switch || m_switchBase[k] > vertex) {
            --k;
        }
        return k;
    }

    std::vector<uint32_t> m_stride, m_slot, m_switchBase;
    uint32_t m_block = 0;
    std::vector<uint16_t> m_npuPorts;  // per NPU: ring [+1, -1] or [peer], FC by coordinate, switch
    std::vector<std::vector<uint16_t>> m_switchPorts;  // per dimension switch: port by coordinate
};

}  // namespace

Routing::Routing(const TopologySpec& spec, uint64_t runSeed) : m_spec(spec), m_seeds(spec.numVertices()) {
    for (uint32_t v = 0; v < spec.numVertices(); ++v) {
        m_seeds[v] = ecmpVertexSeed(runSeed, spec.vertices[v].originalId);
    }
}

std::unique_ptr<Routing> Routing::build(const TopologySpec& spec, uint64_t runSeed, EcmpHashing hashing) {
    std::unique_ptr<Routing> routing;
    if (spec.routing == RoutingKind::DimensionOrder) {
        routing = std::make_unique<DimensionOrderRouting>(spec, runSeed);
    } else {
        routing = std::make_unique<TableRouting>(spec, runSeed);
    }
    routing->m_hashing = hashing;
    return routing;
}

uint32_t murmur3x86(const uint32_t* blocks, uint32_t words, uint32_t seed) {
    auto rotl = [](uint32_t x, int r) { return x << r | x >> (32 - r); };
    uint32_t h = seed;
    for (uint32_t i = 0; i < words; ++i) {
        uint32_t k = blocks[i] * 0xcc9e2d51u;
        k = rotl(k, 15) * 0x1b873593u;
        h = rotl(h ^ k, 13) * 5 + 0xe6546b64u;
    }
    h ^= words * 4;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

uint32_t Routing::chooseAsReference(uint32_t vertex, uint32_t srcHost, uint32_t dstHost, uint32_t flowKey,
                                    PortSpan span) const {
    const uint32_t key[3] = {hpccIpv4(m_spec.vertices[srcHost].originalId),
                             hpccIpv4(m_spec.vertices[dstHost].originalId), flowKey};
    const uint32_t index = murmur3x86(key, 3, m_spec.vertices[vertex].originalId) % span.count;
    // The reference lists a switch's next hops in the order its routing BFS meets them, which walks each
    // node's neighbours in the order of their objects' addresses. Its switch objects are over 2 MB each (a
    // per-port-pair byte counter), so each is mapped on its own and every one lands below the one made
    // before: next hops come in descending node id (checked against its packet trace on the k=4 fat-tree:
    // with ascending order every cross-pod flow took another core switch). The index-th port in that order,
    // without sorting: count the ports whose neighbour comes first.
    auto neighbour = [&](uint32_t i) {
        return m_spec.vertices[m_spec.portPeer(vertex, span.ports[i])].originalId;
    };
    for (uint32_t i = 0; i < span.count; ++i) {
        uint32_t before = 0;
        for (uint32_t j = 0; j < span.count; ++j) {
            before += neighbour(j) > neighbour(i) || (neighbour(j) == neighbour(i) && j < i);
        }
        if (before == index) {
            return span.ports[i];
        }
    }
    return span.ports[0];
}

bool Routing::path(uint32_t srcHost, uint32_t dstHost, uint32_t flowKey,
                   std::vector<uint32_t>& cables) const {
    cables.clear();
    uint32_t v = srcHost;
    while (v != dstHost) {
        const uint32_t port = choose(v, srcHost, dstHost, flowKey);
        if (port == UINT32_MAX || cables.size() > m_spec.numVertices()) {
            return false;
        }
        cables.push_back(m_spec.portCable(v, port));
        v = m_spec.portPeer(v, port);
    }
    return true;
}

bool Routing::directedPath(uint32_t srcHost, uint32_t dstHost, uint32_t flowKey,
                           std::vector<uint32_t>& directed) const {
    directed.clear();
    uint32_t v = srcHost;
    while (v != dstHost) {
        const uint32_t port = choose(v, srcHost, dstHost, flowKey);
        if (port == UINT32_MAX || directed.size() > m_spec.numVertices()) {
            return false;
        }
        const uint32_t cable = m_spec.portCable(v, port);
        directed.push_back(2 * cable + (m_spec.cables[cable].a == v ? 0 : 1));
        v = m_spec.portPeer(v, port);
    }
    return true;
}

uint64_t Routing::equalCostPaths(uint32_t srcHost, uint32_t dstHost) const {
    std::vector<uint64_t> memo(m_spec.numVertices(), UINT64_MAX);
    memo[dstHost] = 1;
    // Routes only lead closer to the destination, so the recursion ends; its depth is the path length.
    auto count = [&](auto& self, uint32_t v) -> uint64_t {
        if (memo[v] != UINT64_MAX) {
            return memo[v];
        }
        const PortSpan span = nextPorts(v, dstHost);
        uint64_t total = 0;
        for (uint32_t i = 0; i < span.count; ++i) {
            const uint64_t n = self(self, m_spec.portPeer(v, span.ports[i]));
            total = total > UINT64_MAX - n ? UINT64_MAX - 1 : total + n;
        }
        return memo[v] = total;
    };
    return srcHost == dstHost ? 1 : count(count, srcHost);
}

}  // namespace mlnet
