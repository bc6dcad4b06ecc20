#include "network-config.h"
#include "util/decimal.h"

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

bool readJson(const std::string& path, const std::string& text, std::vector<Field>& fields,
              Diagnostics& diag) {
    using nlohmann::json;
    json doc;
    if (!parseJsonObject(text, path, "a JSON object with keys topology, npus_count, bandwidth and latency",
                         doc, diag)) {
        return false;
    }
    bool ok = true;
    for (auto& [key, value] : doc.items()) {
        Field field;
        field.key = key;
        field.isList = value.is_array();
        for (const json& v : field.isList ? value : json::array({value})) {
            if (!v.is_number() && !v.is_string()) {
                diag.error(
                    path + ": key '" + key + "': " + v.dump() +
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

    NetworkConfig build() {
        NetworkConfig config;
        config.path = m_path;
        if (!checkKeys()) {
            return config;
        }
        if (const Field* file = find("topology-file")) {
            buildFromFile(*file, config);
        } else if (const Field* topology = find("topology"); m_json && topology &&
                                                             topology->items.size() == 1 &&
                                                             topology->items[0].text == "FatTree") {
            buildFatTree(config);
        } else {
            buildDimensions(config);
        }
        return config;
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

    void buildDimensions(NetworkConfig& config) {
        forbid({"k"}, "only valid with topology FatTree (JSON)");
        if (!m_ok || !require({"topology", "npus_count", "bandwidth", "latency"})) {
            return;
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
            return;
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
            return;
        }
        if (std::string why = Topology::checkDimensions(result); !why.empty()) {
            error(*find("npus_count"), why);
            return;
        }
        config.dimensions = std::move(result);
    }

    void buildFatTree(NetworkConfig& config) {
        forbid({"npus_count"}, "not valid with topology FatTree; the size follows from k (k^3/4 hosts)");
        if (!m_ok || !require({"k", "bandwidth", "latency"})) {
            return;
        }
        const Field* k = scalar("k");
        const Field* bw = scalar("bandwidth");
        const Field* lat = scalar("latency");
        if (!k || !bw || !lat) {
            return;
        }
        auto isK = [](double v) { return v >= 2 && v <= 128 && v == std::floor(v) && std::fmod(v, 2) == 0; };
        auto kValue = number(*k, 0, isK, "an even integer in 2..128");
        auto bwValue = number(*bw, 0, isBandwidth, "a number > 0 (GB/s)");
        auto latValue = number(*lat, 0, isLatency, "a number >= 0 (ns)");
        if (kValue && bwValue && latValue) {
            config.graph = std::make_shared<const Topology>(
                Topology::fatTree(static_cast<uint32_t>(*kValue), *bwValue, *latValue));
        }
    }

    void buildFromFile(const Field& file, NetworkConfig& config) {
        forbid({"topology", "npus_count", "bandwidth", "latency", "k"},
               "cannot be combined with 'topology-file', which defines the whole network");
        if (!m_ok) {
            return;
        }
        if (file.isList || file.items.size() != 1 || file.items[0].isNumber || file.items[0].text.empty()) {
            error(file, "expected the path of an HPCC topology file");
            return;
        }
        fs::path target(file.items[0].text);
        if (target.is_relative()) {
            target = fs::path(m_path).parent_path() / target;
        }
        if (auto topology = loadHpccTopology(target.string(), m_diag)) {
            config.graph = std::make_shared<const Topology>(std::move(*topology));
        }
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

// ns-3 DataRate strings: SI (k, K, M, G, T) or binary (Ki, Mi, Gi, Ti) prefixes on bps, b/s, Bps or B/s.
bool parseRate(const std::string& text, double& bytesPerNs) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || !(value > 0) || !std::isfinite(value)) {
        return false;
    }
    static const std::pair<const char*, double> prefixes[] = {
        {"", 1},     {"k", 1e3},     {"K", 1e3},        {"M", 1e6},           {"G", 1e9},
        {"T", 1e12}, {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}};
    const std::string unit(end);
    for (const auto& [prefix, multiplier] : prefixes) {
        const std::string p(prefix);
        if (unit.compare(0, p.size(), p) != 0) {
            continue;
        }
        const std::string base = unit.substr(p.size());
        if (base == "bps" || base == "b/s" || base == "Bps" || base == "B/s") {
            bytesPerNs = value * multiplier / (base[0] == 'b' ? 8.0 : 1.0) / 1e9;
            return true;
        }
    }
    return false;
}

// ns-3 Time strings with an explicit unit.
bool parseDelay(const std::string& text, double& ns) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || !(value >= 0) || !std::isfinite(value)) {
        return false;
    }
    static const std::pair<const char*, double> units[] = {
        {"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1.0}, {"ps", 1e-3}};
    for (const auto& [unit, multiplier] : units) {
        if (std::string(end) == unit) {
            ns = value * multiplier;
            return true;
        }
    }
    return false;
}

}  // namespace

NetworkConfig loadNetworkConfig(const std::string& path, Diagnostics& diag) {
    NetworkConfig config;
    config.path = path;
    std::string text;
    if (!readTextFile(path, text, diag, "network configuration")) {
        return config;
    }
    const bool json = endsWith(path, ".json");
    std::vector<Field> fields;
    if (!(json ? readJson(path, text, fields, diag) : readYaml(path, text, fields, diag))) {
        return config;
    }
    return ConfigBuilder(path, fields, json, diag).build();
}

std::optional<Topology> loadHpccTopology(const std::string& path, Diagnostics& diag) {
    std::string text;
    if (!readTextFile(path, text, diag, "HPCC topology file")) {
        return std::nullopt;
    }
    struct Line {
        int number;
        std::vector<std::string> tokens;
    };
    std::vector<Line> lines;
    {
        std::istringstream in(text);
        std::string raw;
        for (int number = 1; std::getline(in, raw); ++number) {
            std::istringstream words(raw);
            Line line{number, {}};
            for (std::string w; words >> w;) {
                line.tokens.push_back(std::move(w));
            }
            if (!line.tokens.empty()) {
                lines.push_back(std::move(line));
            }
        }
    }
    const std::size_t before = diag.errorCount();
    auto fail = [&](int line, const std::string& what) { diag.error(atLine(path, line) + ": " + what); };

    uint64_t nodes = 0, switches = 0, cables = 0;
    if (lines.empty() || lines[0].tokens.size() != 3 || !parseDecimal(lines[0].tokens[0], nodes) ||
        !parseDecimal(lines[0].tokens[1], switches) || !parseDecimal(lines[0].tokens[2], cables)) {
        fail(lines.empty() ? 0 : lines[0].number,
             "expected the header '<nodes> <switches> <links>' (SimAI's 6-field header is not supported)");
        return std::nullopt;
    }
    // Bounded so that a corrupt header cannot ask for gigabytes before the link lines are even read.
    if (nodes > (1u << 24) || switches >= nodes) {
        fail(lines[0].number, "expected switches < nodes <= 2^24 (at least one host)");
        return std::nullopt;
    }
    std::vector<char> isSwitch(nodes, 0);
    std::size_t next = 1;
    for (uint64_t found = 0; found < switches;) {
        if (next >= lines.size()) {
            fail(0, "expected " + std::to_string(switches) + " switch ids after the header, found " +
                        std::to_string(found));
            return std::nullopt;
        }
        const Line& line = lines[next++];
        for (const std::string& token : line.tokens) {
            uint64_t id = 0;
            if (found == switches) {
                fail(line.number, "more than " + std::to_string(switches) + " switch ids");
                return std::nullopt;
            }
            if (!parseDecimal(token, id) || id >= nodes || isSwitch[id]) {
                fail(line.number,
                     "switch id '" + token + "' is not a new node id in 0.." + std::to_string(nodes - 1));
                return std::nullopt;
            }
            isSwitch[id] = 1;
            ++found;
        }
    }
    // Hosts first, then switches, each in increasing id order.
    std::vector<uint32_t> vertexOf(nodes);
    const uint32_t hosts = static_cast<uint32_t>(nodes - switches);
    uint32_t nextHost = 0, nextSwitch = hosts;
    for (uint64_t id = 0; id < nodes; ++id) {
        vertexOf[id] = isSwitch[id] ? nextSwitch++ : nextHost++;
    }
    if (lines.size() - next < cables) {
        fail(0, "expected " + std::to_string(cables) + " link lines, found " +
                    std::to_string(lines.size() - next));
        return std::nullopt;
    }
    std::vector<Link> links;
    links.reserve(2 * cables);
    for (uint64_t c = 0; c < cables; ++c) {
        const Line& line = lines[next + c];
        uint64_t a = 0, b = 0;
        double bytesPerNs = 0, delayNs = 0, errorRate = 0;
        if (line.tokens.size() != 5) {
            fail(line.number, "expected '<a> <b> <rate> <delay> <error rate>', found " +
                                  std::to_string(line.tokens.size()) + " fields");
        } else if (!parseDecimal(line.tokens[0], a) || !parseDecimal(line.tokens[1], b) || a >= nodes ||
                   b >= nodes || a == b) {
            fail(line.number, "link ends '" + line.tokens[0] + "' '" + line.tokens[1] +
                                  "' must be two different node ids in 0.." + std::to_string(nodes - 1));
        } else if (!parseRate(line.tokens[2], bytesPerNs)) {
            fail(line.number, "rate '" + line.tokens[2] + "' is not a positive rate such as 100Gbps");
        } else if (!parseDelay(line.tokens[3], delayNs)) {
            fail(line.number, "delay '" + line.tokens[3] + "' is not a delay such as 1000ns or 0.001ms");
        } else if (!parseNumber(line.tokens[4], errorRate) || errorRate < 0 || errorRate > 1) {
            fail(line.number, "error rate '" + line.tokens[4] + "' is not a number in [0, 1]");
        } else {
            links.push_back({vertexOf[a], vertexOf[b], bytesPerNs, delayNs});
            links.push_back({vertexOf[b], vertexOf[a], bytesPerNs, delayNs});
        }
    }
    if (diag.errorCount() != before) {
        return std::nullopt;
    }
    Topology topology = Topology::graph(hosts, static_cast<uint32_t>(switches), std::move(links));
    // Every host must reach host 0 through switches; this catches missing or mistyped links before a run
    // hangs.
    std::vector<uint32_t> route;
    for (uint32_t h = 1; h < hosts; ++h) {
        try {
            topology.route(h, 0, 0, route);
        } catch (const std::runtime_error&) {
            uint64_t idH = 0, id0 = 0;
            for (uint64_t id = 0; id < nodes; ++id) {
                idH = vertexOf[id] == h && !isSwitch[id] ? id : idH;
                id0 = vertexOf[id] == 0 && !isSwitch[id] ? id : id0;
            }
            fail(0, "host " + std::to_string(idH) + " has no path through switches to host " +
                        std::to_string(id0));
            return std::nullopt;
        }
    }
    return topology;
}

Topology makeTopology(const NetworkConfig& config) {
    if (config.graph) {
        return *config.graph;
    }
    if (config.dimensions.empty()) {
        throw std::invalid_argument(config.path + ": no network; the configuration did not load");
    }
    return Topology::multiDimensional(config.dimensions);
}

}  // namespace mlnet
