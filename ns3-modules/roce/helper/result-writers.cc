#include "result-writers.h"

#include "util/hpcc-address.h"

#include "util/atomic-file.h"
#include "util/time.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <string_view>

namespace mlnet::roce {

namespace {

using U128 = Uint128;
constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();

uint64_t saturate(U128 v) {
    return v > kU64Max ? kU64Max : static_cast<uint64_t>(v);
}

}  // namespace

std::string formatFctLine(const FctRecord& r) {
    char line[192];
    const int n =
        std::snprintf(line, sizeof line, "%08x %08x %u %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                      hpccIpv4(r.srcNode), hpccIpv4(r.dstNode), unsigned{r.sport}, unsigned{r.dport},
                      r.sizeBytes, r.startNs, r.fctNs, r.idealFctNs);
    return std::string(line, static_cast<std::size_t>(n));
}

std::string formatPfcLine(const PfcRecord& r) {
    char line[96];
    const int n = std::snprintf(line, sizeof line, "%" PRIu64 " %u %u %u %u\n", r.timeNs, r.nodeId,
                                unsigned{r.nodeType}, r.ifIndex, r.pause ? 1u : 0u);
    return std::string(line, static_cast<std::size_t>(n));
}

std::string formatQueueSampleLine(const QueueSampleRecord& r) {
    char line[96];
    const int n = std::snprintf(line, sizeof line, "%" PRIu64 " %u %u %" PRIu64 "\n", r.timeNs, r.nodeId,
                                r.port, r.bytes);
    return std::string(line, static_cast<std::size_t>(n));
}

void LineStream::add(std::string_view line) {
    m_buffer += line;
    ++m_lines;
    if (m_buffer.size() >= (1u << 20)) {
        m_file.write(m_buffer);  // a failure is remembered and reported by commit()
        m_buffer.clear();
    }
}

bool LineStream::commit() {
    const bool ok = m_file.write(m_buffer) && m_file.commit();
    m_buffer.clear();
    return ok;
}

bool writeJsonAtomically(const std::string& path, const std::string& jsonText, Diagnostics& diag) {
    if (!nlohmann::json::accept(jsonText)) {
        diag.error(path + ": the summary to write is not valid JSON; nothing was written");
        return false;
    }
    if (!jsonText.empty() && jsonText.back() == '\n') {
        return writeFileAtomically(path, jsonText, diag);
    }
    return writeFileAtomically(path, jsonText + "\n", diag);
}

uint64_t bottleneckRateBps(const std::vector<PathHop>& path) {
    if (path.empty()) {
        return 0;
    }
    uint64_t slowest = kU64Max;
    for (const PathHop& hop : path) {
        slowest = std::min(slowest, hop.rateBps);
    }
    return slowest;
}

uint64_t baseRttNs(const std::vector<PathHop>& path, uint64_t frameBytes) {
    U128 total = 0;
    for (const PathHop& hop : path) {
        if (hop.rateBps == 0) {
            return kU64Max;
        }
        total += U128{hop.delayNs} * 2 + U128{frameBytes} * 8 * 1'000'000'000u / hop.rateBps;
    }
    return saturate(total);
}

uint64_t idealFctNs(uint64_t sizeBytes, uint64_t baseRttNs, uint64_t bottleneckRateBps,
                    uint32_t payloadBytesPerPacket, uint32_t overheadBytesPerPacket) {
    if (bottleneckRateBps == 0 || payloadBytesPerPacket == 0) {
        return kU64Max;
    }
    const uint64_t packets =
        sizeBytes / payloadBytesPerPacket + (sizeBytes % payloadBytesPerPacket != 0 ? 1 : 0);
    const U128 wireBytes = U128{sizeBytes} + U128{packets} * overheadBytesPerPacket;
    return saturate(U128{baseRttNs} + wireBytes * 8 * 1'000'000'000u / bottleneckRateBps);
}

}  // namespace mlnet::roce
