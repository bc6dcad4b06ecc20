#include "hpcc-config.h"
#include "util/json-section.h"
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
#include <stdexcept>
#include <utility>
#include <vector>

#include "hpcc-config-reader.h"

namespace mlnet::roce {

namespace config_detail {

void Builder::apply(const Entry& entry) {
    m_entry = &entry;
    const KeySpec* spec = findKey(entry.key);
    const CcKey* ccKey = spec ? nullptr : findCcKey(entry.key);
    if (!spec && !ccKey) {
        m_diag.error(
            atLine(m_path, entry.line) + ": unknown key '" + entry.key + "'" +
            (m_diag.keepsNextError() ? suggestion(entry.key) : std::string()) +
            "; expected a config.txt key of the HPCC reference simulator (mlnet-flows --cc-parameters lists "
            "the congestion-control ones), one key and its values per line");
        return;
    }
    auto [it, inserted] = m_config.givenKeys.emplace(entry.key, entry.line);
    if (!inserted) {
        fail("appears more than once (first " +
             (it->second > 0 ? "at line " + std::to_string(it->second) : std::string("occurrence")) +
             "); expected each key once");
        return;
    }
    if (spec) {
        spec->handle(*this, m_config);
    } else {
        readCcKey(*this, *ccKey, m_config);
    }
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
    for (const CcKey& k : ccKeys()) {
        const bool used = (mode == kCcModeDcqcn && k.dcqcn) || (mode == kCcModeDctcp && k.dctcp) ||
                          (mode == kCcModeTimely && k.timely) ||
                          ((mode == kCcModeHpcc || mode == kCcModeHpccPint) && k.hpcc);
        if (k.whenAbsent) {
            absent(k.key, used, k.whenAbsent);
        }
    }
    absent("L2_ACK_INTERVAL", true,
           "using 1 (an ACK per packet); the reference driver's default 0 never completes a flow");
}

}  // namespace config_detail

namespace {

using namespace config_detail;
namespace fs = std::filesystem;

std::string formatRate(uint64_t bps) {
    return std::to_string(bps) + " b/s";
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
    entry.jsonBoolean = value.is_boolean();
    entry.jsonNumber = value.is_number();
    std::string token;
    if (value.is_object()) {
        if (!multi || key == "LINK_DOWN") {
            return bad(
                "an object is only accepted for KMAX_MAP, KMIN_MAP and PMAX_MAP ({\"<rate>\": value})");
        }
        entry.tokens.push_back(std::to_string(value.size()));
        for (auto& [rate, v] : value.items()) {
            if (!jsonToken(v, token) || v.is_string() || v.is_boolean()) {
                return bad("rate '" + rate + "' maps to " + briefJson(v) + "; expected a number");
            }
            entry.tokens.push_back(rate);
            entry.tokens.push_back(token);
        }
    } else if (value.is_array()) {
        for (const nlohmann::json& v : value) {
            if (!jsonToken(v, token)) {
                return bad("array element " + briefJson(v) +
                           " is not a number or string; expected a flat list");
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

std::string locateConfigInput(const HpccConfig& config, const char* key, const std::string& file,
                              Diagnostics& diag) {
    std::error_code ec;
    if (file.empty() || fs::path(file).is_absolute() || fs::exists(file, ec)) {
        return file;
    }
    const fs::path besideConfig = fs::path(config.path).parent_path() / file;
    if (fs::exists(besideConfig, ec)) {
        return besideConfig.lexically_normal().string();
    }
    const auto line = config.givenKeys.find(key);
    diag.error(atLine(config.path, line != config.givenKeys.end() ? line->second : 0) + ": key '" + key +
               "': '" + file + "' exists neither in the working directory (" + fs::current_path(ec).string() +
               ") nor beside the configuration (" + besideConfig.parent_path().lexically_normal().string() +
               ")");
    return "";
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
        if ((findKey(key) || findCcKey(key)) && !jsonEntry(path, key, value, entry, diag)) {
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

void checkConfigAgainstTopology(const HpccConfig& config, const TopologySpec& topology, Diagnostics& diag,
                                const std::vector<std::string>& unmarkedTiers) {
    auto keyAt = [&](const char* key) {
        const auto it = config.givenKeys.find(key);
        return it != config.givenKeys.end() ? atLine(config.path, it->second) + ": key '" + key + "'"
                                            : config.path + ": key '" + key + "' (absent)";
    };
    if (config.ecnEnabled) {
        // Only switch egress ports mark; a rate is needed once, with the first cable that uses it.
        // Switches mark at egress, and so do NPUs that forward; a rate is needed once, with the first cable.
        std::map<uint64_t, int> rates;
        auto marks = [&](uint32_t vertex) {
            return topology.isSwitch(vertex) && std::find(unmarkedTiers.begin(), unmarkedTiers.end(),
                                                          topology.tierName(vertex)) == unmarkedTiers.end();
        };
        for (const SpecCable& cable : topology.cables) {
            if (topology.hostsForward() || marks(cable.a) || marks(cable.b)) {
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
