#include "simai-topology.h"

#include <algorithm>
#include <fstream>
#include <map>

#include "network/hpcc-topology.h"
#include "util/decimal.h"
#include "util/text-lines.h"

namespace mlnet::roce::simai {

namespace {

// Scale-out tiers by breadth-first distance from the GPUs over scale-out switches only (an NVSwitch is no
// way up the fabric).
void nameTiers(TopologySpec& spec, const std::vector<bool>& isNvswitch) {
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
            if (dist[w] == UINT32_MAX && !isNvswitch[w]) {
                dist[w] = dist[u] + 1;
                queue.push_back(w);
            }
        }
    }
    static const char* kNames[] = {"asw", "psw", "dsw"};
    spec.tierNames = {"host"};
    std::map<uint32_t, uint8_t> tierOfDistance;
    uint32_t deepest = 0;
    for (uint32_t v = spec.numHosts(); v < n; ++v) {
        if (!isNvswitch[v]) {
            deepest = std::max(deepest, dist[v] == UINT32_MAX ? 1u : dist[v]);
        }
    }
    for (uint32_t d = 1; d <= std::min(deepest, 250u); ++d) {
        spec.tierNames.push_back(d <= 3 ? kNames[d - 1] : "tier" + std::to_string(d));
    }
    const auto scaleUp = static_cast<uint8_t>(spec.tierNames.size());
    spec.tierNames.push_back("scale-up");
    for (uint32_t v = spec.numHosts(); v < n; ++v) {
        spec.vertices[v].tier =
            isNvswitch[v] ? scaleUp
                          : static_cast<uint8_t>(std::min(dist[v] == UINT32_MAX ? 1u : dist[v], 250u));
    }
}

}  // namespace

bool isSimaiTopologyFile(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        std::vector<TextLine> lines = tokenizeLines(line);
        if (lines.empty()) {
            continue;
        }
        // Six fields are SimAI's header whatever they hold (HPCC's has three): a bad number in it is then
        // reported by the SimAI reader, field by field.
        return lines[0].tokens.size() == 6;
    }
    return false;
}

std::optional<TopologySpec> loadSimaiTopology(const std::string& path, Diagnostics& diag,
                                              SimaiTopologyInfo* info) {
    std::string text;
    if (!readTextFile(path, text, diag, "SimAI topology file")) {
        return std::nullopt;
    }
    const std::vector<TextLine> lines = tokenizeLines(text);
    const std::size_t errorsBefore = diag.errorCount();
    auto fail = [&](int line, const std::string& field, const std::string& what) {
        diag.error(atLine(path, line) + ": " + field + ": " + what);
        return std::nullopt;
    };
    static const char* kHeader =
        "'<nodes> <gpus per server> <NVSwitches> <switches> <links> <GPU type>' (SimAI's header)";
    if (lines.empty()) {
        return fail(1, "header", "the file is empty; expected " + std::string(kHeader));
    }
    const TextLine& header = lines[0];
    if (header.tokens.size() != 6) {
        return fail(header.number, "header",
                    std::to_string(header.tokens.size()) + " fields; expected " + std::string(kHeader));
    }
    static const char* kFields[] = {"nodes", "gpus per server", "NVSwitches", "switches", "links"};
    uint64_t field[5] = {};
    for (int i = 0; i < 5; ++i) {
        if (!parseDecimal(header.tokens[i], field[i]) || field[i] > (1u << 24)) {
            return fail(header.number, kFields[i],
                        quoted(header.tokens[i]) + " is not a whole number in 0..16777216");
        }
    }
    const uint64_t nodes = field[0], perServer = field[1], nvswitches = field[2], switches = field[3],
                   links = field[4];
    if (nvswitches + switches >= nodes) {
        return fail(header.number, "nodes",
                    std::to_string(nodes) + " nodes hold no GPU besides " + std::to_string(nvswitches) +
                        " NVSwitches and " + std::to_string(switches) +
                        " switches; expected nodes = GPUs + NVSwitches + switches");
    }
    const uint64_t gpus = nodes - nvswitches - switches;
    if (perServer == 0 || gpus % perServer != 0) {
        return fail(header.number, "gpus per server",
                    std::to_string(perServer) + " does not divide the " + std::to_string(gpus) +
                        " GPUs; SimAI's groups need whole servers");
    }
    // Ids: NVSwitches first, then switches, on as many lines as they take.
    std::vector<uint8_t> kind(nodes, 0);  // 0 GPU, 1 switch, 2 NVSwitch
    std::size_t next = 1;
    uint64_t found = 0;
    while (found < nvswitches + switches) {
        if (next >= lines.size()) {
            return fail(lines.back().number, "switch ids",
                        "the file ends after " + std::to_string(found) + " of the " +
                            std::to_string(nvswitches + switches) + " NVSwitch and switch ids of the header");
        }
        const TextLine& line = lines[next++];
        for (std::string_view token : line.tokens) {
            uint64_t id = 0;
            const bool nv = found < nvswitches;
            if (found == nvswitches + switches) {
                return fail(line.number, "switch ids",
                            "more than the " + std::to_string(nvswitches + switches) +
                                " NVSwitch and switch ids of the header (a link line must start a new line)");
            }
            if (!parseDecimal(token, id) || id >= nodes) {
                return fail(line.number, nv ? "NVSwitch id" : "switch id",
                            quoted(token) + " is not a node id in 0.." + std::to_string(nodes - 1));
            }
            if (kind[id] != 0) {
                return fail(line.number, nv ? "NVSwitch id" : "switch id",
                            std::to_string(id) + " is listed twice");
            }
            kind[id] = nv ? 2 : 1;
            ++found;
        }
    }
    if (lines.size() - next < links) {
        return fail(lines.back().number, "links",
                    "the header announces " + std::to_string(links) + " link lines, found " +
                        std::to_string(lines.size() - next));
    }
    std::vector<SpecCable> byId;
    byId.reserve(links);
    std::map<std::pair<uint32_t, uint32_t>, int> pairLine;
    for (uint64_t c = 0; c < links; ++c) {
        const TextLine& line = lines[next + c];
        SpecCable cable;
        if (!parseTopologyLinkLine(line, nodes, path, cable, diag)) {
            continue;
        }
        const std::pair<uint32_t, uint32_t> key{std::min(cable.a, cable.b), std::max(cable.a, cable.b)};
        if (auto [it, inserted] = pairLine.emplace(key, line.number); !inserted) {
            fail(line.number, "link",
                 "a second link between nodes " + std::to_string(cable.a) + " and " +
                     std::to_string(cable.b) + " (first at line " + std::to_string(it->second) +
                     "); parallel links are not supported");
            continue;
        }
        if ((kind[cable.a] == 2 && kind[cable.b] != 0) || (kind[cable.b] == 2 && kind[cable.a] != 0)) {
            fail(line.number, "link",
                 "NVSwitch " + std::to_string(kind[cable.a] == 2 ? cable.a : cable.b) +
                     " is cabled to switch " + std::to_string(kind[cable.a] == 2 ? cable.b : cable.a) +
                     "; expected NVSwitches cabled to the GPUs of their server only");
            continue;
        }
        byId.push_back(cable);
    }
    if (diag.errorCount() != errorsBefore) {
        return std::nullopt;
    }
    if (next + links < lines.size()) {
        diag.warning(atLine(path, lines[next + links].number) + ": " +
                     std::to_string(lines.size() - next - links) + " line(s) after the " +
                     std::to_string(links) +
                     " links of the header are ignored (SimAI stops reading there too)");
    }
    std::vector<bool> isSwitch(nodes);
    for (uint64_t id = 0; id < nodes; ++id) {
        isSwitch[id] = kind[id] != 0;
    }
    std::optional<TopologySpec> spec =
        specFromNodeIds(static_cast<uint32_t>(nodes), isSwitch, std::move(byId), path, diag);
    if (!spec) {
        return std::nullopt;
    }
    std::vector<bool> isNvswitch(spec->numVertices(), false);
    for (uint32_t v = spec->numHosts(); v < spec->numVertices(); ++v) {
        isNvswitch[v] = kind[spec->vertices[v].originalId] == 2;
    }
    // A GPU's server is its NVSwitch's (the first, with several NVSwitches per server).
    for (uint32_t h = 0; h < spec->numHosts(); ++h) {
        for (uint32_t p = 0; p < spec->numPorts(h); ++p) {
            const uint32_t peer = spec->portPeer(h, p);
            if (isNvswitch[peer]) {
                spec->vertices[h].server = peer - spec->numHosts();
                break;
            }
        }
    }
    nameTiers(*spec, isNvswitch);
    if (info) {
        *info = {static_cast<uint32_t>(gpus),       static_cast<uint32_t>(perServer),
                 static_cast<uint32_t>(nvswitches), static_cast<uint32_t>(switches),
                 static_cast<uint32_t>(links),      std::string(header.tokens[5])};
    }
    return spec;
}

}  // namespace mlnet::roce::simai
