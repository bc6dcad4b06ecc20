// The keys config.txt accepts (the reference driver's, with their defaults and value forms) and the
// congestion-control keys with the parameters they set.
#include <cctype>
#include <sstream>
#include <stdexcept>

#include "hpcc-config-reader.h"
#include "util/json-section.h"

namespace mlnet::roce {

namespace config_detail {

namespace {

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

// Every accepted key, in the order the reference's scratch/third.cc reads them.
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
         // The reference runs every other mode as no congestion control; only the two modes that mean it on
         // purpose are taken as such (0, and 12: astra-network-ns3's shipped default), so a typo is an error.
         static const std::string kModes = "1 DCQCN, 3 HPCC, 7 TIMELY, 8 DCTCP, 10 HPCC-PINT, 0 or 12 none";
         uint32_t mode = 0;
         if (!b.u32(mode, 0, INT32_MAX, kModes)) {
             return;
         }
         if (mode != 0 && mode != kCcModeNone && mode != kCcModeDcqcn && mode != kCcModeHpcc &&
             mode != kCcModeTimely && mode != kCcModeDctcp && mode != kCcModeHpccPint) {
             b.fail(std::to_string(mode) + " is no congestion-control mode; expected " + kModes);
             return;
         }
         c.ccMode = static_cast<int>(mode);
     }},
    // window
    {"HAS_WIN", false, [](Builder& b, HpccConfig& c) { b.flag(c.hasWindow); }},
    {"GLOBAL_T", false, [](Builder& b, HpccConfig& c) { b.flag(c.globalT); }},
    {"VAR_WIN", false, [](Builder& b, HpccConfig& c) { b.flag(c.varWindow); }},
    // HPCC-PINT
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

}  // namespace

const KeySpec* findKey(const std::string& key) {
    for (const KeySpec& spec : kKeys) {
        if (key == spec.key) {
            return &spec;
        }
    }
    return nullptr;
}

const CcKey* findCcKey(const std::string& key) {
    for (const CcKey& k : ccKeys()) {
        if (key == k.key) {
            return &k;
        }
    }
    return nullptr;
}

// "cc-mode" and "Rate_Ai" are the same key written in another style; other near misses are likely typos.
std::string suggestion(const std::string& key) {
    std::string normalized = key;
    for (char& c : normalized) {
        c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    std::vector<std::string> known;
    for (const KeySpec& spec : kKeys) {
        known.emplace_back(spec.key);
    }
    for (const CcKey& k : ccKeys()) {
        known.emplace_back(k.key);
    }
    const std::string best = nearestKey(normalized, known);
    return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

void readCcKey(Builder& b, const CcKey& k, HpccConfig& c) {
    bool ok = false;
    double value = 0;
    switch (k.form) {
        case CcKeyForm::Microseconds: {
            uint64_t ns = 0;
            ok = b.duration(3, "µs", false, ns);
            value = static_cast<double>(ns);
            break;
        }
        case CcKeyForm::Rate: {
            uint64_t bps = 0;
            ok = b.rate(bps);
            value = static_cast<double>(bps);
            break;
        }
        case CcKeyForm::Real:
            ok = b.real(
                k.range, [&k](double v) { return v > k.min && v <= k.max; }, value);
            break;
        case CcKeyForm::Count: {
            uint32_t n = 0;
            ok = b.u32(n, static_cast<uint32_t>(k.min), static_cast<uint32_t>(k.max), k.range);
            value = n;
            break;
        }
        case CcKeyForm::Flag: {
            bool on = false;
            ok = b.flag(on);
            value = on ? 1 : 0;
            break;
        }
    }
    if (ok) {
        c.ccGiven[k.key] = value;
    }
}

}  // namespace config_detail

using namespace config_detail;

// The reference driver's defaults, except where they are broken or missing (then the RdmaHw attribute
// default, and Builder::finish warns when the key is absent).
const std::vector<CcKey>& ccKeys() {
    using F = CcKeyForm;
    static const std::vector<CcKey> keys = {
        {"ALPHA_RESUME_INTERVAL", F::Microseconds, 55'000, 0, 0, "", "AlphaInterval", nullptr, nullptr,
         nullptr},
        {"RATE_DECREASE_INTERVAL", F::Microseconds, 4'000, 0, 0, "", "DecreaseInterval", nullptr, nullptr,
         nullptr},
        {"RP_TIMER", F::Microseconds, 1'500'000, 0, 0, "", "IncreaseInterval", nullptr, nullptr, nullptr,
         "using the RdmaHw attribute default 1500 µs (the reference driver uses 0, a zero-delay timer loop)"},
        {"EWMA_GAIN", F::Real, 1.0 / 16, 0, 1, "a gain in (0, 1]; 0 would freeze alpha", "G", "G", nullptr,
         nullptr,
         "using the RdmaHw attribute default 1/16 (the reference driver's `1 / 16` is 0, which freezes "
         "alpha)"},
        {"FAST_RECOVERY_TIMES", F::Count, 5, 0, UINT32_MAX, "a step count >= 0", "FastRecoverySteps", nullptr,
         nullptr, nullptr},
        {"CLAMP_TARGET_RATE", F::Flag, 0, 0, 1, "", "ClampTargetRate", nullptr, nullptr, nullptr},
        {"RATE_AI", F::Rate, 5'000'000, 0, 0, "", "AdditiveIncrease", nullptr, "RateAi", "RateAi",
         "using the RdmaHw attribute default 5Mb/s (the reference driver has no default and aborts)"},
        {"RATE_HAI", F::Rate, 50'000'000, 0, 0, "", "HyperIncrease", nullptr, "RateHai", nullptr,
         "using the RdmaHw attribute default 50Mb/s (the reference driver has no default and aborts)"},
        {"MIN_RATE", F::Rate, 100'000'000, 0, 0, "", "MinRate", "MinRate", "MinRate", "MinRate"},
        {"DCTCP_RATE_AI", F::Rate, 1'000'000'000, 0, 0, "", nullptr, "RateAi", nullptr, nullptr},
        {"U_TARGET", F::Real, 0.95, 0, 1, "a target utilization in (0, 1]", nullptr, nullptr, nullptr,
         "TargetUtil"},
        {"MI_THRESH", F::Count, 5, 0, UINT32_MAX, "a stage count >= 0", nullptr, nullptr, nullptr,
         "MaxStage"},
        {"FAST_REACT", F::Flag, 1, 0, 1, "", nullptr, nullptr, nullptr, "FastReact"},
        {"MULTI_RATE", F::Flag, 1, 0, 1, "", nullptr, nullptr, nullptr, "MultiRate"},
        {"SAMPLE_FEEDBACK", F::Flag, 0, 0, 1, "", nullptr, nullptr, nullptr, "SampleFeedback"},
    };
    return keys;
}

double HpccConfig::ccValue(const std::string& key) const {
    const auto given = ccGiven.find(key);
    if (given != ccGiven.end()) {
        return given->second;
    }
    const CcKey* k = findCcKey(key);
    if (!k) {
        throw std::out_of_range("HpccConfig::ccValue: '" + key + "' is not a congestion-control key");
    }
    return k->referenceDefault;
}

std::string describeCcKeys() {
    auto form = [](CcKeyForm f) {
        switch (f) {
            case CcKeyForm::Microseconds:
                return "µs";
            case CcKeyForm::Rate:
                return "rate (e.g. 20Mb/s)";
            case CcKeyForm::Real:
                return "number";
            case CcKeyForm::Count:
                return "count";
            case CcKeyForm::Flag:
                return "0 or 1";
        }
        return "";
    };
    auto name = [](const char* p) { return p ? "`" + std::string(p) + "`" : std::string("-"); };
    std::ostringstream out;
    out.precision(12);
    out << "| config.txt key | in the file | when absent | DCQCN | DCTCP | TIMELY | HPCC |\n"
           "|---|---|---|---|---|---|---|\n";
    for (const CcKey& k : ccKeys()) {
        out << "| `" << k.key << "` | " << form(k.form) << " | " << k.referenceDefault
            << (k.form == CcKeyForm::Microseconds ? " ns"
                : k.form == CcKeyForm::Rate       ? " b/s"
                                                  : "")
            << " | " << name(k.dcqcn) << " | " << name(k.dctcp) << " | " << name(k.timely) << " | "
            << name(k.hpcc) << " |\n";
    }
    return out.str();
}

}  // namespace mlnet::roce
