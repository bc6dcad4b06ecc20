#include "hpcc-topology.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>

#include "util/decimal.h"
#include "util/text-lines.h"
#include "util/units.h"

namespace mlnet {

namespace {

// Switch tiers by breadth-first distance from the hosts: 1 for switches cabled to a host, 2 for the next
// layer...
void assignTiers(TopologySpec& spec) {
    const uint32_t n = spec.numVertices();
    std::vector<uint32_t> dist(n, UINT32_MAX), queue;
    for (uint32_t h = 0; h < spec.numHosts(); ++h) {
        dist[h] = 0;
        queue.push_back(h);
    }
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const uint32_t u = queue[head];
        for (uint32_t p = 0; p < spec.numPorts(u); ++p) {
            const uint32_t w = spec.portPeer(u, p);
            if (dist[w] == UINT32_MAX) {
                dist[w] = dist[u] + 1;
                queue.push_back(w);
            }
        }
    }
    uint32_t deepest = 0;
    for (uint32_t v = spec.numHosts(); v < n; ++v) {
        deepest = std::max(deepest, dist[v] == UINT32_MAX ? 1u : dist[v]);
    }
    spec.tierNames = {"host"};
    for (uint32_t t = 1; t <= std::min(deepest, 254u); ++t) {
        spec.tierNames.push_back("tier" + std::to_string(t));
    }
    for (uint32_t v = spec.numHosts(); v < n; ++v) {
        spec.vertices[v].tier = static_cast<uint8_t>(std::min(dist[v] == UINT32_MAX ? 1u : dist[v], 254u));
    }
}

std::string formatRateBps(uint64_t bps) {
    static const std::pair<uint64_t, const char*> units[] = {{1'000'000'000'000ull, "Tbps"},
                                                             {1'000'000'000ull, "Gbps"},
                                                             {1'000'000ull, "Mbps"},
                                                             {1000ull, "Kbps"}};
    for (const auto& [scale, unit] : units) {
        if (bps % scale == 0) {
            return std::to_string(bps / scale) + unit;
        }
    }
    return std::to_string(bps) + "bps";
}

std::string formatDelayPs(TimePs ps) {
    return ps % kPsPerNs == 0 ? std::to_string(psToNs(ps)) + "ns" : std::to_string(ps) + "ps";
}

}  // namespace

bool parseTopologyLinkLine(const TextLine& line, uint64_t nodes, const std::string& path, SpecCable& out,
                           Diagnostics& diag) {
    auto fail = [&](const std::string& what) {
        diag.error(atLine(path, line.number) + ": " + what);
        return false;
    };
    const auto& t = line.tokens;
    uint64_t a = 0, b = 0, rateBps = 0, delayPs = 0;
    NumberStatus status;
    if (t.size() != 5) {
        return fail("expected '<a> <b> <rate> <delay> <error rate>', found " + std::to_string(t.size()) +
                    " fields");
    }
    if (!parseDecimal(t[0], a) || !parseDecimal(t[1], b) || a >= nodes || b >= nodes) {
        return fail("link ends " + quoted(t[0]) + " " + quoted(t[1]) + " are not node ids in 0.." +
                    std::to_string(nodes - 1));
    }
    if (a == b) {
        return fail("link from node " + std::to_string(a) + " to itself; expected two different nodes");
    }
    if ((status = parseDataRateBps(t[2], rateBps)) != NumberStatus::Ok || rateBps == 0) {
        return fail("rate " + quoted(t[2]) + " " +
                    (status == NumberStatus::Ok ? "is zero" : describeNumberStatus(status)) +
                    "; expected a rate > 0 such as 100Gbps");
    }
    if ((status = parseTimePs(t[3], delayPs)) != NumberStatus::Ok) {
        return fail("delay " + quoted(t[3]) + " " +
                    (status == NumberStatus::NotWhole ? "is finer than 1 ps" : describeNumberStatus(status)) +
                    "; expected a delay such as 1000ns, 0.001ms or 1us");
    }
    double errorRate = 0;
    if (!parsePlainReal(t[4], errorRate) || !(errorRate >= 0 && errorRate <= 1)) {
        return fail("error rate " + quoted(t[4]) + " is not a number in 0..1");
    }
    out = {static_cast<uint32_t>(a), static_cast<uint32_t>(b), rateBps, delayPs, errorRate, line.number};
    return true;
}

std::optional<TopologySpec> loadHpccTopologyFile(const std::string& path, Diagnostics& diag) {
    std::string text;
    if (!readTextFile(path, text, diag, "HPCC topology file")) {
        return std::nullopt;
    }
    const std::vector<TextLine> lines = tokenizeLines(text);
    const std::size_t errorsBefore = diag.errorCount();
    auto fail = [&](int line, const std::string& what) { diag.error(atLine(path, line) + ": " + what); };

    uint64_t nodes = 0, switches = 0, cables = 0;
    if (lines.empty()) {
        fail(0, "empty file; expected the header '<nodes> <switches> <links>'");
        return std::nullopt;
    }
    const TextLine& header = lines[0];
    if (header.tokens.size() == 6) {
        fail(
            header.number,
            "SimAI's 6-field header (with NVSwitches and a GPU type): a SimAI topology file, which mlnet-ns3 "
            "reads with its SimAI.conf (--network-configuration=SimAI.conf --topology=FILE); expected "
            "'<nodes> <switches> <links>' here");
        return std::nullopt;
    }
    if (header.tokens.size() != 3 || !parseDecimal(header.tokens[0], nodes) ||
        !parseDecimal(header.tokens[1], switches) || !parseDecimal(header.tokens[2], cables)) {
        fail(header.number, "expected the header '<nodes> <switches> <links>' (three integers)");
        return std::nullopt;
    }
    // Bounded so that a corrupt header cannot ask for gigabytes before the link lines are even read.
    if (nodes > (1u << 24) || switches >= nodes) {
        fail(header.number, "expected switches < nodes <= 2^24 (at least one host), found " +
                                std::to_string(nodes) + " nodes and " + std::to_string(switches) +
                                " switches");
        return std::nullopt;
    }
    std::vector<bool> isSwitch(nodes, false);
    std::size_t next = 1;
    for (uint64_t found = 0; found < switches;) {
        if (next >= lines.size()) {
            fail(0, "expected " + std::to_string(switches) + " switch ids after the header, found " +
                        std::to_string(found));
            return std::nullopt;
        }
        const TextLine& line = lines[next++];
        for (std::string_view token : line.tokens) {
            uint64_t id = 0;
            if (found == switches) {
                fail(line.number, "more than the " + std::to_string(switches) + " switch ids of the header");
                return std::nullopt;
            }
            if (!parseDecimal(token, id) || id >= nodes) {
                fail(line.number,
                     "switch id " + quoted(token) + " is not a node id in 0.." + std::to_string(nodes - 1));
                return std::nullopt;
            }
            if (isSwitch[id]) {
                fail(line.number, "switch id " + std::to_string(id) + " is listed twice");
                return std::nullopt;
            }
            isSwitch[id] = true;
            ++found;
        }
    }
    if (lines.size() - next < cables) {
        fail(0, "the header announces " + std::to_string(cables) + " link lines, found " +
                    std::to_string(lines.size() - next));
        return std::nullopt;
    }

    std::vector<SpecCable> byId;
    byId.reserve(cables);
    std::map<std::pair<uint32_t, uint32_t>, int> pairLine;
    for (uint64_t c = 0; c < cables; ++c) {
        const TextLine& line = lines[next + c];
        SpecCable cable;
        if (!parseTopologyLinkLine(line, nodes, path, cable, diag)) {
            continue;
        }
        const uint64_t a = cable.a, b = cable.b;
        const std::pair<uint32_t, uint32_t> key{static_cast<uint32_t>(std::min(a, b)),
                                                static_cast<uint32_t>(std::max(a, b))};
        if (auto [it, inserted] = pairLine.emplace(key, line.number); !inserted) {
            fail(line.number, "a second link between nodes " + std::to_string(a) + " and " +
                                  std::to_string(b) + " (first at line " + std::to_string(it->second) +
                                  "); parallel links are not supported (the reference keeps only the last)");
            continue;
        }
        byId.push_back(cable);
    }
    if (diag.errorCount() != errorsBefore) {
        return std::nullopt;
    }
    if (next + cables < lines.size()) {
        diag.warning(atLine(path, lines[next + cables].number) + ": " +
                     std::to_string(lines.size() - next - cables) + " line(s) after the " +
                     std::to_string(cables) + " links of the header are ignored");
    }
    auto spec = specFromNodeIds(static_cast<uint32_t>(nodes), isSwitch, std::move(byId), path, diag);
    if (!spec) {
        return std::nullopt;
    }
    const uint32_t hosts = spec->numHosts();
    if (nodes > 65536) {
        for (uint32_t h = 0; h < hosts; ++h) {
            if (spec->vertices[h].originalId >= 65536) {
                diag.warning(
                    path + ": host " + std::to_string(spec->vertices[h].originalId) +
                    " (and maybe more) has an id >= 65536, which fct.txt's 11.x.y.1 address cannot hold; "
                    "its lines will show a wrapped address");
                break;
            }
        }
    }
    return spec;
}

std::optional<TopologySpec> specFromNodeIds(uint32_t nodes, const std::vector<bool>& isSwitch,
                                            std::vector<SpecCable> cablesByNodeId, const std::string& source,
                                            Diagnostics& diag) {
    TopologySpec spec;
    spec.source = source;
    std::vector<uint32_t> vertexOf(nodes);
    uint32_t hosts = 0;
    for (uint32_t id = 0; id < nodes; ++id) {
        hosts += isSwitch[id] ? 0 : 1;
    }
    uint32_t nextHost = 0, nextSwitch = hosts;
    for (uint32_t id = 0; id < nodes; ++id) {
        vertexOf[id] = isSwitch[id] ? nextSwitch++ : nextHost++;
    }
    spec.vertices.resize(nodes);
    for (uint32_t id = 0; id < nodes; ++id) {
        SpecVertex& v = spec.vertices[vertexOf[id]];
        v.kind = isSwitch[id] ? VertexKind::Switch : VertexKind::Host;
        v.originalId = id;
    }
    for (SpecCable& c : cablesByNodeId) {
        if (c.a >= nodes || c.b >= nodes) {
            diag.error(atLine(source, c.line) + ": a link names node " + std::to_string(std::max(c.a, c.b)) +
                       " but there are " + std::to_string(nodes) + " nodes");
            return std::nullopt;
        }
        c.a = vertexOf[c.a];
        c.b = vertexOf[c.b];
    }
    spec.cables = std::move(cablesByNodeId);
    spec.finalize();
    if (!spec.validate(diag)) {
        return std::nullopt;
    }
    assignTiers(spec);
    return spec;
}

std::string formatHpccTopology(const TopologySpec& spec, HpccLinkOrder order) {
    std::ostringstream out;
    out << spec.numVertices() << " " << spec.numSwitches() << " " << spec.cables.size() << "\n";
    std::vector<uint32_t> switchIds;
    for (uint32_t v = spec.numHosts(); v < spec.numVertices(); ++v) {
        switchIds.push_back(spec.vertices[v].originalId);
    }
    std::sort(switchIds.begin(), switchIds.end());
    for (std::size_t i = 0; i < switchIds.size(); ++i) {
        out << (i ? " " : "") << switchIds[i];
    }
    out << "\n";
    std::vector<const SpecCable*> cables;
    for (const SpecCable& c : spec.cables) {
        cables.push_back(&c);
    }
    if (order == HpccLinkOrder::Tiers) {
        auto lowerTier = [&](const SpecCable* c) {
            return std::min(spec.vertices[c->a].tier, spec.vertices[c->b].tier);
        };
        std::stable_sort(cables.begin(), cables.end(),
                         [&](const SpecCable* x, const SpecCable* y) { return lowerTier(x) < lowerTier(y); });
    }
    for (const SpecCable* cable : cables) {
        const SpecCable& c = *cable;
        std::ostringstream error;
        error.precision(17);
        error << c.errorRate;
        out << spec.vertices[c.a].originalId << " " << spec.vertices[c.b].originalId << " "
            << formatRateBps(c.rateBps) << " " << formatDelayPs(c.delayPs) << " " << error.str() << "\n";
    }
    return out.str();
}

}  // namespace mlnet
