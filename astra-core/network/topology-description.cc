// Reading network descriptions: format by file name, the JSON "topology" section and "ranks"; the ASTRA-sim
// keys and older JSON forms are in astra-network-keys.cc.
#include "topology-description.h"

#include "network/astra-network-keys.h"
#include "network/hpcc-topology.h"
#include "network/topology-builders.h"
#include "network/topology.h"
#include "util/decimal.h"
#include "util/json-section.h"
#include "util/json-text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace mlnet {

namespace {

namespace fs = std::filesystem;

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
        nlohmann::json dims = nlohmann::json::object();
        for (const char* key : {"topology", "npus_count", "bandwidth", "latency"}) {
            if (const nlohmann::json* v = t.value(key)) {
                dims[key] = *v;
            }
        }
        SpecPtr spec = description_detail::topologyFromAstraJson(dims, t.path(), t.text(), {}, t.diag());
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
            t.error("switches", briefJson(id) + " is not a new node id in 0.." + std::to_string(*nodes - 1));
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
            const bool reduces = scaleUp->boolean("nvls").value_or(false);
            if (!rate && scaleUp->ok()) {
                scaleUp->error("rate", "missing; expected the scale-up link rate such as \"3600Gbps\"");
            }
            if (!npus || !rate || !scaleUp->finish()) {
                return std::nullopt;
            }
            link.rateBps = *rate;
            try {
                addScaleUp(*spec, *npus, link, reduces);
            } catch (const std::invalid_argument& e) {
                scaleUp->error("npus-per-server", e.what());
                return std::nullopt;
            }
        }
    }
    if (spec) {
        if (const nlohmann::json* sharp = t.value("sharp"); sharp && !sharp->is_null()) {
            // SHARP-class switches: every switch of the named tiers reduces, through an engine of its own.
            // "sharp": "rail" (one aggregation level: a tier the NICs are cabled to), or a list from the NICs
            // upwards, ["leaf", "spine"]: the leaves sum their hosts' shares and a switch of the next tier
            // sums the leaves' (a two-level reduction tree).
            std::vector<std::string> named;
            if (sharp->is_string()) {
                named.push_back(sharp->get<std::string>());
            } else if (sharp->is_array() && !sharp->empty() && sharp->size() <= 2 &&
                       std::all_of(sharp->begin(), sharp->end(),
                                   [](const auto& x) { return x.is_string(); })) {
                for (const auto& x : *sharp) {
                    named.push_back(x.get<std::string>());
                }
            } else {
                t.error("sharp",
                        "expected a tier name or a list of one or two tier names (lowest first), got " +
                            sharp->dump());
                return std::nullopt;
            }
            std::vector<uint32_t> switches;
            std::string tiers, upper;  // the tiers hosts are cabled to, the others, for messages
            for (uint32_t v = spec->numHosts(); v < spec->numVertices(); ++v) {
                bool servesHosts = false;
                for (uint32_t p = 0; p < spec->numPorts(v) && !servesHosts; ++p) {
                    servesHosts = !spec->isSwitch(spec->portPeer(v, p));
                }
                const std::string& name = spec->tierName(v);
                std::string& list = servesHosts ? tiers : upper;
                if (name != "scale-up" && list.find("'" + name + "'") == std::string::npos) {
                    list += (list.empty() ? "'" : ", '") + name + "'";
                }
                const bool wanted =
                    name != "scale-up" &&
                    (named[0] == name ? servesHosts : named.size() > 1 && named[1] == name && !servesHosts);
                if (wanted) {
                    switches.push_back(v);
                }
            }
            const auto count = [&](const std::string& name) {
                return std::count_if(switches.begin(), switches.end(),
                                     [&](uint32_t v) { return spec->tierName(v) == name; });
            };
            if (count(named[0]) == 0) {
                t.error("sharp",
                        "'" + named[0] + "' is not a tier of scale-out switches that hosts are cabled to; " +
                            (tiers.empty() ? std::string("this network has none") : "expected " + tiers) +
                            " (\"nvls\" in \"scale-up\" makes the scale-up switches reduce)");
                return std::nullopt;
            }
            if (named.size() > 1 && (named[1] == named[0] || count(named[1]) == 0)) {
                t.error("sharp",
                        "'" + named[1] + "' is not a tier of switches above '" + named[0] + "'; " +
                            (upper.empty() ? std::string("this network has none") : "expected " + upper));
                return std::nullopt;
            }
            addReductionEngines(*spec, switches);
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
        if (SpecPtr legacy = description_detail::topologyFromAstraJson(doc, path, text, skip, diag)) {
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
        for (const TopologySpec::ReductionEngine& e : spec->engines) {
            used[e.host] = true;  // no rank runs on a switch's reduction engine
        }
        spec->rankToHost.clear();
        if (!ranks->is_array() || ranks->empty()) {
            diag.error(atLine(path, line) + ": key 'ranks': expected a list with the host id of every rank");
            return nullptr;
        }
        for (std::size_t r = 0; r < ranks->size(); ++r) {
            const nlohmann::json& id = (*ranks)[r];
            const uint64_t value = id.is_number_unsigned() ? id.get<uint64_t>() : UINT64_MAX;
            if (value >= hostOfId.size() || hostOfId[value] == UINT32_MAX || used[hostOfId[value]]) {
                diag.error(atLine(path, line) + ": key 'ranks': entry " + std::to_string(r) + " (" +
                           briefJson(id) + ") is not a host id of the topology, or names a host twice");
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
        return description_detail::topologyFromAstraYaml(path, text, diag);
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
