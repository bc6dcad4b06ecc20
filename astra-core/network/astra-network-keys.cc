// The ASTRA-sim network keys of a network description and the older JSON forms (astra-network-keys.h): both
// formats are reduced to the same fields, then checked and built by one ConfigBuilder.
#include "network/astra-network-keys.h"

#include "network/hpcc-topology.h"
#include "network/topology-builders.h"
#include "network/topology.h"
#include "util/json-text.h"

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace mlnet::description_detail {

namespace {

namespace fs = std::filesystem;

// Both formats are reduced to these before validation, so YAML and JSON give the same checks and messages.
struct Item {
    std::string text;  // as written (a JSON number is dumped)
    double number = 0;
    bool isNumber = false;
    int line = 0;  // 1-based; 0 when the format does not tell (JSON)
};
struct Field {
    std::string key;
    int line = 0;
    bool isList = false;
    std::vector<Item> items;
};

bool parseNumber(const std::string& text, double& out) {
    if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) {
        return false;
    }
    char* end = nullptr;
    out = std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size() && std::isfinite(out);
}

bool readYaml(const std::string& path, const std::string& text, std::vector<Field>& fields,
              Diagnostics& diag) {
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::ParserException& e) {
        diag.error(atLine(path, e.mark.line + 1) + ": malformed YAML: " + e.msg);
        return false;
    } catch (const YAML::Exception& e) {
        diag.error(path + ": malformed YAML: " + e.what());
        return false;
    }
    if (!root.IsMap()) {
        diag.error(path + ": expected a YAML mapping with keys topology, npus_count, bandwidth and latency");
        return false;
    }
    bool ok = true;
    for (auto it = root.begin(); it != root.end(); ++it) {
        Field field;
        field.line = it->first.Mark().line + 1;
        if (!it->first.IsScalar()) {
            diag.error(atLine(path, field.line) + ": a key is not a plain name");
            ok = false;
            continue;
        }
        field.key = it->first.Scalar();
        const YAML::Node value = it->second;
        field.isList = value.IsSequence();
        std::vector<YAML::Node> nodes;
        if (field.isList) {
            for (const YAML::Node& element : value) {
                nodes.push_back(element);
            }
        } else {
            nodes.push_back(value);
        }
        for (const YAML::Node& node : nodes) {
            if (!node.IsScalar()) {
                diag.error(atLine(path, node.Mark().line + 1) + ": key '" + field.key +
                           "': expected a name or number (or a flat list of them)");
                ok = false;
                break;
            }
            Item item;
            item.text = node.Scalar();
            item.isNumber = parseNumber(item.text, item.number);
            item.line = node.Mark().line + 1;
            field.items.push_back(std::move(item));
        }
        fields.push_back(std::move(field));
    }
    return ok;
}

// The keys of `doc` except `skip` as Fields (ASTRA-sim's keys in JSON: names, numbers or flat lists of them).
bool fieldsFromJson(const nlohmann::json& doc, const std::string& path, const std::string& text,
                    const std::set<std::string>& skip, std::vector<Field>& fields, Diagnostics& diag) {
    using nlohmann::json;
    bool ok = true;
    for (auto& [key, value] : doc.items()) {
        if (skip.count(key)) {
            continue;
        }
        Field field;
        field.key = key;
        field.line = lineOfJsonKey(text, key);
        field.isList = value.is_array();
        for (const json& v : field.isList ? value : json::array({value})) {
            if (!v.is_number() && !v.is_string()) {
                diag.error(
                    atLine(path, field.line) + ": key '" + key + "': " + briefJson(v) +
                    " is neither a name nor a number; expected a name, a number or a flat list of them");
                ok = false;
                break;
            }
            Item item;
            item.isNumber = v.is_number();
            item.text = item.isNumber ? v.dump() : v.get<std::string>();
            item.number = item.isNumber ? v.get<double>() : 0.0;
            field.items.push_back(std::move(item));
        }
        fields.push_back(std::move(field));
    }
    return ok;
}

class ConfigBuilder {
public:
    ConfigBuilder(const std::string& path, const std::vector<Field>& fields, bool json, Diagnostics& diag)
        : m_path(path), m_fields(fields), m_json(json), m_diag(diag) {}

    std::shared_ptr<const TopologySpec> build() {
        if (!checkKeys()) {
            return nullptr;
        }
        if (const Field* file = find("topology-file")) {
            return buildFromFile(*file);
        }
        if (const Field* topology = find("topology");
            m_json && topology && topology->items.size() == 1 && topology->items[0].text == "FatTree") {
            return buildFatTree();
        }
        return buildDimensions();
    }

private:
    const Field* find(const std::string& key) const {
        for (const Field& f : m_fields) {
            if (f.key == key) {
                return &f;
            }
        }
        return nullptr;
    }

    void error(const Field& f, const std::string& what, int line = 0) {
        m_diag.error(atLine(m_path, line > 0 ? line : f.line) + ": key '" + f.key + "': " + what);
        m_ok = false;
    }

    static std::string entry(const Field& f, std::size_t i) {
        const Item& item = f.items[i];
        const std::string shown = item.isNumber ? item.text : "'" + item.text + "'";
        return (f.isList ? "entry " + std::to_string(i) : std::string("value")) + " " + shown;
    }

    bool checkKeys() {
        static const std::set<std::string> astraKeys = {"topology", "npus_count", "bandwidth", "latency"};
        static const std::set<std::string> jsonKeys = {"topology", "npus_count", "bandwidth",
                                                       "latency",  "k",          "topology-file"};
        const std::set<std::string>& allowed = m_json ? jsonKeys : astraKeys;
        std::set<std::string> seen;
        for (const Field& f : m_fields) {
            if (!allowed.count(f.key)) {
                m_diag.error(
                    atLine(m_path, f.line) + ": unknown key '" + f.key + "'; expected " +
                    (m_json ? "topology, npus_count, bandwidth, latency, k or topology-file"
                            : "topology, npus_count, bandwidth and latency only (ASTRA-sim network YAML)"));
                m_ok = false;
            } else if (!seen.insert(f.key).second) {
                m_diag.error(atLine(m_path, f.line) + ": key '" + f.key + "' appears more than once");
                m_ok = false;
            } else if (f.items.empty()) {
                error(f, "empty list; expected one entry per dimension");
            }
        }
        return m_ok;
    }

    bool require(std::initializer_list<const char*> keys) {
        for (const char* key : keys) {
            if (!find(key)) {
                m_diag.error(m_path + ": missing key '" + key + "'");
                m_ok = false;
            }
        }
        return m_ok;
    }

    void forbid(std::initializer_list<const char*> keys, const std::string& why) {
        for (const char* key : keys) {
            if (const Field* f = find(key)) {
                error(*f, why);
            }
        }
    }

    const Field* scalar(const char* key) {
        const Field* f = find(key);
        if (f && (f->isList || f->items.size() != 1)) {
            error(*f, "expected a single value");
            return nullptr;
        }
        return f;
    }

    // Number at entry i that satisfies `valid`, or nullopt after reporting what was expected.
    template <typename Valid>
    std::optional<double> number(const Field& f, std::size_t i, Valid valid, const char* expected) {
        const Item& item = f.items[i];
        if (!item.isNumber || !valid(item.number)) {
            error(f, entry(f, i) + "; expected " + expected, item.line);
            return std::nullopt;
        }
        return item.number;
    }

    static bool isNpuCount(double v) { return v > 1 && v <= INT32_MAX && v == std::floor(v); }
    // Physical ranges: 1 KB/s to 1 PB/s, and up to 1000 s per link; beyond them the times of a run no longer
    // fit the simulated clock.
    static bool isBandwidth(double v) { return v >= 1e-6 && v <= 1e6; }
    static bool isLatency(double v) { return v >= 0 && v <= 1e12; }

    std::shared_ptr<const TopologySpec> buildDimensions() {
        forbid({"k"}, "only valid with topology FatTree (JSON)");
        if (!m_ok || !require({"topology", "npus_count", "bandwidth", "latency"})) {
            return nullptr;
        }
        const Field& topology = *find("topology");
        const std::size_t dims = topology.items.size();
        for (const char* key : {"npus_count", "bandwidth", "latency"}) {
            const Field& f = *find(key);
            if (f.items.size() != dims) {
                error(f, std::to_string(f.items.size()) + " entries but 'topology' has " +
                             std::to_string(dims) + "; expected one entry per dimension");
            }
        }
        if (!m_ok) {
            return nullptr;
        }
        std::vector<Dimension> result(dims);
        for (std::size_t i = 0; i < dims; ++i) {
            const std::string& name = topology.items[i].text;
            if (!topology.items[i].isNumber && name == "Ring") {
                result[i].kind = DimensionKind::Ring;
            } else if (!topology.items[i].isNumber && name == "FullyConnected") {
                result[i].kind = DimensionKind::FullyConnected;
            } else if (!topology.items[i].isNumber && name == "Switch") {
                result[i].kind = DimensionKind::Switch;
            } else {
                error(topology,
                      entry(topology, i) + " is not a topology; expected Ring, FullyConnected or Switch" +
                          (m_json ? " (or FatTree alone)" : ""),
                      topology.items[i].line);
            }
            if (auto n = number(*find("npus_count"), i, isNpuCount, "an integer > 1")) {
                result[i].npus = static_cast<uint32_t>(*n);
            }
            if (auto bw = number(*find("bandwidth"), i, isBandwidth, "a number in 1e-06..1e+06 (GB/s)")) {
                result[i].bandwidthBytesPerNs = gigabytesPerSecondToBytesPerNs(*bw);
            }
            if (auto lat = number(*find("latency"), i, isLatency, "a number in 0..1e+12 (ns)")) {
                result[i].latencyNs = *lat;
            }
        }
        if (!m_ok) {
            return nullptr;
        }
        if (std::string why = Topology::checkDimensions(result); !why.empty()) {
            error(*find("npus_count"), why);
            return nullptr;
        }
        TopologySpec spec = buildMultiDimensional(result);
        spec.source = m_path;
        return std::make_shared<const TopologySpec>(std::move(spec));
    }

    std::shared_ptr<const TopologySpec> buildFatTree() {
        forbid({"npus_count"}, "not valid with topology FatTree; the size follows from k (k^3/4 hosts)");
        if (!m_ok || !require({"k", "bandwidth", "latency"})) {
            return nullptr;
        }
        const Field* k = scalar("k");
        const Field* bw = scalar("bandwidth");
        const Field* lat = scalar("latency");
        if (!k || !bw || !lat) {
            return nullptr;
        }
        auto isK = [](double v) { return v >= 2 && v <= 128 && v == std::floor(v) && std::fmod(v, 2) == 0; };
        auto kValue = number(*k, 0, isK, "an even integer in 2..128");
        auto bwValue = number(*bw, 0, isBandwidth, "a number in 1e-06..1e+06 (GB/s)");
        auto latValue = number(*lat, 0, isLatency, "a number in 0..1e+12 (ns)");
        if (!kValue || !bwValue || !latValue) {
            return nullptr;
        }
        LinkSettings link;
        link.rateBps = static_cast<uint64_t>(std::llround(gigabytesPerSecondToBytesPerNs(*bwValue) * 8e9));
        link.delayPs = static_cast<TimePs>(std::llround(*latValue * 1000));
        TopologySpec spec = mlnet::buildFatTree(static_cast<uint32_t>(*kValue), link);
        spec.source = m_path;
        return std::make_shared<const TopologySpec>(std::move(spec));
    }

    std::shared_ptr<const TopologySpec> buildFromFile(const Field& file) {
        forbid({"topology", "npus_count", "bandwidth", "latency", "k"},
               "cannot be combined with 'topology-file', which defines the whole network");
        if (!m_ok) {
            return nullptr;
        }
        if (file.isList || file.items.size() != 1 || file.items[0].isNumber || file.items[0].text.empty()) {
            error(file, "expected the path of an HPCC topology file");
            return nullptr;
        }
        fs::path target(file.items[0].text);
        if (target.is_relative()) {
            target = fs::path(m_path).parent_path() / target;
        }
        auto spec = loadHpccTopologyFile(target.string(), m_diag);
        return spec ? std::make_shared<const TopologySpec>(std::move(*spec)) : nullptr;
    }

    const std::string& m_path;
    const std::vector<Field>& m_fields;
    bool m_json;
    Diagnostics& m_diag;
    bool m_ok = true;
};

}  // namespace

std::shared_ptr<const TopologySpec> topologyFromAstraYaml(const std::string& path, const std::string& text,
                                                          Diagnostics& diag) {
    std::vector<Field> fields;
    if (!readYaml(path, text, fields, diag)) {
        return nullptr;
    }
    return ConfigBuilder(path, fields, false, diag).build();
}

std::shared_ptr<const TopologySpec> topologyFromAstraJson(const nlohmann::json& doc, const std::string& path,
                                                          const std::string& text,
                                                          const std::set<std::string>& skip,
                                                          Diagnostics& diag) {
    std::vector<Field> fields;
    if (!fieldsFromJson(doc, path, text, skip, fields, diag)) {
        return nullptr;
    }
    return ConfigBuilder(path, fields, true, diag).build();
}

}  // namespace mlnet::description_detail
