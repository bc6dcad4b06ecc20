#include "topology-description.h"

#include "network/hpcc-topology.h"
#include "network/topology-builders.h"
#include "network/topology.h"
#include "util/decimal.h"
#include "util/json-section.h"
#include "util/json-text.h"

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace mlnet {

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
                    atLine(path, field.line) + ": key '" + key + "': " + v.dump() +
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
    static bool isBandwidth(double v) { return v > 0; }
    static bool isLatency(double v) { return v >= 0; }

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
            if (auto bw = number(*find("bandwidth"), i, isBandwidth, "a number > 0 (GB/s)")) {
                result[i].bandwidthBytesPerNs = gigabytesPerSecondToBytesPerNs(*bw);
            }
            if (auto lat = number(*find("latency"), i, isLatency, "a number >= 0 (ns)")) {
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
        auto bwValue = number(*bw, 0, isBandwidth, "a number > 0 (GB/s)");
        auto latValue = number(*lat, 0, isLatency, "a number >= 0 (ns)");
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

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

using SpecPtr = std::shared_ptr<const TopologySpec>;

// Link settings of one tier's uplinks ("host-rate", "leaf-delay", ...), defaulting to the builder-wide
// "rate", "delay" and "error-rate".
LinkSettings tierLink(JsonSection& t, const std::string& tier, const LinkSettings& fallback) {
    LinkSettings link = fallback;
    if (auto r = t.rateBps(tier + "-rate")) {
        link.rateBps = *r;
    }
    if (auto d = t.timePs(tier + "-delay")) {
        link.delayPs = *d;
    }
    if (auto e = t.real(tier + "-error-rate", 0, 1)) {
        link.errorRate = *e;
    }
    return link;
}

LinkSettings commonLink(JsonSection& t) {
    LinkSettings link;
    link.rateBps = t.rateBps("rate").value_or(link.rateBps);
    link.delayPs = t.timePs("delay").value_or(link.delayPs);
    link.errorRate = t.real("error-rate", 0, 1).value_or(0);
    return link;
}

std::optional<uint32_t> requiredCount(JsonSection& t, const std::string& key, uint64_t min, uint64_t max) {
    if (!t.has(key)) {
        t.error(key, "missing; expected a whole number >= " + std::to_string(min));
        return std::nullopt;
    }
    auto n = t.count(key, min, max);
    return n ? std::optional<uint32_t>(static_cast<uint32_t>(*n)) : std::nullopt;
}

std::optional<TopologySpec> buildFromSection(JsonSection& t, const std::string& builder) {
    const LinkSettings link = commonLink(t);
    constexpr uint64_t kMaxCount = 1u << 24;
    if (builder == "fat-tree") {
        const auto k = requiredCount(t, "k", 2, 256);
        ClosShape s;
        s.host = tierLink(t, "host", link);
        s.leaf = tierLink(t, "edge", link);
        s.spine = tierLink(t, "aggregation", link);
        if (!k || !t.ok()) {
            return std::nullopt;
        }
        if (*k % 2 != 0) {
            t.error("k", std::to_string(*k) + " is odd; expected an even number");
            return std::nullopt;
        }
        s.pods = *k;
        s.leavesPerPod = s.spinesPerPod = s.hostsPerLeaf = s.coresPerSpine = *k / 2;
        TopologySpec spec = buildClos(s);
        spec.tierNames = {"host", "edge", "aggregation", "core"};
        return spec;
    }
    if (builder == "clos") {
        ClosShape s;
        const bool threeTier = t.has("pods");
        s.pods = threeTier ? static_cast<uint32_t>(t.count("pods", 0, 1, 65535)) : 0;
        const auto leaves = requiredCount(t, "leaves", 1, kMaxCount);
        const auto hostsPerLeaf = requiredCount(t, "hosts-per-leaf", 1, 65535);
        const auto spines = requiredCount(t, "spines", 1, 65535);
        s.coresPerSpine = threeTier ? requiredCount(t, "cores-per-spine", 1, 65535).value_or(0) : 0;
        s.host = tierLink(t, "host", link);
        s.leaf = tierLink(t, "leaf", link);
        s.spine = tierLink(t, "spine", link);
        const auto ratio = t.real("oversubscription", 1e-6, 1e6);
        if (!leaves || !hostsPerLeaf || !spines || !t.ok()) {
            return std::nullopt;
        }
        s.leavesPerPod = *leaves;
        s.hostsPerLeaf = *hostsPerLeaf;
        s.spinesPerPod = *spines;
        if (ratio) {
            if (t.has("leaf-rate")) {
                t.error("oversubscription", "give either it or leaf-rate, which it would derive");
                return std::nullopt;
            }
            // hosts x host rate = oversubscription x spines x leaf rate.
            const double rate = static_cast<double>(*hostsPerLeaf) * static_cast<double>(s.host.rateBps) /
                                (*ratio * static_cast<double>(*spines));
            s.leaf.rateBps = static_cast<uint64_t>(std::llround(rate));
            if (s.leaf.rateBps == 0 || std::abs(rate - static_cast<double>(s.leaf.rateBps)) > 1e-6 * rate) {
                t.error("oversubscription", "gives a leaf uplink rate of " + std::to_string(rate) +
                                                " b/s, not a whole number of bits per second");
                return std::nullopt;
            }
        }
        return buildClos(s);
    }
    if (builder == "rail-optimised") {
        const auto servers = requiredCount(t, "servers", 1, kMaxCount);
        const auto nics = requiredCount(t, "nics-per-server", 1, 65535);
        const auto spines = requiredCount(t, "spines", 1, 65535);
        const LinkSettings host = tierLink(t, "host", link);
        const LinkSettings rail = tierLink(t, "rail", link);
        if (!servers || !nics || !spines || !t.ok()) {
            return std::nullopt;
        }
        return buildRailOptimised(*servers, *nics, *spines, host, rail);
    }
    if (builder == "multi-dimensional") {
        std::vector<Field> fields;
        nlohmann::json dims = nlohmann::json::object();
        for (const char* key : {"topology", "npus_count", "bandwidth", "latency"}) {
            if (const nlohmann::json* v = t.value(key)) {
                dims[key] = *v;
            }
        }
        if (!fieldsFromJson(dims, t.path(), t.text(), {}, fields, t.diag())) {
            return std::nullopt;
        }
        SpecPtr spec = ConfigBuilder(t.path(), fields, true, t.diag()).build();
        return spec ? std::optional<TopologySpec>(*spec) : std::nullopt;
    }
    t.error(
        "builder",
        "'" + builder + "' is not a builder; expected fat-tree, clos, rail-optimised or multi-dimensional");
    return std::nullopt;
}

// {"nodes": N, "switches": [ids], "links": [{"a", "b", "rate", "delay", "error-rate"}]}: our own topology
// file.
std::optional<TopologySpec> buildExplicit(JsonSection& t) {
    const auto nodes = requiredCount(t, "nodes", 1, 1u << 24);
    const nlohmann::json* switchList = t.value("switches");
    const nlohmann::json* linkList = t.value("links");
    if (!nodes) {
        return std::nullopt;
    }
    std::vector<bool> isSwitch(*nodes, false);
    if (switchList && !switchList->is_array()) {
        t.error("switches", "expected a list of node ids");
        return std::nullopt;
    }
    for (const nlohmann::json& id : switchList ? *switchList : nlohmann::json::array()) {
        if (!id.is_number_unsigned() || id.get<uint64_t>() >= *nodes || isSwitch[id.get<uint64_t>()]) {
            t.error("switches", id.dump() + " is not a new node id in 0.." + std::to_string(*nodes - 1));
            return std::nullopt;
        }
        isSwitch[id.get<uint64_t>()] = true;
    }
    if (!linkList || !linkList->is_array() || linkList->empty()) {
        t.error("links", "expected a non-empty list of links");
        return std::nullopt;
    }
    std::vector<SpecCable> cables;
    for (std::size_t i = 0; i < linkList->size(); ++i) {
        const nlohmann::json& l = (*linkList)[i];
        if (!l.is_object()) {
            t.error("links", "entry " + std::to_string(i) + " is not an object with a, b, rate and delay");
            return std::nullopt;
        }
        JsonSection link(l, t.path(), t.text(), t.keyPath("links[" + std::to_string(i) + "]"), t.diag());
        const auto a = link.count("a", 0, *nodes - 1), b = link.count("b", 0, *nodes - 1);
        const auto rate = link.rateBps("rate");
        const auto delay = link.timePs("delay");
        const double errorRate = link.real("error-rate", 0, 1).value_or(0);
        if (!a || !b || !rate || !delay) {
            if (link.ok()) {
                link.error("a", "every link needs a, b, rate and delay");
            }
            return std::nullopt;
        }
        if (!link.finish()) {
            return std::nullopt;
        }
        cables.push_back({static_cast<uint32_t>(*a), static_cast<uint32_t>(*b), *rate, *delay, errorRate,
                          lineOfJsonKey(t.text(), "links")});
    }
    return specFromNodeIds(static_cast<uint32_t>(*nodes), isSwitch, std::move(cables), t.path(), t.diag());
}

std::optional<TopologySpec> readTopologySection(JsonSection t) {
    std::optional<TopologySpec> spec;
    if (auto file = t.string("file")) {
        std::string target = *file;
        if (!target.empty() && target[0] != '/') {
            target = (fs::path(t.path()).parent_path() / target).string();
        }
        if (!fs::exists(target)) {
            t.error("file", "'" + target + "' does not exist (a relative path is taken from the folder of " +
                                t.path() + ")");
        }
        if (!t.finish()) {
            return std::nullopt;
        }
        return loadHpccTopologyFile(target, t.diag());
    }
    if (t.has("links") || t.has("nodes")) {
        spec = buildExplicit(t);
    } else if (auto builder = t.string("builder")) {
        try {
            spec = buildFromSection(t, *builder);
        } catch (const std::invalid_argument& e) {
            t.error("builder", e.what());
            return std::nullopt;
        }
    } else {
        if (t.ok()) {
            t.error("builder",
                    "missing; expected \"builder\" (fat-tree, clos, rail-optimised, multi-dimensional), "
                    "\"file\" or \"nodes\" with \"links\"");
        }
        return std::nullopt;
    }
    if (spec) {
        if (auto scaleUp = t.section("scale-up")) {
            const auto npus = requiredCount(*scaleUp, "npus-per-server", 2, 65535);
            LinkSettings link;
            const auto rate = scaleUp->rateBps("rate");
            link.delayPs = scaleUp->timePs("delay").value_or(0);
            if (!rate && scaleUp->ok()) {
                scaleUp->error("rate", "missing; expected the scale-up link rate such as \"3600Gbps\"");
            }
            if (!npus || !rate || !scaleUp->finish()) {
                return std::nullopt;
            }
            link.rateBps = *rate;
            try {
                addScaleUp(*spec, *npus, link);
            } catch (const std::invalid_argument& e) {
                scaleUp->error("npus-per-server", e.what());
                return std::nullopt;
            }
        }
    }
    if (!t.finish() || !spec) {
        return std::nullopt;
    }
    return spec;
}

}  // namespace

SpecPtr topologyFromJson(const nlohmann::json& doc, const std::string& path, const std::string& text,
                         Diagnostics& diag) {
    std::optional<TopologySpec> spec;
    const auto topology = doc.find("topology");
    if (topology != doc.end() && topology->is_object()) {
        spec = readTopologySection(JsonSection(*topology, path, text, "topology", diag));
    } else {
        std::set<std::string> skip(std::begin(kPacketModelSections), std::end(kPacketModelSections));
        skip.insert("ranks");
        std::vector<Field> fields;
        if (!fieldsFromJson(doc, path, text, skip, fields, diag)) {
            return nullptr;
        }
        if (SpecPtr legacy = ConfigBuilder(path, fields, true, diag).build()) {
            spec = *legacy;
        }
    }
    if (!spec) {
        return nullptr;
    }
    spec->source = path;
    if (const auto ranks = doc.find("ranks"); ranks != doc.end()) {
        const int line = lineOfJsonKey(text, "ranks");
        std::vector<uint32_t> hostOfId(spec->numVertices() ? spec->vertices.back().originalId + 1 : 0,
                                       UINT32_MAX);
        for (uint32_t h = 0; h < spec->numHosts(); ++h) {
            const uint32_t id = spec->vertices[h].originalId;
            hostOfId.resize(std::max<std::size_t>(hostOfId.size(), id + 1), UINT32_MAX);
            hostOfId[id] = h;
        }
        std::vector<bool> used(spec->numHosts(), false);
        if (!ranks->is_array() || ranks->empty()) {
            diag.error(atLine(path, line) + ": key 'ranks': expected a list with the host id of every rank");
            return nullptr;
        }
        for (std::size_t r = 0; r < ranks->size(); ++r) {
            const nlohmann::json& id = (*ranks)[r];
            const uint64_t value = id.is_number_unsigned() ? id.get<uint64_t>() : UINT64_MAX;
            if (value >= hostOfId.size() || hostOfId[value] == UINT32_MAX || used[hostOfId[value]]) {
                diag.error(atLine(path, line) + ": key 'ranks': entry " + std::to_string(r) + " (" +
                           id.dump() + ") is not a host id of the topology, or names a host twice");
                return nullptr;
            }
            used[hostOfId[value]] = true;
            spec->rankToHost.push_back(hostOfId[value]);
        }
    }
    spec->finalize();
    if (!spec->validate(diag)) {
        return nullptr;
    }
    return std::make_shared<const TopologySpec>(std::move(*spec));
}

SpecPtr loadTopologyDescription(const std::string& path, Diagnostics& diag) {
    const bool json = endsWith(path, ".json");
    if (!json && !endsWith(path, ".yml") && !endsWith(path, ".yaml")) {
        auto spec = loadHpccTopologyFile(path, diag);
        return spec ? std::make_shared<const TopologySpec>(std::move(*spec)) : nullptr;
    }
    std::string text;
    if (!readTextFile(path, text, diag, "network description")) {
        return nullptr;
    }
    if (!json) {
        std::vector<Field> fields;
        if (!readYaml(path, text, fields, diag)) {
            return nullptr;
        }
        return ConfigBuilder(path, fields, false, diag).build();
    }
    nlohmann::json doc;
    if (!parseJsonObject(text, path, "a JSON network description object", doc, diag)) {
        return nullptr;
    }
    if (doc.contains("topology") && doc["topology"].is_object()) {
        // A full network description: every top-level key must be a known section.
        std::set<std::string> known(std::begin(kPacketModelSections), std::end(kPacketModelSections));
        known.insert({"topology", "ranks"});
        for (const auto& [key, value] : doc.items()) {
            if (!known.count(key)) {
                const std::string hint =
                    nearestKey(key, std::vector<std::string>(known.begin(), known.end()));
                diag.error(atLine(path, lineOfJsonKey(text, key)) + ": unknown top-level key '" + key + "'" +
                           (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
            }
        }
        if (diag.hasErrors()) {
            return nullptr;
        }
    }
    return topologyFromJson(doc, path, text, diag);
}

}  // namespace mlnet
