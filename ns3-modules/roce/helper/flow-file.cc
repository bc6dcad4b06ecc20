#include "flow-file.h"

#include "util/decimal.h"
#include "util/time.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>
#include <string_view>

#include "hpcc-config.h"
#include "util/text-lines.h"

namespace mlnet::roce {

uint64_t referenceStartNs(double seconds) {
    if (!(seconds > 0)) {
        return 0;
    }
    // seconds = mantissa * 2^exponent exactly; the product with 1e9 fits in 128 bits, so the floor is exact.
    int exponent = 0;
    const double fraction = std::frexp(seconds, &exponent);
    const auto mantissa = static_cast<Uint128>(std::ldexp(fraction, 53));
    const Uint128 product = mantissa * 1'000'000'000u;
    const int shift = exponent - 53;
    if (shift >= 0) {
        return UINT64_MAX;  // 2^52 s and more: no start the reader accepts
    }
    return -shift >= 128 ? 0 : static_cast<uint64_t>(product >> -shift);
}

std::vector<FlowSpec> loadFlowFile(const std::string& path, const TopologySpec& topology, Diagnostics& diag,
                                   bool referenceStarts) {
    std::vector<bool> isHost(topology.numVertices() ? topology.vertices.back().originalId + 1 : 0, false);
    for (const SpecVertex& v : topology.vertices) {
        isHost.resize(std::max<std::size_t>(isHost.size(), v.originalId + 1), false);
        isHost[v.originalId] = v.kind == VertexKind::Host;
    }
    std::string text;
    if (!readTextFile(path, text, diag, "HPCC flow file")) {
        return {};
    }
    const std::vector<TextLine> lines = tokenizeLines(text);
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
        const TextLine& line = lines[f + 1];
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
        } else if (referenceStarts) {
            startNs = referenceStartNs(std::strtod(std::string(t[5]).c_str(), nullptr));
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
                         static_cast<uint8_t>(pg), static_cast<uint16_t>(dport), size, startNs, line.number});
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

std::string formatFlowFile(const std::vector<FlowSpec>& flows) {
    std::string text = std::to_string(flows.size()) + "\n";
    char line[128];
    for (const FlowSpec& f : flows) {
        const int n = std::snprintf(line, sizeof line, "%u %u %u %u %" PRIu64 " %" PRIu64 ".%09" PRIu64 "\n",
                                    f.srcNode, f.dstNode, unsigned{f.priority}, unsigned{f.dport},
                                    f.sizeBytes, f.startNs / 1'000'000'000, f.startNs % 1'000'000'000);
        text.append(line, static_cast<std::size_t>(n));
    }
    return text;
}

}  // namespace mlnet::roce
