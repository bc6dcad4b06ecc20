#include "flow-file.h"
#include "util/decimal.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>
#include <string_view>

#include "hpcc-config.h"

namespace mlnet::roce {

namespace {

bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// The non-empty lines of a file as whitespace-separated tokens viewing into the file's text (flow files reach
// hundreds of thousands of lines, so no per-token strings).
struct Line {
    int number;
    std::vector<std::string_view> tokens;
};

std::vector<Line> tokenize(const std::string& text) {
    std::vector<Line> lines;
    std::size_t pos = 0;
    for (int number = 1; pos < text.size(); ++number) {
        const std::size_t end = std::min(text.find('\n', pos), text.size());
        Line line{number, {}};
        for (std::size_t i = pos; i < end;) {
            while (i < end && isSpace(text[i])) {
                ++i;
            }
            const std::size_t start = i;
            while (i < end && !isSpace(text[i])) {
                ++i;
            }
            if (i > start) {
                line.tokens.emplace_back(text.data() + start, i - start);
            }
        }
        if (!line.tokens.empty()) {
            lines.push_back(std::move(line));
        }
        pos = end + 1;
    }
    return lines;
}

std::string quoted(std::string_view token) {
    return "'" + std::string(token) + "'";
}

// Disjoint sets over switch ids, for the connectivity check.
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

HpccTopologyFile loadHpccTopologyFile(const std::string& path, Diagnostics& diag) {
    std::string text;
    if (!readTextFile(path, text, diag, "HPCC topology file")) {
        return {};
    }
    const std::vector<Line> lines = tokenize(text);
    const std::size_t errorsBefore = diag.errorCount();
    auto fail = [&](int line, const std::string& what) { diag.error(atLine(path, line) + ": " + what); };

    uint64_t nodes = 0, switches = 0, cables = 0;
    if (lines.empty()) {
        fail(0, "empty file; expected the header '<nodes> <switches> <links>'");
        return {};
    }
    const Line& header = lines[0];
    if (header.tokens.size() == 6) {
        fail(header.number,
             "SimAI's 6-field header (with NVSwitches and a GPU type) is not supported; expected "
             "'<nodes> <switches> <links>'");
        return {};
    }
    if (header.tokens.size() != 3 || !parseDecimal(header.tokens[0], nodes) ||
        !parseDecimal(header.tokens[1], switches) || !parseDecimal(header.tokens[2], cables)) {
        fail(header.number, "expected the header '<nodes> <switches> <links>' (three integers)");
        return {};
    }
    // Bounded so that a corrupt header cannot ask for gigabytes before the link lines are even read.
    if (nodes > (1u << 24) || switches >= nodes) {
        fail(header.number, "expected switches < nodes <= 2^24 (at least one host), found " +
                                std::to_string(nodes) + " nodes and " + std::to_string(switches) +
                                " switches");
        return {};
    }

    HpccTopologyFile topology;
    topology.path = path;
    topology.numNodes = static_cast<uint32_t>(nodes);
    topology.isHost.assign(nodes, true);
    std::size_t next = 1;
    while (topology.switchIds.size() < switches) {
        if (next >= lines.size()) {
            fail(0, "expected " + std::to_string(switches) + " switch ids after the header, found " +
                        std::to_string(topology.switchIds.size()));
            return {};
        }
        const Line& line = lines[next++];
        for (std::string_view token : line.tokens) {
            uint64_t id = 0;
            if (topology.switchIds.size() == switches) {
                fail(line.number, "more than the " + std::to_string(switches) + " switch ids of the header");
                return {};
            }
            if (!parseDecimal(token, id) || id >= nodes) {
                fail(line.number,
                     "switch id " + quoted(token) + " is not a node id in 0.." + std::to_string(nodes - 1));
                return {};
            }
            if (!topology.isHost[id]) {
                fail(line.number, "switch id " + std::to_string(id) + " is listed twice");
                return {};
            }
            topology.isHost[id] = false;
            topology.switchIds.push_back(static_cast<uint32_t>(id));
        }
    }
    if (lines.size() - next < cables) {
        fail(0, "the header announces " + std::to_string(cables) + " link lines, found " +
                    std::to_string(lines.size() - next));
        return {};
    }
    topology.cables.reserve(cables);
    std::map<std::pair<uint32_t, uint32_t>, int> pairLine;
    for (uint64_t c = 0; c < cables; ++c) {
        const Line& line = lines[next + c];
        const auto& t = line.tokens;
        uint64_t a = 0, b = 0, rateBps = 0, delayNs = 0;
        double errorRate = 0;
        NumberStatus status;
        if (t.size() != 5) {
            fail(line.number, "expected '<a> <b> <rate> <delay> <error rate>', found " +
                                  std::to_string(t.size()) + " fields");
            continue;
        }
        if (!parseDecimal(t[0], a) || !parseDecimal(t[1], b) || a >= nodes || b >= nodes) {
            fail(line.number, "link ends " + quoted(t[0]) + " " + quoted(t[1]) + " are not node ids in 0.." +
                                  std::to_string(nodes - 1));
            continue;
        }
        if (a == b) {
            fail(line.number,
                 "link from node " + std::to_string(a) + " to itself; expected two different nodes");
            continue;
        }
        if ((status = parseDataRateBps(t[2], rateBps)) != NumberStatus::Ok || rateBps == 0) {
            fail(line.number, "rate " + quoted(t[2]) + " " +
                                  (status == NumberStatus::Ok ? "is zero" : describeNumberStatus(status)) +
                                  "; expected a rate > 0 such as 100Gbps");
            continue;
        }
        if ((status = parseTimeNs(t[3], delayNs)) != NumberStatus::Ok) {
            fail(line.number, "delay " + quoted(t[3]) + " " +
                                  (status == NumberStatus::NotWhole ? "is finer than 1 ns"
                                                                    : describeNumberStatus(status)) +
                                  "; expected a delay such as 1000ns, 0.001ms or 1us");
            continue;
        }
        const std::string errorText(t[4]);
        char* end = nullptr;
        errorRate = std::strtod(errorText.c_str(), &end);
        if (end != errorText.c_str() + errorText.size() || errorText.empty() ||
            !(errorRate >= 0 && errorRate <= 1)) {
            fail(line.number, "error rate " + quoted(t[4]) + " is not a number in 0..1");
            continue;
        }
        // By value: std::minmax returns references, which would dangle here.
        const std::pair<uint32_t, uint32_t> key{static_cast<uint32_t>(std::min(a, b)),
                                                static_cast<uint32_t>(std::max(a, b))};
        if (auto [it, inserted] = pairLine.emplace(key, line.number); !inserted) {
            fail(line.number, "a second link between nodes " + std::to_string(a) + " and " +
                                  std::to_string(b) + " (first at line " + std::to_string(it->second) +
                                  "); parallel links are not supported (the reference keeps only the last)");
            continue;
        }
        topology.cables.push_back(
            {static_cast<uint32_t>(a), static_cast<uint32_t>(b), rateBps, delayNs, errorRate, line.number});
    }
    if (diag.errorCount() != errorsBefore) {
        return {};
    }
    if (next + cables < lines.size()) {
        diag.warning(atLine(path, lines[next + cables].number) + ": " +
                     std::to_string(lines.size() - next - cables) + " line(s) after the " +
                     std::to_string(cables) + " links of the header are ignored");
    }

    // Every host must reach every other through switches (the reference never forwards through a host);
    // checked here so that a mistyped link fails at load time instead of leaving flows that never finish.
    if (switches > 0) {
        Components components(nodes);
        std::vector<std::vector<uint32_t>> hostSwitches(nodes);
        for (const auto& cable : topology.cables) {
            const bool switchA = !topology.isHost[cable.a], switchB = !topology.isHost[cable.b];
            if (switchA && switchB) {
                components.join(cable.a, cable.b);
            } else if (switchA || switchB) {
                hostSwitches[switchA ? cable.b : cable.a].push_back(switchA ? cable.a : cable.b);
            }
        }
        std::optional<uint32_t> firstHost, root;
        for (uint32_t id = 0; id < nodes; ++id) {
            if (!topology.isHost[id]) {
                continue;
            }
            if (hostSwitches[id].empty()) {
                fail(0, "host " + std::to_string(id) + " has no link to a switch; every host needs one");
                continue;
            }
            if (!root) {
                firstHost = id;
                root = components.find(hostSwitches[id][0]);
                continue;
            }
            const bool reaches = std::any_of(hostSwitches[id].begin(), hostSwitches[id].end(),
                                             [&](uint32_t sw) { return components.find(sw) == *root; });
            if (!reaches) {
                fail(0, "host " + std::to_string(id) + " has no path through switches to host " +
                            std::to_string(*firstHost));
            }
        }
        if (diag.errorCount() != errorsBefore) {
            return {};
        }
    }
    for (uint32_t id = 65536; id < nodes; ++id) {
        if (topology.isHost[id]) {
            diag.warning(
                path + ": host " + std::to_string(id) +
                " (and maybe more) has an id >= 65536, which fct.txt's 11.x.y.1 address cannot hold; its "
                "lines will show a wrapped address");
            break;
        }
    }
    return topology;
}

std::vector<FlowSpec> loadFlowFile(const std::string& path, const std::vector<bool>& isHost,
                                   Diagnostics& diag) {
    std::string text;
    if (!readTextFile(path, text, diag, "HPCC flow file")) {
        return {};
    }
    const std::vector<Line> lines = tokenize(text);
    uint64_t count = 0;
    if (lines.empty()) {
        diag.error(path + ": empty file; expected the flow count on the first line");
        return {};
    }
    if (lines[0].tokens.size() != 1 || !parseDecimal(lines[0].tokens[0], count)) {
        diag.error(atLine(path, lines[0].number) +
                   ": expected the flow count (one integer >= 0) on the first line");
        return {};
    }
    const std::size_t available = lines.size() - 1;
    if (available < count) {
        diag.error(path + ": the first line announces " + std::to_string(count) + " flows but only " +
                   std::to_string(available) + " flow lines follow");
        return {};
    }
    if (count == 0) {
        diag.warning(path + ": the file holds no flows; nothing will be simulated");
    }
    if (available > count) {
        diag.warning(
            atLine(path, lines[count + 1].number) + ": " + std::to_string(available - count) +
            " line(s) after the " + std::to_string(count) +
            " announced flows are ignored (only the count of the first line is read, as in the reference)");
    }

    const std::size_t errorsBefore = diag.errorCount();
    std::vector<FlowSpec> flows;
    flows.reserve(count);
    int previousLine = 0;
    int firstRounded = 0;
    for (uint64_t f = 0; f < count; ++f) {
        const Line& line = lines[f + 1];
        const auto& t = line.tokens;
        auto fail = [&](const std::string& what) { diag.error(atLine(path, line.number) + ": " + what); };
        if (t.size() != 6) {
            fail("expected '<src> <dst> <pg> <dport> <size bytes> <start s>', found " +
                 std::to_string(t.size()) + " fields");
            continue;
        }
        uint64_t ends[2] = {0, 0};
        bool endsOk = true;
        for (int e = 0; e < 2; ++e) {
            const char* role = e == 0 ? "source" : "destination";
            if (!parseDecimal(t[e], ends[e]) || ends[e] >= isHost.size()) {
                fail(std::string(role) + " " + quoted(t[e]) + " is not a node id of the topology (0.." +
                     std::to_string(isHost.empty() ? 0 : isHost.size() - 1) + ")");
                endsOk = false;
            } else if (!isHost[ends[e]]) {
                fail(std::string(role) + " " + std::to_string(ends[e]) + " is a switch; expected a host");
                endsOk = false;
            }
        }
        if (endsOk && ends[0] == ends[1]) {
            fail("source and destination are both host " + std::to_string(ends[0]) + "; expected two hosts");
            endsOk = false;
        }
        uint64_t pg = 0, dport = 0, size = 0, startNs = 0;
        bool ok = endsOk;
        if (!parseDecimal(t[2], pg) || pg > 7) {
            fail("priority group " + quoted(t[2]) + " is not in 0..7");
            ok = false;
        }
        if (!parseDecimal(t[3], dport) || dport > 65535) {
            fail("destination port " + quoted(t[3]) + " is not in 0..65535");
            ok = false;
        }
        if (!parseDecimal(t[4], size) || size == 0) {
            const bool digits =
                std::all_of(t[4].begin(), t[4].end(), [](char c) { return c >= '0' && c <= '9'; });
            fail("size " + quoted(t[4]) +
                 (digits && size == 0 && t[4].find_first_not_of('0') != std::string_view::npos
                      ? " does not fit in 64 bits"
                      : " is not an integer > 0") +
                 "; expected bytes >= 1");
            ok = false;
        }
        const NumberStatus startStatus = parseScaledDecimal(t[5], 9, true, startNs);
        if (startStatus != NumberStatus::Ok && startStatus != NumberStatus::Rounded) {
            fail("start time " + quoted(t[5]) + " " + describeNumberStatus(startStatus) +
                 "; expected seconds >= 0 such as 2.000000000");
            ok = false;
        } else if (startStatus == NumberStatus::Rounded && firstRounded == 0) {
            firstRounded = line.number;
        }
        if (!ok) {
            continue;
        }
        if (!flows.empty() && startNs < flows.back().startNs) {
            fail("start " + std::string(t[5]) + " s is earlier than the previous flow's (line " +
                 std::to_string(previousLine) +
                 "); expected flows sorted by start time (the reference starts them "
                 "in file order)");
            continue;
        }
        flows.push_back({static_cast<uint32_t>(ends[0]), static_cast<uint32_t>(ends[1]),
                         static_cast<uint8_t>(pg), static_cast<uint16_t>(dport), size, startNs});
        previousLine = line.number;
    }
    if (firstRounded > 0) {
        diag.warning(atLine(path, firstRounded) +
                     ": start times finer than 1 ns were rounded to the nearest ns "
                     "(first here)");
    }
    if (diag.errorCount() != errorsBefore) {
        return {};
    }
    return flows;
}

}  // namespace mlnet::roce
