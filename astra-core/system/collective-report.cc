#include "collective-report.h"

#include <charconv>
#include <cstdio>
#include <string>
#include <string_view>

namespace mlnet {

namespace {

// Stands for the rows in a report until dumpReport; no value prints as this (nlohmann escapes the control
// characters).
constexpr char kPlaceholder[] = "\x01collectives\x01";

void appendUnsigned(std::string& out, uint64_t v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof(buf), v);
    out.append(buf, r.ptr);
}

// nlohmann's escaping (ensure_ascii off): quotes, backslashes and control characters.
void appendString(std::string& out, std::string_view s) {
    out += '"';
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof(buf), "\\u%04x", c);
                    out += buf;
                } else {
                    out += ch;
                }
        }
    }
    out += '"';
}

void appendKey(std::string& out, unsigned depth, const char* key) {
    out.append(depth, ' ');
    out += '"';
    out += key;
    out += "\": ";
}

void appendNumberField(std::string& out, unsigned depth, const char* key, uint64_t v) {
    appendKey(out, depth, key);
    appendUnsigned(out, v);
    out += ",\n";
}

// The rows, each at `depth` levels of one-space indentation (exactly nlohmann's dump(1) of them).
void appendCollectivesJson(const std::vector<CollectiveRecord>& records, unsigned depth, std::string& out) {
    const unsigned d = depth + 1;  // the rows' fields
    for (std::size_t i = 0; i < records.size(); ++i) {
        const CollectiveRecord& c = records[i];
        out.append(depth, ' ');
        out += "{\n";
        appendNumberField(out, d, "rank", c.rank);
        appendNumberField(out, d, "node", c.nodeId);
        appendKey(out, d, "type");
        appendString(out, toString(c.type));
        out += ",\n";
        appendNumberField(out, d, "size_bytes", c.sizeBytes);
        appendNumberField(out, d, "communicator", c.group);
        appendNumberField(out, d, "chunks", c.chunks);
        appendNumberField(out, d, "start_ns", c.startNs);
        appendKey(out, d, "end_ns");
        c.finished ? appendUnsigned(out, c.endNs) : void(out += "null");
        out += ",\n";
        appendKey(out, d, "duration_ns");
        c.finished ? appendUnsigned(out, c.endNs - c.startNs) : void(out += "null");
        out += ",\n";
        appendKey(out, d, "bytes_sent_per_dim");
        if (c.bytesSentPerDim.empty()) {
            out += "[]";
        } else {
            out += "[\n";
            for (std::size_t k = 0; k < c.bytesSentPerDim.size(); ++k) {
                out.append(d + 1, ' ');
                appendUnsigned(out, c.bytesSentPerDim[k]);
                out += k + 1 < c.bytesSentPerDim.size() ? ",\n" : "\n";
            }
            out.append(d, ' ');
            out += ']';
        }
        if (!c.nccl.empty()) {
            out += ",\n";
            appendKey(out, d, "nccl");  // NCCL's algorithm/protocol and channels
            appendString(out, c.nccl);
        }
        out += '\n';
        out.append(depth, ' ');
        out += i + 1 < records.size() ? "},\n" : "}\n";
    }
}

}  // namespace

nlohmann::ordered_json collectivesPlaceholder() {
    return kPlaceholder;
}

std::string dumpReport(const nlohmann::ordered_json& report, const std::vector<CollectiveRecord>& records) {
    const std::string text = report.dump(1);
    const std::string printed = nlohmann::ordered_json(kPlaceholder).dump();
    const std::size_t at = text.find(printed);
    if (at == std::string::npos) {
        return text;
    }
    // The key's indentation: the rows go one level deeper, the closing bracket at its level.
    const std::size_t lineStart = text.rfind('\n', at) + 1;
    const unsigned depth = static_cast<unsigned>(text.find_first_not_of(' ', lineStart) - lineStart);
    std::string out;
    out.reserve(text.size() + records.size() * 320);
    out.append(text, 0, at);
    if (records.empty()) {
        out += "[]";
    } else {
        out += "[\n";
        appendCollectivesJson(records, depth + 1, out);
        out.append(depth, ' ');
        out += ']';
    }
    out.append(text, at + printed.size());
    return out;
}

void addInNetworkReduction(nlohmann::ordered_json& report, uint64_t reductions, uint64_t bytesIn,
                           uint64_t bytesOut) {
    if (reductions > 0 || bytesIn > 0) {
        report["in_network_reduction"] = {
            {"reductions", reductions}, {"bytes_in", bytesIn}, {"bytes_out", bytesOut}};
    }
}

}  // namespace mlnet
