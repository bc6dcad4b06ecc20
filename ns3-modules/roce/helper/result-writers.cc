#include "result-writers.h"

#include "util/hpcc-address.h"

#include "util/atomic-file.h"
#include "util/time.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
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

namespace {

// Fields as the reference's printf formats write them: unsigned decimals, and addresses as %08x.
char* decimal(char* out, uint64_t v) {
    return std::to_chars(out, out + 20, v).ptr;
}
char* hex8(char* out, uint32_t v) {
    static constexpr char kDigits[] = "0123456789abcdef";
    for (int i = 7; i >= 0; --i) {
        out[i] = kDigits[v & 0xf];
        v >>= 4;
    }
    return out + 8;
}
std::size_t finish(char* begin, char* end) {
    *end++ = '\n';
    return static_cast<std::size_t>(end - begin);
}

}  // namespace

std::size_t writeFctLine(const FctRecord& r, char* out) {
    char* p = hex8(out, hpccIpv4(r.srcNode));
    *p++ = ' ';
    p = hex8(p, hpccIpv4(r.dstNode));
    for (const uint64_t v :
         {uint64_t{r.sport}, uint64_t{r.dport}, r.sizeBytes, r.startNs, r.fctNs, r.idealFctNs}) {
        *p++ = ' ';
        p = decimal(p, v);
    }
    return finish(out, p);
}

std::size_t writePfcLine(const PfcRecord& r, char* out) {
    char* p = decimal(out, r.timeNs);
    for (const uint64_t v :
         {uint64_t{r.nodeId}, uint64_t{r.nodeType}, uint64_t{r.ifIndex}, uint64_t{r.pause}}) {
        *p++ = ' ';
        p = decimal(p, v);
    }
    return finish(out, p);
}

std::size_t writeQueueSampleLine(const QueueSampleRecord& r, char* out) {
    char* p = decimal(out, r.timeNs);
    for (const uint64_t v : {uint64_t{r.nodeId}, uint64_t{r.port}, r.bytes}) {
        *p++ = ' ';
        p = decimal(p, v);
    }
    return finish(out, p);
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

bool writeJsonAtomically(const std::string& path, std::string jsonText, Diagnostics& diag) {
    if (!nlohmann::json::accept(jsonText)) {
        diag.error(path + ": the summary to write is not valid JSON; nothing was written");
        return false;
    }
    if (jsonText.empty() || jsonText.back() != '\n') {
        jsonText += '\n';  // in place: a summary may be hundreds of MB
    }
    return writeFileAtomically(path, jsonText, diag);
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
