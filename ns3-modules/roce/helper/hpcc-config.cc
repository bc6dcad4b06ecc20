#include "hpcc-config.h"
#include "util/json-text.h"
#include "util/units.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

namespace mlnet::roce {

namespace {

namespace fs = std::filesystem;

std::string formatRate(uint64_t bps) {
    return std::to_string(bps) + " b/s";
}

// One key of either form, reduced to the tokens a config.txt line would hold.
struct Entry {
    std::string key;
    int line = 0;
    std::vector<std::string> tokens;
};

class Builder;
using Handler = void (*)(Builder&, HpccConfig&);

struct KeySpec {
    const char* key;
    bool multiValue;  // JSON strings of these keys are split at spaces like a config.txt line
    Handler handle;
};

class Builder {
public:
    Builder(const std::string& path, HpccConfig& config, Diagnostics& diag)
        : m_path(path), m_config(config), m_diag(diag) {}

    void apply(const Entry& entry);
    void finish();

    // --- readers of the current entry's values; each reports its own error and returns false on failure.

    bool values(std::size_t count, const std::string& form) {
        const std::size_t found = m_entry->tokens.size();
        if (found == count) {
            return true;
        }
        fail(found == 0 ? "missing value; expected " + form
                        : "expected " + form + ", found " + std::to_string(found) + " values");
        return false;
    }

    bool path(std::string& out) {
        if (!values(1, "one value (a file path)")) {
            return false;
        }
        out = m_entry->tokens[0];
        return true;
    }

    bool flag(bool& out) {
        uint64_t v = 0;
        if (!values(1, "one value (0 or 1)") || !integerAt(0, "0 or 1", 0, 1, v)) {
            return false;
        }
        out = v != 0;
        return true;
    }

    bool u32(uint32_t& out, uint32_t lo, uint32_t hi, const std::string& expected) {
        uint64_t v = 0;
        if (!values(1, "one value (" + expected + ")") || !integerAt(0, expected, lo, hi, v)) {
            return false;
        }
        out = static_cast<uint32_t>(v);
        return true;
    }

    bool integerAt(std::size_t i, const std::string& expected, uint64_t lo, uint64_t hi, uint64_t& out) {
        uint64_t v = 0;
        const NumberStatus status = parseUnsignedInteger(m_entry->tokens[i], v);
        if (status != NumberStatus::Ok) {
            return badValue(i, describeNumberStatus(status), expected);
        }
        if (v < lo || v > hi) {
            return badValue(i, "is out of range", expected);
        }
        out = v;
        return true;
    }

    // A real number; `valid` is the range check, `expected` says it in words.
    template <typename Valid>
    bool realAt(std::size_t i, const std::string& expected, Valid valid, double& out) {
        double v = 0;
        if (!parsePlainReal(m_entry->tokens[i], v)) {
            return badValue(i, "is not a number", expected);
        }
        if (v < 0 && !valid(v)) {
            return badValue(i, "is negative", expected);
        }
        if (!valid(v)) {
            return badValue(i, "is out of range", expected);
        }
        out = v;
        return true;
    }

    template <typename Valid>
    bool real(const std::string& expected, Valid valid, double& out) {
        return values(1, "one value (" + expected + ")") && realAt(0, expected, valid, out);
    }

    bool rateAt(std::size_t i, uint64_t& out) {
        static const std::string expected = "a rate > 0 such as 20Mb/s, 100Gbps or 100000000000 (b/s)";
        uint64_t v = 0;
        const NumberStatus status = parseDataRateBps(m_entry->tokens[i], v);
        if (status != NumberStatus::Ok) {
            return badValue(i, describeNumberStatus(status), expected);
        }
        if (v == 0) {
            return badValue(i, "is zero", expected);
        }
        out = v;
        return true;
    }

    bool rate(uint64_t& out) {
        return values(1, "one value (an ns-3 data rate such as 20Mb/s)") && rateAt(0, out);
    }

    // A decimal in `unit` scaled to an integer by 10^pow10; `finest` names the integer unit for messages.
    bool scaledAt(std::size_t i, int pow10, const std::string& unit, const char* finest, bool allowZero,
                  uint64_t& out) {
        const std::string expected =
            std::string(allowZero ? "a number >= 0" : "a number > 0") + " (" + unit +
            (pow10 > 0 ? std::string(", down to ") + finest + ")" : std::string(")"));
        uint64_t v = 0;
        const NumberStatus status = parseScaledDecimal(m_entry->tokens[i], pow10, false, v);
        if (status != NumberStatus::Ok) {
            return badValue(i,
                            status == NumberStatus::NotWhole ? std::string("is finer than ") + finest
                                                             : describeNumberStatus(status),
                            expected);
        }
        if (v == 0 && !allowZero) {
            return badValue(i, "is zero", expected);
        }
        out = v;
        return true;
    }

    // A time in `unit` converted to ns by 10^pow10 (9 for s, 3 for µs, 0 for ns).
    bool durationAt(std::size_t i, int pow10, const std::string& unit, bool allowZero, uint64_t& out) {
        return scaledAt(i, pow10, unit, "1 ns", allowZero, out);
    }

    // ECN thresholds: KB of 1000 B, as bytes.
    bool kilobytesAt(std::size_t i, uint64_t& out) {
        return scaledAt(i, 3, "KB of 1000 B", "1 byte", true, out);
    }

    bool duration(int pow10, const char* unit, bool allowZero, uint64_t& out) {
        return values(1, std::string("one value (") + unit + ")") &&
               durationAt(0, pow10, unit, allowZero, out);
    }

    // KMAX_MAP / KMIN_MAP / PMAX_MAP: "n rate1 v1 ... raten vn". Committed only when the whole line is valid.
    template <typename V, typename ReadValue>
    void rateMap(std::map<uint64_t, V>& out, const char* valueForm, ReadValue readValue) {
        const std::string form = std::string("'n rate1 ") + valueForm + "1 ... raten " + valueForm + "n'";
        const std::vector<std::string>& t = m_entry->tokens;
        uint64_t n = 0;
        if (t.empty()) {
            fail("missing value; expected " + form);
            return;
        }
        if (!integerAt(0, "a pair count >= 1, then the pairs: " + form, 1, 1u << 20, n)) {
            return;
        }
        if (t.size() != 1 + 2 * n) {
            fail("the count " + std::to_string(n) + " announces " + std::to_string(2 * n) +
                 " values after it, found " + std::to_string(t.size() - 1) + "; expected " + form);
            return;
        }
        std::map<uint64_t, V> result;
        bool ok = true;
        for (uint64_t p = 0; p < n; ++p) {
            uint64_t rateBps = 0;
            V value{};
            if (!rateAt(1 + 2 * p, rateBps) || !readValue(2 + 2 * p, value)) {
                ok = false;
                continue;
            }
            if (!result.emplace(rateBps, value).second) {
                badValue(1 + 2 * p, "repeats a rate", "each link rate once");
                ok = false;
            }
        }
        if (ok) {
            out = std::move(result);
        }
    }

    // Accepted on purpose without effect; warns with the reason.
    void ignored(const std::string& why) {
        m_diag.warning(atLine(m_path, m_entry->line) + ": key '" + m_entry->key + "' ignored: " + why);
    }

    bool fail(const std::string& what) {
        m_diag.error(atLine(m_path, m_entry->line) + ": key '" + m_entry->key + "': " + what);
        return false;
    }

    const Entry& entry() const { return *m_entry; }
    Diagnostics& diag() { return m_diag; }
    const std::string& file() const { return m_path; }

private:
    bool badValue(std::size_t i, const std::string& problem, const std::string& expected) {
        const std::string which =
            m_entry->tokens.size() > 1 ? "value " + std::to_string(i + 1) + " '" : std::string("value '");
        return fail(which + m_entry->tokens[i] + "' " + problem + "; expected " + expected);
    }

    const std::string& m_path;
    HpccConfig& m_config;
    Diagnostics& m_diag;
    const Entry* m_entry = nullptr;
};

const char* kTraceWhy = "the binary mix.tr trace is not produced";
const char* kSimAiWhy = "SimAI's monitor outputs are not produced";

bool oneToken(Builder& b) {
    return b.values(1, "one value");
}

void simAiMonitor(Builder& b, HpccConfig&) {
    if (oneToken(b)) {
        b.ignored(kSimAiWhy);
    }
}

// Every accepted key, in the order of roce-model.md §6.1.
const KeySpec kKeys[] = {
    // files
    {"TOPOLOGY_FILE", false, [](Builder& b, HpccConfig& c) { b.path(c.topologyFile); }},
    {"FLOW_FILE", false, [](Builder& b, HpccConfig& c) { b.path(c.flowFile); }},
    {"TRACE_FILE", false,
     [](Builder& b, HpccConfig&) {
         if (oneToken(b)) {
             b.ignored(std::string("it lists the nodes to trace, but ") + kTraceWhy);
         }
     }},
    {"TRACE_OUTPUT_FILE", false,
     [](Builder& b, HpccConfig&) {
         if (oneToken(b)) {
             b.ignored(kTraceWhy);
         }
     }},
    {"FCT_OUTPUT_FILE", false, [](Builder& b, HpccConfig& c) { b.path(c.fctOutputFile); }},
    {"PFC_OUTPUT_FILE", false, [](Builder& b, HpccConfig& c) { b.path(c.pfcOutputFile); }},
    {"QLEN_MON_FILE", false, [](Builder& b, HpccConfig& c) { b.path(c.qlenMonFile); }},
    {"QLEN_MON_START", false, [](Builder& b, HpccConfig& c) { b.duration(0, "ns", true, c.qlenMonStartNs); }},
    {"QLEN_MON_END", false, [](Builder& b, HpccConfig& c) { b.duration(0, "ns", true, c.qlenMonEndNs); }},
    {"QLEN_MON_INTERVAL", false,
     [](Builder& b, HpccConfig& c) { b.duration(0, "ns", false, c.qlenMonIntervalNs); }},
    // run
    {"SIMULATOR_STOP_TIME", false,
     [](Builder& b, HpccConfig& c) {
         // ASTRA-sim's ns-3 examples set 40000000000000 s to mean "no limit": beyond 64 bits of ns it is
         // none.
         uint64_t ns = 0;
         if (b.values(1, "one value (s)") &&
             parseScaledDecimal(b.entry().tokens[0], 9, true, ns) == NumberStatus::TooLarge) {
             c.stopTimeNs = UINT64_MAX;
             return;
         }
         b.duration(9, "s", false, c.stopTimeNs);
     }},
    {"ENABLE_TRACE", false,
     [](Builder& b, HpccConfig&) {
         bool on = false;
         if (b.flag(on) && on) {
             b.ignored(kTraceWhy);
         }
     }},
    {"ERROR_RATE_PER_LINK", false,
     [](Builder& b, HpccConfig& c) {
         b.real(
             "a loss probability in 0..1", [](double v) { return v >= 0 && v <= 1; }, c.errorRatePerLink);
     }},
    {"LINK_DOWN", true,
     [](Builder& b, HpccConfig& c) {
         uint64_t timeNs = 0, a = 0, bNode = 0;
         if (!b.values(3, "'<t µs after 2 s> <node a> <node b>' (0 0 0: no failure)") ||
             !b.durationAt(0, 3, "µs after 2 s", true, timeNs) ||
             !b.integerAt(1, "a node id", 0, UINT32_MAX, a) ||
             !b.integerAt(2, "a node id", 0, UINT32_MAX, bNode)) {
             return;
         }
         if (timeNs == 0) {
             if (a != 0 || bNode != 0) {
                 b.diag().warning(atLine(b.file(), b.entry().line) +
                                  ": key 'LINK_DOWN': time 0 means no link failure; nodes " +
                                  std::to_string(a) + " and " + std::to_string(bNode) + " are ignored");
             }
             c.linkDown.reset();
             return;
         }
         if (a == bNode) {
             b.fail("nodes a and b are both " + std::to_string(a) + "; expected the two ends of a link");
             return;
         }
         constexpr uint64_t kBaseNs = 2'000'000'000;
         if (timeNs > UINT64_MAX - kBaseNs) {
             b.fail("time " + b.entry().tokens[0] + " µs does not fit in 64 bits of ns");
             return;
         }
         c.linkDown =
             HpccConfig::LinkDown{kBaseNs + timeNs, static_cast<uint32_t>(a), static_cast<uint32_t>(bNode)};
     }},
    // packet / ACK
    {"PACKET_PAYLOAD_SIZE", false,
     [](Builder& b, HpccConfig& c) { b.u32(c.payloadBytes, 1, 9000, "payload bytes per packet, 1..9000"); }},
    {"L2_CHUNK_SIZE", false,
     [](Builder& b, HpccConfig& c) { b.u32(c.l2ChunkBytes, 0, UINT32_MAX, "bytes, 0 for no chunking"); }},
    {"L2_ACK_INTERVAL", false,
     [](Builder& b, HpccConfig& c) {
         b.u32(c.l2AckIntervalBytes, 1, UINT32_MAX,
               "bytes >= 1 (with 0 the reference never acknowledges, so flows never complete)");
     }},
    {"L2_BACK_TO_ZERO", false, [](Builder& b, HpccConfig& c) { b.flag(c.l2BackToZero); }},
    {"ACK_HIGH_PRIO", false, [](Builder& b, HpccConfig& c) { b.flag(c.ackHighPriority); }},
    {"PAUSE_TIME", false,
     [](Builder& b, HpccConfig& c) {
         // 0 would make every pause frame a resume frame.
         b.duration(3, "µs", false, c.pauseTimeNs);
     }},
    // switch
    {"ENABLE_QCN", false, [](Builder& b, HpccConfig& c) { b.flag(c.ecnEnabled); }},
    {"USE_DYNAMIC_PFC_THRESHOLD", false,
     [](Builder& b, HpccConfig&) {
         bool dynamic = true;
         if (b.flag(dynamic) && !dynamic) {
             b.ignored("it has no effect in the reference either; our PFC threshold is always dynamic");
         }
     }},
    {"BUFFER_SIZE", false,
     [](Builder& b, HpccConfig& c) {
         uint32_t mib = 0;
         if (b.u32(mib, 1, 1u << 20, "MiB per switch, 1..1048576")) {
             c.bufferBytes = uint64_t{mib} << 20;
         }
     }},
    {"KMAX_MAP", true,
     [](Builder& b, HpccConfig& c) {
         b.rateMap(c.kmaxBytesByRateBps, "kmax",
                   [&b](std::size_t i, uint64_t& v) { return b.kilobytesAt(i, v); });
     }},
    {"KMIN_MAP", true,
     [](Builder& b, HpccConfig& c) {
         b.rateMap(c.kminBytesByRateBps, "kmin",
                   [&b](std::size_t i, uint64_t& v) { return b.kilobytesAt(i, v); });
     }},
    {"PMAX_MAP", true,
     [](Builder& b, HpccConfig& c) {
         b.rateMap(c.pmaxByRateBps, "pmax", [&b](std::size_t i, double& v) {
             return b.realAt(
                 i, "a marking probability in 0..1", [](double p) { return p >= 0 && p <= 1; }, v);
         });
     }},
    // congestion control
    {"CC_MODE", false,
     [](Builder& b, HpccConfig& c) {
         uint32_t mode = 0;
         if (b.u32(mode, 0, INT32_MAX, "1 DCQCN, 3 HPCC, 7 TIMELY, 8 DCTCP, 10 HPCC-PINT, other: none")) {
             c.ccMode = static_cast<int>(mode);
         }
     }},
    // DCQCN
    {"ALPHA_RESUME_INTERVAL", false,
     [](Builder& b, HpccConfig& c) { b.duration(3, "µs", false, c.alphaResumeIntervalNs); }},
    {"RATE_DECREASE_INTERVAL", false,
     [](Builder& b, HpccConfig& c) { b.duration(3, "µs", false, c.rateDecreaseIntervalNs); }},
    {"RP_TIMER", false, [](Builder& b, HpccConfig& c) { b.duration(3, "µs", false, c.rpTimerNs); }},
    {"EWMA_GAIN", false,
     [](Builder& b, HpccConfig& c) {
         b.real(
             "a gain in (0, 1]; 0 would freeze alpha", [](double v) { return v > 0 && v <= 1; }, c.ewmaGain);
     }},
    {"FAST_RECOVERY_TIMES", false,
     [](Builder& b, HpccConfig& c) { b.u32(c.fastRecoveryTimes, 0, UINT32_MAX, "a step count >= 0"); }},
    {"CLAMP_TARGET_RATE", false, [](Builder& b, HpccConfig& c) { b.flag(c.clampTargetRate); }},
    {"RATE_AI", false, [](Builder& b, HpccConfig& c) { b.rate(c.rateAiBps); }},
    {"RATE_HAI", false, [](Builder& b, HpccConfig& c) { b.rate(c.rateHaiBps); }},
    {"MIN_RATE", false, [](Builder& b, HpccConfig& c) { b.rate(c.minRateBps); }},
    // window
    {"HAS_WIN", false, [](Builder& b, HpccConfig& c) { b.flag(c.hasWindow); }},
    {"GLOBAL_T", false, [](Builder& b, HpccConfig& c) { b.flag(c.globalT); }},
    {"VAR_WIN", false, [](Builder& b, HpccConfig& c) { b.flag(c.varWindow); }},
    // HPCC / HPCC-PINT
    {"U_TARGET", false,
     [](Builder& b, HpccConfig& c) {
         b.real(
             "a target utilization in (0, 1]", [](double v) { return v > 0 && v <= 1; }, c.uTarget);
     }},
    {"MI_THRESH", false,
     [](Builder& b, HpccConfig& c) { b.u32(c.miThresh, 0, UINT32_MAX, "a stage count >= 0"); }},
    {"FAST_REACT", false, [](Builder& b, HpccConfig& c) { b.flag(c.fastReact); }},
    {"MULTI_RATE", false, [](Builder& b, HpccConfig& c) { b.flag(c.multiRate); }},
    {"SAMPLE_FEEDBACK", false, [](Builder& b, HpccConfig& c) { b.flag(c.sampleFeedback); }},
    {"INT_MULTI", false,
     [](Builder& b, HpccConfig& c) { b.u32(c.intMulti, 1, UINT32_MAX, "a multiplier >= 1"); }},
    {"RATE_BOUND", false, [](Builder& b, HpccConfig& c) { b.flag(c.rateBound); }},
    {"PINT_LOG_BASE", false,
     [](Builder& b, HpccConfig& c) {
         b.real(
             "a logarithm base > 1", [](double v) { return v > 1; }, c.pintLogBase);
     }},
    {"PINT_PROB", false,
     [](Builder& b, HpccConfig& c) {
         b.real(
             "a sampling probability in (0, 1]", [](double v) { return v > 0 && v <= 1; }, c.pintProb);
     }},
    // DCTCP
    {"DCTCP_RATE_AI", false, [](Builder& b, HpccConfig& c) { b.rate(c.dctcpRateAiBps); }},
    // Read but unused by the reference.
    {"DATA_RATE", false,
     [](Builder& b, HpccConfig&) {
         if (oneToken(b)) {
             b.ignored("unused by the reference too; the topology file gives every link's rate");
         }
     }},
    {"LINK_DELAY", false,
     [](Builder& b, HpccConfig&) {
         if (oneToken(b)) {
             b.ignored("unused by the reference too; the topology file gives every link's delay");
         }
     }},
    // SimAI's monitors.
    {"BW_MON_FILE", false, simAiMonitor},
    {"RATE_MON_FILE", false, simAiMonitor},
    {"CNP_MON_FILE", false, simAiMonitor},
    {"MON_START", false, simAiMonitor},
    {"MON_END", false, simAiMonitor},
    {"QP_MON_INTERVAL", false, simAiMonitor},
    {"BW_MON_INTERVAL", false, simAiMonitor},
    // astra-network-ns3: changes the results, so it cannot be skipped quietly.
    {"NIC_TOTAL_PAUSE_TIME", false,
     [](Builder& b, HpccConfig&) {
         uint64_t times = 0;
         if (b.values(1, "one value") && b.integerAt(0, "a count", 0, UINT32_MAX, times) && times != 0) {
             b.fail(
                 "astra-network-ns3's NIC-generated PFC pauses are not modelled; set it to 0 or remove it");
         }
     }},
    // astra-network-ns3: headroom = factor x one-way bandwidth-delay product; ours is factor / 2 x the
    // two-way
    // product plus two frames, so its default 3 is our 1.5.
    {"HEADROOM_FACTOR", false,
     [](Builder& b, HpccConfig& c) {
         double factor = 0;
         if (b.real(
                 "a factor > 0", [](double v) { return v > 0 && v <= 1000; }, factor)) {
             c.headroomFactor = factor / 2;
         }
     }},
};

const KeySpec* findKey(const std::string& key) {
    for (const KeySpec& spec : kKeys) {
        if (key == spec.key) {
            return &spec;
        }
    }
    return nullptr;
}

std::size_t editDistance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

// "cc-mode" and "Rate_Ai" are the same key written in another style; other near misses are likely typos.
std::string suggestion(const std::string& key) {
    std::string normalized = key;
    for (char& c : normalized) {
        c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    const KeySpec* best = nullptr;
    std::size_t bestDistance = 3;  // only near misses are worth suggesting
    for (const KeySpec& spec : kKeys) {
        const std::size_t d = std::min(editDistance(key, spec.key), editDistance(normalized, spec.key));
        if (d < bestDistance) {
            bestDistance = d;
            best = &spec;
        }
    }
    return best ? " (did you mean '" + std::string(best->key) + "'?)" : "";
}

void Builder::apply(const Entry& entry) {
    m_entry = &entry;
    const KeySpec* spec = findKey(entry.key);
    if (!spec) {
        m_diag.error(
            atLine(m_path, entry.line) + ": unknown key '" + entry.key + "'" + suggestion(entry.key) +
            "; expected one of the config.txt keys of roce-model.md §6.1, one key and its values per "
            "line");
        return;
    }
    auto [it, inserted] = m_config.givenKeys.emplace(entry.key, entry.line);
    if (!inserted) {
        fail("appears more than once (first " +
             (it->second > 0 ? "at line " + std::to_string(it->second) : std::string("occurrence")) +
             "); expected each key once");
        return;
    }
    spec->handle(*this, m_config);
}

void Builder::finish() {
    const auto& given = m_config.givenKeys;
    if (m_config.qlenMonEndNs < m_config.qlenMonStartNs) {
        const auto end = given.find("QLEN_MON_END");
        m_diag.error(atLine(m_path, end != given.end() ? end->second : 0) + ": key 'QLEN_MON_END': " +
                     std::to_string(m_config.qlenMonEndNs) + " ns is before QLEN_MON_START " +
                     std::to_string(m_config.qlenMonStartNs) + " ns; expected END >= START");
    }
    // The reference driver's defaults for these are broken or missing; say which value replaces them.
    const int mode = m_config.ccMode;
    auto absent = [&](const char* key, bool used, const std::string& why) {
        if (used && !given.count(key)) {
            m_diag.warning(m_path + ": key '" + key + "' absent; " + why);
        }
    };
    const bool dcqcn = mode == kCcModeDcqcn;
    absent("RATE_AI", dcqcn || mode == kCcModeHpcc || mode == kCcModeHpccPint || mode == kCcModeTimely,
           "using the RdmaHw attribute default 5Mb/s (the reference driver has no default and aborts)");
    absent("RATE_HAI", dcqcn || mode == kCcModeTimely,
           "using the RdmaHw attribute default 50Mb/s (the reference driver has no default and aborts)");
    absent(
        "RP_TIMER", dcqcn,
        "using the RdmaHw attribute default 1500 µs (the reference driver uses 0, a zero-delay timer loop)");
    absent("EWMA_GAIN", dcqcn || mode == kCcModeDctcp,
           "using the RdmaHw attribute default 1/16 (the reference driver's `1 / 16` is 0, which freezes "
           "alpha)");
    absent("L2_ACK_INTERVAL", true,
           "using 1 (an ACK per packet); the reference driver's default 0 never completes a flow");
}

std::vector<Entry> readTextEntries(const std::string& text) {
    std::vector<Entry> entries;
    std::istringstream in(text);
    std::string raw;
    for (int number = 1; std::getline(in, raw); ++number) {
        std::istringstream words(raw);
        Entry entry;
        entry.line = number;
        if (!(words >> entry.key) || entry.key[0] == '#') {
            continue;
        }
        for (std::string w; words >> w;) {
            entry.tokens.push_back(std::move(w));
        }
        entries.push_back(std::move(entry));
    }
    return entries;
}

// A JSON scalar as the token config.txt would hold; false for null, objects and arrays.
bool jsonToken(const nlohmann::json& v, std::string& out) {
    if (v.is_boolean()) {
        out = v.get<bool>() ? "1" : "0";
    } else if (v.is_number_unsigned()) {
        out = std::to_string(v.get<uint64_t>());
    } else if (v.is_number_integer()) {
        out = std::to_string(v.get<int64_t>());
    } else if (v.is_number_float()) {
        const double d = v.get<double>();
        // 1e11 written as a float is still the integer rate 100000000000.
        out = std::abs(d) < 9.0e15 && d == std::floor(d) ? std::to_string(static_cast<int64_t>(d)) : v.dump();
    } else if (v.is_string()) {
        out = v.get<std::string>();
    } else {
        return false;
    }
    return true;
}

std::vector<std::string> splitWords(const std::string& text) {
    std::istringstream words(text);
    std::vector<std::string> out;
    for (std::string w; words >> w;) {
        out.push_back(std::move(w));
    }
    return out;
}

bool jsonEntry(const std::string& path, const std::string& key, const nlohmann::json& value, Entry& entry,
               Diagnostics& diag) {
    const KeySpec* spec = findKey(key);
    const bool multi = spec && spec->multiValue;
    auto bad = [&](const std::string& what) {
        diag.error(atLine(path, entry.line) + ": key '" + key + "': " + what);
        return false;
    };
    std::string token;
    if (value.is_object()) {
        if (!multi || key == "LINK_DOWN") {
            return bad(
                "an object is only accepted for KMAX_MAP, KMIN_MAP and PMAX_MAP ({\"<rate>\": value})");
        }
        entry.tokens.push_back(std::to_string(value.size()));
        for (auto& [rate, v] : value.items()) {
            if (!jsonToken(v, token) || v.is_string() || v.is_boolean()) {
                return bad("rate '" + rate + "' maps to " + v.dump() + "; expected a number");
            }
            entry.tokens.push_back(rate);
            entry.tokens.push_back(token);
        }
    } else if (value.is_array()) {
        for (const nlohmann::json& v : value) {
            if (!jsonToken(v, token)) {
                return bad("array element " + v.dump() + " is not a number or string; expected a flat list");
            }
            entry.tokens.push_back(token);
        }
    } else if (jsonToken(value, token)) {
        if (value.is_string() && multi) {
            entry.tokens = splitWords(token);
        } else if (!(value.is_string() && token.empty())) {
            entry.tokens.push_back(token);
        }
    } else {
        return bad("null; expected a number, a string, true/false or a list");
    }
    return true;
}

}  // namespace

std::string describeCcMode(int ccMode) {
    switch (ccMode) {
        case kCcModeDcqcn:
            return "DCQCN";
        case kCcModeHpcc:
            return "HPCC";
        case kCcModeTimely:
            return "TIMELY";
        case kCcModeDctcp:
            return "DCTCP";
        case kCcModeHpccPint:
            return "HPCC-PINT";
        default:
            return "none (line rate + window)";
    }
}

std::optional<HpccConfig::EcnThresholds> HpccConfig::ecnFor(uint64_t rateBps) const {
    const auto kmin = kminBytesByRateBps.find(rateBps);
    const auto kmax = kmaxBytesByRateBps.find(rateBps);
    const auto pmax = pmaxByRateBps.find(rateBps);
    if (kmin == kminBytesByRateBps.end() || kmax == kmaxBytesByRateBps.end() || pmax == pmaxByRateBps.end()) {
        return std::nullopt;
    }
    return EcnThresholds{kmin->second, kmax->second, pmax->second};
}

std::string resolvePath(const std::string& path, const std::string& dir) {
    if (path.empty() || fs::path(path).is_absolute()) {
        return path;
    }
    return (fs::path(dir) / path).lexically_normal().string();
}

void HpccConfig::resolveAgainst(const std::string& dir) {
    for (std::string* file : {&topologyFile, &flowFile, &fctOutputFile, &pfcOutputFile, &qlenMonFile}) {
        *file = resolvePath(*file, dir);
    }
}

HpccConfig loadHpccConfig(const std::string& path, Diagnostics& diag) {
    HpccConfig config;
    config.path = path;
    std::string text;
    if (!readTextFile(path, text, diag, "HPCC configuration (config.txt)")) {
        return config;
    }
    Builder builder(path, config, diag);
    for (const Entry& entry : readTextEntries(text)) {
        builder.apply(entry);
    }
    builder.finish();
    return config;
}

HpccConfig hpccConfigFromJson(const nlohmann::json& doc, const std::string& path, const std::string& text,
                              Diagnostics& diag) {
    HpccConfig config;
    config.path = path;
    Builder builder(path, config, diag);
    for (auto& [key, value] : doc.items()) {
        Entry entry;
        entry.key = key;
        entry.line = lineOfJsonKey(text, key);
        if (findKey(key) && !jsonEntry(path, key, value, entry, diag)) {
            continue;
        }
        builder.apply(entry);
    }
    builder.finish();
    return config;
}

HpccConfig loadJsonConfig(const std::string& path, Diagnostics& diag) {
    HpccConfig config;
    config.path = path;
    std::string text;
    if (!readTextFile(path, text, diag, "HPCC configuration (JSON)")) {
        return config;
    }
    nlohmann::json doc;
    if (!parseJsonObject(text, path, "a JSON object whose keys are config.txt keys, e.g. {\"CC_MODE\": 1}",
                         doc, diag)) {
        return config;
    }
    return hpccConfigFromJson(doc, path, text, diag);
}

void requireFlowInputs(const HpccConfig& config, Diagnostics& diag) {
    if (config.topologyFile.empty()) {
        diag.error(config.path + ": missing key 'TOPOLOGY_FILE'; expected the path of an HPCC topology file");
    }
    if (config.flowFile.empty()) {
        diag.error(config.path + ": missing key 'FLOW_FILE'; expected the path of an HPCC flow file");
    }
}

void checkConfigAgainstTopology(const HpccConfig& config, const TopologySpec& topology, Diagnostics& diag) {
    auto keyAt = [&](const char* key) {
        const auto it = config.givenKeys.find(key);
        return it != config.givenKeys.end() ? atLine(config.path, it->second) + ": key '" + key + "'"
                                            : config.path + ": key '" + key + "' (absent)";
    };
    if (config.ecnEnabled) {
        // Only switch egress ports mark; a rate is needed once, with the first cable that uses it.
        // Switches mark at egress, and so do NPUs that forward; a rate is needed once, with the first cable.
        std::map<uint64_t, int> rates;
        for (const SpecCable& cable : topology.cables) {
            if (topology.hostsForward() || topology.isSwitch(cable.a) || topology.isSwitch(cable.b)) {
                rates.emplace(cable.rateBps, cable.line);
            }
        }
        for (const auto& [rateBps, line] : rates) {
            const std::string where = " (" + atLine(topology.source, line) + ")";
            if (!config.kmaxBytesByRateBps.count(rateBps)) {
                diag.error(keyAt("KMAX_MAP") + ": no entry for the switch link rate " + formatRate(rateBps) +
                           where + "; expected one entry per link speed (or ENABLE_QCN 0)");
            }
            if (!config.kminBytesByRateBps.count(rateBps)) {
                diag.error(keyAt("KMIN_MAP") + ": no entry for the switch link rate " + formatRate(rateBps) +
                           where + "; expected one entry per link speed (or ENABLE_QCN 0)");
            }
            if (!config.pmaxByRateBps.count(rateBps)) {
                diag.error(keyAt("PMAX_MAP") + ": no entry for the switch link rate " + formatRate(rateBps) +
                           where + "; expected one entry per link speed (or ENABLE_QCN 0)");
            }
        }
    }
    for (const auto& [rateBps, kminBytes] : config.kminBytesByRateBps) {
        const auto kmax = config.kmaxBytesByRateBps.find(rateBps);
        if (kmax != config.kmaxBytesByRateBps.end() && kminBytes > kmax->second) {
            diag.error(keyAt("KMIN_MAP") + ": Kmin " + std::to_string(kminBytes) + " B exceeds Kmax " +
                       std::to_string(kmax->second) + " B for rate " + formatRate(rateBps) +
                       "; expected Kmin <= Kmax");
        }
    }
    if (config.linkDown) {
        const uint32_t a = config.linkDown->nodeA, b = config.linkDown->nodeB;
        const bool linked =
            std::any_of(topology.cables.begin(), topology.cables.end(), [&](const SpecCable& c) {
                const uint32_t ca = topology.vertices[c.a].originalId, cb = topology.vertices[c.b].originalId;
                return (ca == a && cb == b) || (ca == b && cb == a);
            });
        if (!linked) {
            diag.error(keyAt("LINK_DOWN") + ": nodes " + std::to_string(a) + " and " + std::to_string(b) +
                       " are not linked in " + topology.source + "; expected the two ends of a link");
        }
    }
}

}  // namespace mlnet::roce
