#include "topology-builders.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

namespace mlnet {

namespace {

constexpr uint64_t kMaxVertices = uint64_t{1} << 26;

void require(bool ok, const std::string& what) {
    if (!ok) {
        throw std::invalid_argument(what);
    }
}

uint16_t port(uint32_t p) {
    return static_cast<uint16_t>(p);
}

std::vector<uint16_t> portRange(uint32_t first, uint32_t count) {
    std::vector<uint16_t> ports(count);
    std::iota(ports.begin(), ports.end(), static_cast<uint16_t>(first));
    return ports;
}

void addVertices(TopologySpec& spec, uint64_t count, VertexKind kind, uint8_t tier) {
    for (uint64_t i = 0; i < count; ++i) {
        SpecVertex v;
        v.kind = kind;
        v.originalId = static_cast<uint32_t>(spec.vertices.size());
        v.tier = tier;
        spec.vertices.push_back(v);
    }
}

void cable(TopologySpec& spec, uint32_t a, uint32_t b, const LinkSettings& link) {
    spec.cables.push_back({a, b, link.rateBps, link.delayPs, link.errorRate, 0});
}

}  // namespace

TopologySpec buildClos(const ClosShape& s) {
    const bool threeTier = s.pods > 0;
    const uint64_t pods = threeTier ? s.pods : 1;
    require(s.leavesPerPod >= 1 && s.spinesPerPod >= 1 && s.hostsPerLeaf >= 1,
            "clos: leaves, spines and hosts per leaf must be at least 1");
    require(!threeTier || s.coresPerSpine >= 1, "clos: three tiers need at least 1 core per spine");
    require(s.hostsPerLeaf + s.spinesPerPod <= 65535 && s.leavesPerPod + s.coresPerSpine <= 65535 &&
                pods <= 65535,
            "clos: a switch would have more than 65535 ports");
    const uint64_t leaves = pods * s.leavesPerPod, spines = pods * s.spinesPerPod;
    const uint64_t cores = threeTier ? uint64_t{s.spinesPerPod} * s.coresPerSpine : 0;
    const uint64_t hosts = leaves * s.hostsPerLeaf;
    require(hosts + leaves + spines + cores <= kMaxVertices, "clos: more than 2^26 vertices");
    for (const LinkSettings* l : {&s.host, &s.leaf, &s.spine}) {
        require(l->rateBps > 0, "clos: link rates must be > 0");
    }

    TopologySpec spec;
    spec.tierNames = {"host", "leaf", "spine"};
    if (threeTier) {
        spec.tierNames.push_back("core");
    }
    addVertices(spec, hosts, VertexKind::Host, 0);
    addVertices(spec, leaves, VertexKind::Switch, 1);
    addVertices(spec, spines, VertexKind::Switch, 2);
    addVertices(spec, cores, VertexKind::Switch, 3);
    const uint32_t leafBase = static_cast<uint32_t>(hosts);
    const uint32_t spineBase = static_cast<uint32_t>(leafBase + leaves);
    const uint32_t coreBase = static_cast<uint32_t>(spineBase + spines);
    const uint32_t H = s.hostsPerLeaf, L = s.leavesPerPod, S = s.spinesPerPod, C = s.coresPerSpine;
    const uint32_t podHosts = L * H;

    spec.cables.reserve(hosts + leaves * S + spines * C);
    for (uint32_t h = 0; h < hosts; ++h) {
        cable(spec, h, leafBase + h / H, s.host);
    }
    for (uint32_t p = 0; p < pods; ++p) {
        for (uint32_t l = 0; l < L; ++l) {
            for (uint32_t j = 0; j < S; ++j) {
                cable(spec, leafBase + p * L + l, spineBase + p * S + j, s.leaf);
            }
        }
        for (uint32_t j = 0; j < S && threeTier; ++j) {
            for (uint32_t m = 0; m < C; ++m) {
                cable(spec, spineBase + p * S + j, coreBase + j * C + m, s.spine);
            }
        }
    }

    // Ports follow cable order: a leaf has its H hosts then its S spines; a spine its L leaves then its C
    // cores; core (j, m) has pod p on port p.
    spec.defaultPorts.assign(spec.vertices.size(), {});
    for (uint32_t h = 0; h < hosts; ++h) {
        spec.defaultPorts[h] = {0};
    }
    for (uint32_t leaf = 0; leaf < leaves; ++leaf) {
        const uint32_t v = leafBase + leaf;
        for (uint32_t i = 0; i < H; ++i) {
            spec.structuralRoutes.push_back({v, leaf * H + i, leaf * H + i + 1, {port(i)}});
        }
        spec.defaultPorts[v] = portRange(H, S);
    }
    for (uint32_t sp = 0; sp < spines; ++sp) {
        const uint32_t v = spineBase + sp, p = sp / S;
        for (uint32_t l = 0; l < L; ++l) {
            const uint32_t first = p * podHosts + l * H;
            spec.structuralRoutes.push_back({v, first, first + H, {port(l)}});
        }
        if (threeTier) {
            spec.defaultPorts[v] = portRange(L, C);
        }
    }
    for (uint32_t c = 0; c < cores; ++c) {
        for (uint32_t p = 0; p < pods; ++p) {
            spec.structuralRoutes.push_back({coreBase + c, p * podHosts, (p + 1) * podHosts, {port(p)}});
        }
    }
    spec.source = threeTier ? "clos (" + std::to_string(pods) + " pods, " + std::to_string(L) +
                                  " leaves and " + std::to_string(S) + " spines per pod, " +
                                  std::to_string(H) + " hosts per leaf, " + std::to_string(cores) + " cores)"
                            : "leaf-spine (" + std::to_string(L) + " leaves, " + std::to_string(S) +
                                  " spines, " + std::to_string(H) + " hosts per leaf)";
    spec.finalize();
    return spec;
}

TopologySpec buildStar(uint32_t hosts, const LinkSettings& link) {
    require(hosts >= 1 && hosts <= 65535, "star: expected 1..65535 hosts");
    require(link.rateBps > 0, "star: the link rate must be > 0");
    TopologySpec spec;
    spec.tierNames = {"host", "switch"};
    addVertices(spec, hosts, VertexKind::Host, 0);
    addVertices(spec, 1, VertexKind::Switch, 1);
    spec.defaultPorts.assign(hosts + 1, {0});
    spec.defaultPorts[hosts].clear();
    for (uint32_t h = 0; h < hosts; ++h) {
        cable(spec, h, hosts, link);
        spec.structuralRoutes.push_back({hosts, h, h + 1, {port(h)}});
    }
    spec.source = "star (" + std::to_string(hosts) + " hosts)";
    spec.finalize();
    return spec;
}

TopologySpec buildFatTree(uint32_t k, const LinkSettings& link) {
    require(k >= 2 && k % 2 == 0 && k <= 256,
            "fat-tree: k = " + std::to_string(k) + "; expected an even number in 2..256");
    ClosShape s;
    s.pods = k;
    s.leavesPerPod = s.spinesPerPod = s.hostsPerLeaf = s.coresPerSpine = k / 2;
    s.host = s.leaf = s.spine = link;
    TopologySpec spec = buildClos(s);
    spec.tierNames = {"host", "edge", "aggregation", "core"};
    spec.source = "fat-tree (k = " + std::to_string(k) + ")";
    return spec;
}

TopologySpec buildRailOptimised(uint32_t servers, uint32_t nicsPerServer, uint32_t spines,
                                const LinkSettings& host, const LinkSettings& leaf) {
    require(servers >= 1 && nicsPerServer >= 1,
            "rail-optimised: servers and NICs per server must be at least 1");
    require(spines >= 1, "rail-optimised: at least one spine is needed to join the rails");
    ClosShape s;
    s.leavesPerPod = nicsPerServer;  // one rail switch per NIC index
    s.spinesPerPod = spines;
    s.hostsPerLeaf = servers;
    s.host = host;
    s.leaf = leaf;
    TopologySpec spec = buildClos(s);
    spec.tierNames = {"host", "rail", "spine"};
    spec.rankToHost.resize(uint64_t{servers} * nicsPerServer);
    for (uint32_t server = 0; server < servers; ++server) {
        for (uint32_t r = 0; r < nicsPerServer; ++r) {
            const uint32_t h = r * servers + server;
            spec.rankToHost[server * nicsPerServer + r] = h;
            spec.vertices[h].server = server;
        }
    }
    spec.source = "rail-optimised (" + std::to_string(servers) + " servers x " +
                  std::to_string(nicsPerServer) + " NICs, " + std::to_string(spines) + " spines)";
    return spec;
}

namespace {

// Inserts `count` hosts after the existing ones (vertices stay hosts first): every switch index moves up by
// `count`; ranks keep their hosts. Returns the first new host. The new hosts' ids follow the largest id in
// use, so every existing vertex keeps its id (and its ECMP seed).
uint32_t insertHosts(TopologySpec& spec, uint32_t count) {
    uint32_t hosts = 0;
    while (hosts < spec.vertices.size() && spec.vertices[hosts].kind == VertexKind::Host) {
        ++hosts;
    }
    if (spec.rankToHost.empty()) {
        spec.rankToHost.resize(hosts);
        std::iota(spec.rankToHost.begin(), spec.rankToHost.end(), 0u);
    }
    const auto moved = [&](uint32_t v) { return v >= hosts ? v + count : v; };
    for (SpecCable& c : spec.cables) {
        c.a = moved(c.a);
        c.b = moved(c.b);
    }
    for (TopologySpec::RangeRoute& r : spec.structuralRoutes) {
        r.vertex = moved(r.vertex);
    }
    for (TopologySpec::ReductionEngine& e : spec.engines) {
        e.switchVertex = moved(e.switchVertex);
    }
    if (spec.defaultPorts.size() > hosts) {
        spec.defaultPorts.insert(spec.defaultPorts.begin() + hosts, count, std::vector<uint16_t>{});
    }
    uint32_t nextId = 0;
    for (const SpecVertex& v : spec.vertices) {
        nextId = std::max(nextId, v.originalId + 1);
    }
    std::vector<SpecVertex> added(count);
    for (uint32_t i = 0; i < count; ++i) {
        added[i].originalId = nextId + i;
    }
    spec.vertices.insert(spec.vertices.begin() + hosts, added.begin(), added.end());
    return hosts;
}

}  // namespace

void addScaleUp(TopologySpec& spec, uint32_t npusPerServer, const LinkSettings& link, bool reduces) {
    const uint32_t ranks = spec.numRanks();
    require(ranks == spec.numHosts(), "scale-up: every host must be a rank");
    require(npusPerServer >= 2 && ranks % npusPerServer == 0,
            "scale-up: " + std::to_string(ranks) + " ranks do not form servers of " +
                std::to_string(npusPerServer) + " NPUs (at least 2)");
    require(link.rateBps > 0, "scale-up: the link rate must be > 0");
    const uint32_t servers = ranks / npusPerServer;
    const uint8_t tier = static_cast<uint8_t>(spec.tierNames.size());
    spec.tierNames.push_back("scale-up");
    const uint32_t base = spec.numVertices();
    addVertices(spec, servers, VertexKind::Switch, tier);
    spec.defaultPorts.resize(spec.vertices.size());
    for (uint32_t server = 0; server < servers; ++server) {
        std::vector<uint32_t> members;
        for (uint32_t i = 0; i < npusPerServer; ++i) {
            members.push_back(spec.hostOfRank(server * npusPerServer + i));
        }
        std::vector<uint32_t> sorted = members;
        std::sort(sorted.begin(), sorted.end());
        for (uint32_t i = 0; i < npusPerServer; ++i) {
            const uint32_t h = members[i];
            // Appended after the host's existing ports (counted by the last finalize(); one new cable per
            // host).
            const uint32_t scaleUpPort = spec.numPorts(h);
            cable(spec, h, base + server, link);
            spec.vertices[h].server = server;
            spec.structuralRoutes.push_back({base + server, h, h + 1, {port(i)}});
            for (uint32_t peer : sorted) {
                if (peer != h) {
                    spec.structuralRoutes.push_back({h, peer, peer + 1, {port(scaleUpPort)}});
                }
            }
        }
    }
    if (reduces) {
        std::vector<uint32_t> switches(servers);
        std::iota(switches.begin(), switches.end(), base);
        addReductionEngines(spec, switches);
        for (uint32_t server = 0; server < servers; ++server) {
            spec.vertices[spec.engines[spec.engines.size() - servers + server].host].server = server;
        }
    }
    spec.source += " + scale-up (" + std::to_string(servers) + " servers of " +
                   std::to_string(npusPerServer) + (reduces ? ", reducing" : "") + ")";
    spec.finalize();
}

void addReductionEngines(TopologySpec& spec, const std::vector<uint32_t>& switches) {
    spec.finalize();  // ports as the cables stand
    // A network routed from its structure (builders) gets the engines' routes here; one routed by search
    // (a description of nodes and links) finds them like any host's, and must stay routed by search.
    const bool structural = !spec.structuralRoutes.empty() || !spec.defaultPorts.empty();
    struct Served {
        uint32_t host;
        uint16_t port;  // the host's port towards the switch
    };
    std::vector<uint64_t> rateOf;
    std::vector<uint16_t> enginePort;         // the engine's port on its switch: after the existing ones
    std::vector<std::vector<Served>> served;  // per engine
    for (uint32_t sw : switches) {
        require(sw < spec.numVertices() && spec.isSwitch(sw),
                "reduction engines: vertex " + std::to_string(sw) + " is not a switch");
        uint64_t sum = 0;
        served.emplace_back();
        for (uint32_t p = 0; p < spec.numPorts(sw); ++p) {
            const uint32_t cableId = spec.portCable(sw, p), peer = spec.portPeer(sw, p);
            const uint64_t rate = spec.cables[cableId].rateBps;
            require(sum <= std::numeric_limits<uint64_t>::max() - rate,
                    "reduction engines: the sum of a switch's port rates overflows");
            sum += rate;
            if (!spec.isSwitch(peer)) {
                served.back().push_back({peer, port(spec.portOnCable(peer, cableId))});
            }
        }
        rateOf.push_back(sum);
        enginePort.push_back(port(spec.numPorts(sw)));
    }
    const uint32_t count = static_cast<uint32_t>(switches.size());
    const uint32_t first = insertHosts(spec, count);
    if (structural) {
        spec.defaultPorts.resize(spec.vertices.size());
    }
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t engine = first + i, sw = switches[i] + count;  // switches moved up by `count`
        cable(spec, engine, sw, LinkSettings{rateOf[i], 0, 0});
        spec.vertices[engine].reductionEngine = true;
        spec.engines.push_back({engine, sw});
        if (!structural) {
            continue;
        }
        // The hosts the switch serves reach the engine through it, whatever port they use by default.
        for (const Served& h : served[i]) {
            spec.structuralRoutes.push_back({h.host, engine, engine + 1, {h.port}});
        }
        spec.defaultPorts[engine] = {0};
        spec.structuralRoutes.push_back({sw, engine, engine + 1, {enginePort[i]}});
    }
    // Engines of adjacent reducing switches (a leaf's and a spine's, in a reduction tree) reach each other
    // over the cables between their switches, whatever the switches route by default.
    spec.finalize();
    if (structural) {
        std::map<uint32_t, uint32_t> engineOfSwitch;  // this call's engines: switch -> engine host
        for (std::size_t i = spec.engines.size() - count; i < spec.engines.size(); ++i) {
            engineOfSwitch.emplace(spec.engines[i].switchVertex, spec.engines[i].host);
        }
        for (std::size_t i = spec.engines.size() - count; i < spec.engines.size(); ++i) {
            const uint32_t sw = spec.engines[i].switchVertex;
            std::map<uint32_t, std::vector<uint16_t>>
                portsTo;  // engine host -> the switch's ports towards it
            for (uint32_t p = 0; p < spec.numPorts(sw); ++p) {
                const auto peer = engineOfSwitch.find(spec.portPeer(sw, p));
                if (peer != engineOfSwitch.end()) {
                    portsTo[peer->second].push_back(port(p));
                }
            }
            for (auto& [host, ports] : portsTo) {
                spec.structuralRoutes.push_back({sw, host, host + 1, std::move(ports)});
            }
        }
    }
    spec.finalize();
}

TopologySpec buildMultiDimensional(const std::vector<Dimension>& dims) {
    require(!dims.empty(), "multi-dimensional: no dimensions");
    uint64_t npus = 1;
    for (const Dimension& d : dims) {
        require(d.npus >= 2, "multi-dimensional: every dimension needs at least 2 NPUs");
        require(d.bandwidthBytesPerNs > 0 && std::isfinite(d.bandwidthBytesPerNs) && d.latencyNs >= 0 &&
                    std::isfinite(d.latencyNs),
                "multi-dimensional: bandwidth must be > 0 and latency >= 0");
        npus *= d.npus;
        require(npus <= kMaxVertices, "multi-dimensional: more than 2^26 NPUs");
    }
    TopologySpec spec;
    spec.dimensions = dims;
    spec.routing = RoutingKind::DimensionOrder;
    addVertices(spec, npus, VertexKind::Host, 0);
    uint32_t stride = 1;
    for (std::size_t k = 0; k < dims.size(); ++k) {
        const Dimension& d = dims[k];
        const uint32_t n = d.npus;
        require(d.kind != DimensionKind::FullyConnected || n <= 65536,
                "multi-dimensional: FullyConnected dimensions of more than 65536 NPUs");
        LinkSettings link;
        link.rateBps = static_cast<uint64_t>(std::llround(d.bandwidthBytesPerNs * 8e9));
        link.delayPs = static_cast<TimePs>(std::llround(d.latencyNs * 1000));
        require(link.rateBps > 0, "multi-dimensional: a bandwidth rounds to 0 b/s");
        uint32_t switchBase = 0;
        if (d.kind == DimensionKind::Switch) {
            switchBase = spec.numVertices();
            spec.tierNames.push_back("dim" + std::to_string(k) + "-switch");
            addVertices(spec, npus / n, VertexKind::Switch, static_cast<uint8_t>(spec.tierNames.size() - 1));
        }
        const uint32_t groups = static_cast<uint32_t>(npus / n);
        for (uint32_t g = 0; g < groups; ++g) {
            auto member = [&](uint32_t c) { return g / stride * stride * n + c * stride + g % stride; };
            switch (d.kind) {
                case DimensionKind::Ring:
                    for (uint32_t c = 0; c < (n == 2 ? 1 : n); ++c) {
                        cable(spec, member(c), member((c + 1) % n), link);
                    }
                    break;
                case DimensionKind::FullyConnected:
                    for (uint32_t a = 0; a < n; ++a) {
                        for (uint32_t b = a + 1; b < n; ++b) {
                            cable(spec, member(a), member(b), link);
                        }
                    }
                    break;
                case DimensionKind::Switch:
                    for (uint32_t c = 0; c < n; ++c) {
                        cable(spec, member(c), switchBase + g, link);
                    }
                    break;
            }
        }
        stride *= n;
    }
    spec.source = "multi-dimensional (";
    for (std::size_t k = 0; k < dims.size(); ++k) {
        spec.source +=
            (k ? " x " : "") + std::string(toString(dims[k].kind)) + " " + std::to_string(dims[k].npus);
    }
    spec.source += ")";
    spec.finalize();
    return spec;
}

}  // namespace mlnet
