#include "network-description.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "astra-ns3-inputs.h"
#include "cc-algorithm.h"
#include "cc-selection.h"
#include "network/topology-description.h"
#include "simai-config.h"
#include "simai-topology.h"
#include "util/json-section.h"
#include "util/json-text.h"

namespace mlnet::roce {

namespace {

namespace fs = std::filesystem;

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The defaults of descriptions without packet-model sections: RoCEv2 with 4 KB payloads, 32 MB shared
// buffers, PFC, RED/ECN at 100/400 KB per 25 Gb/s with Pmax 0.2 (the HPCC paper's DCQCN thresholds) and DCQCN
// from its paper.
PacketModelSettings defaults(const std::string& source) {
    PacketModelSettings s;
    s.source = source;
    s.fabric.nic.mtuPayloadBytes = 4096;
    s.fabric.switches.cutThrough = true;
    s.fabric.ecnPer25Gbps = EcnRule{25'000'000'000ull, 100'000, 400'000, 0.2};
    return s;
}

std::optional<EcnRule> readEcn(JsonSection& parent, const std::string& key) {
    auto section = parent.section(key);
    if (!section) {
        return std::nullopt;
    }
    const auto kmin = section->sizeBytes("kmin"), kmax = section->sizeBytes("kmax");
    const auto pmax = section->real("pmax", 0, 1);
    if (!kmin || !kmax || !pmax) {
        if (section->ok()) {
            section->error("kmin", "ECN thresholds need kmin, kmax and pmax");
        }
        return std::nullopt;
    }
    if (*kmin > *kmax) {
        section->error("kmin", "exceeds kmax; expected kmin <= kmax");
    }
    if (!section->finish()) {
        return std::nullopt;
    }
    return EcnRule{25'000'000'000ull, *kmin, *kmax, *pmax};
}

void readSwitch(JsonSection& s, FabricSettings& f) {
    f.bufferBytes = s.sizeBytes("buffer").value_or(f.bufferBytes);
    f.reserveBytes = s.sizeBytes("reserve").value_or(f.reserveBytes);
    f.pfcEnabled = s.boolean("pfc").value_or(f.pfcEnabled);
    f.ecnEnabled = s.boolean("ecn").value_or(f.ecnEnabled);
    f.headroomFactor = s.real("headroom-factor", 0.01, 100).value_or(f.headroomFactor);
    f.alphaShift = static_cast<uint32_t>(s.count("alpha-shift", f.alphaShift, 0, 16));
    f.switches.cutThrough = s.boolean("cut-through").value_or(f.switches.cutThrough);
    f.intMulti = static_cast<uint32_t>(s.count("int-multi", f.intMulti, 1, 1u << 20));
    if (auto ecn = readEcn(s, "ecn-per-25gbps")) {
        f.ecnPer25Gbps = ecn;
    }
    // What a switch sets aside depends on its ports (RoceFabric checks the whole budget); the reserve alone
    // can be judged here, with the key's line.
    if (f.reserveBytes >= f.bufferBytes) {
        s.error(s.has("reserve") ? "reserve" : "buffer",
                "a reserve of " + std::to_string(f.reserveBytes) +
                    " B per port and priority does not fit a " + std::to_string(f.bufferBytes) +
                    " B buffer; expected a reserve well below the buffer");
    }
}

void readTiers(JsonSection& s, FabricSettings& f) {
    const nlohmann::json* tiers = s.value("tiers");
    if (!tiers) {
        return;
    }
    if (!tiers->is_object()) {
        s.error("tiers", "expected an object of tier name -> settings");
        return;
    }
    for (const auto& [tier, value] : tiers->items()) {
        if (!value.is_object()) {
            s.error("tiers", "tier '" + tier + "' is not an object of settings");
            continue;
        }
        JsonSection t(value, s.path(), s.text(), s.keyPath("tiers." + tier), s.diag());
        TierSettings settings;
        settings.bufferBytes = t.sizeBytes("buffer");
        settings.pfcEnabled = t.boolean("pfc");
        settings.ecnEnabled = t.boolean("ecn");
        settings.ecnPer25Gbps = readEcn(t, "ecn-per-25gbps");
        if (t.finish()) {
            f.tiers[tier] = settings;
        }
    }
}

// Every tier switch.tiers names must be a switch tier of the topology (tier 0 is the hosts).
void checkTierNames(JsonSection& sw, const FabricSettings& f, const TopologySpec& topology) {
    const std::vector<std::string> names(topology.tierNames.begin() + 1, topology.tierNames.end());
    for (const auto& [tier, settings] : f.tiers) {
        if (std::find(names.begin(), names.end(), tier) != names.end()) {
            continue;
        }
        std::string known;
        for (const std::string& n : names) {
            known += (known.empty() ? "'" : ", '") + n + "'";
        }
        const std::string hint = nearestKey(tier, names);
        sw.error("tiers", "the topology has no tier '" + tier + "'" +
                              (hint.empty() ? "" : "; did you mean '" + hint + "'?") +
                              " (its switch tiers: " + (known.empty() ? "none" : known) + ")");
    }
}

void readNic(JsonSection& s, PacketModelSettings& p) {
    NicSettings& n = p.fabric.nic;
    // Bounded before the cast to 32 bits: 4294967297B must not become a 1-byte payload.
    const uint64_t payload = s.sizeBytes("payload").value_or(n.mtuPayloadBytes);
    if (payload == 0 || payload > 9000) {
        s.error("payload", std::to_string(payload) + " B; expected 1 B .. 9000 B per packet");
    } else {
        n.mtuPayloadBytes = static_cast<uint32_t>(payload);
    }
    n.ackIntervalBytes = s.sizeBytes("ack-interval").value_or(n.ackIntervalBytes);
    n.ackChunkBytes = s.sizeBytes("ack-chunk").value_or(n.ackChunkBytes);
    n.ackPriority = static_cast<uint8_t>(s.count("ack-priority", n.ackPriority, 0, 7));
    n.rtoPs = s.timePs("rto").value_or(n.rtoPs);
    n.cnpIntervalPs = s.timePs("cnp-interval").value_or(n.cnpIntervalPs);
    n.nackIntervalPs = s.timePs("nack-interval").value_or(n.nackIntervalPs);
    if (n.rtoPs < 1'000'000) {
        s.error("rto", "below 1 us; expected a retransmission timeout of at least 1us");
    }
    p.trafficClass = static_cast<uint8_t>(s.count("traffic-class", p.trafficClass, 1, 7));
    if (const nlohmann::json* classes = s.value("priority-classes")) {
        const bool list =
            classes->is_array() && !classes->empty() && classes->size() <= 64 &&
            std::all_of(classes->begin(), classes->end(), [](const nlohmann::json& c) {
                return c.is_number_unsigned() && c.get<uint64_t>() >= 1 && c.get<uint64_t>() <= 7;
            });
        if (!list) {
            s.error("priority-classes",
                    briefJson(*classes) +
                        " is not a list of 1 to 64 traffic classes, each 1..7 (class 0 carries ACKs)");
        } else {
            for (const nlohmann::json& c : *classes) {
                p.priorityClasses.push_back(static_cast<uint8_t>(c.get<uint64_t>()));
            }
        }
    }
    p.fabric.globalBaseRtt = s.boolean("global-base-rtt").value_or(p.fabric.globalBaseRtt);
    if (auto connections = s.string("connections")) {
        if (*connections == "per-message") {
            p.fabric.reuseConnections = false;
        } else if (*connections == "per-peer") {
            p.fabric.reuseConnections = true;
        } else {
            s.error("connections", "'" + *connections + "'; expected per-message or per-peer");
        }
    }
}

void readCongestionControl(JsonSection& s, PacketModelSettings& p) {
    if (auto algorithm = s.string("algorithm")) {
        CcAlgorithm chosen;
        if (parseCcAlgorithm(*algorithm, chosen)) {
            p.cc = *algorithm;
        } else {
            s.error("algorithm", "'" + *algorithm + "'; expected " + ccAlgorithmChoices());
        }
    }
    if (auto preset = s.string("preset")) {
        if (isCcPresetName(*preset)) {
            p.ccPreset = *preset;
        } else {
            s.error("preset", "'" + *preset + "'; expected " + ccPresetChoices());
        }
    }
    if (const nlohmann::json* parameters = s.value("parameters")) {
        if (!parameters->is_object()) {
            s.error("parameters", "expected an object of config.txt keys, e.g. {\"RATE_AI\": \"20Mb/s\"}");
            return;
        }
        // Parameters are the "config" preset's values; any other preset takes its own and would ignore them,
        // except HAS_WIN, which every preset reads (it decides whether PFC-only flows keep a window).
        const bool otherPreset = s.has("preset") && p.ccPreset != "config";
        if (otherPreset) {
            for (auto it = parameters->begin(); it != parameters->end(); ++it) {
                if (it.key() != "HAS_WIN") {
                    s.error("parameters",
                            "'" + it.key() + "' applies only with the \"config\" preset; preset '" +
                                p.ccPreset +
                                "' takes its own values and would ignore it (drop the preset, or "
                                "the parameter; HAS_WIN is the one key every preset reads)");
                    return;
                }
            }
        }
        if (!otherPreset) {
            p.ccParameters = hpccConfigFromJson(*parameters, s.path(), s.text(), s.diag());
            p.ccPreset = "config";
            return;
        }
        // HAS_WIN alone: the warnings about config.txt keys left to their defaults concern the config preset.
        Diagnostics parsed;
        p.ccParameters = hpccConfigFromJson(*parameters, s.path(), s.text(), parsed);
        for (const Diagnostic& d : parsed.kept()) {
            if (d.severity == Severity::Error) {
                s.diag().error(d.text);
            }
        }
    }
}

void readOutputs(JsonSection& s, PacketModelSettings& p) {
    // Asking for any of the sampling keys asks for the samples (qlen.txt in the output directory).
    const bool queueSamples =
        s.boolean("queue-samples")
            .value_or(s.has("queue-interval") || s.has("queue-start") || s.has("queue-end"));
    if (queueSamples) {
        p.queuePath = "qlen.txt";
    }
    p.queueIntervalPs = s.timePs("queue-interval").value_or(p.queueIntervalPs);
    p.queueStartPs = s.timePs("queue-start").value_or(p.queueStartPs);
    p.queueEndPs = s.timePs("queue-end").value_or(p.queueEndPs);
    if (p.queueIntervalPs == 0) {
        s.error("queue-interval", "is 0; expected an interval of at least 1ps between queue samples");
    }
    if (p.queueStartPs >= p.queueEndPs) {
        s.error(s.has("queue-end") ? "queue-end" : "queue-start",
                "queue samples would end (" + std::to_string(p.queueEndPs) + " ps) before they start (" +
                    std::to_string(p.queueStartPs) + " ps); expected queue-start before queue-end");
    }
    p.timeline = s.boolean("timeline").value_or(p.timeline);
    p.timelineFlows = s.count("timeline-flows", p.timelineFlows, 0, 100'000'000);
}

void readRun(JsonSection& s, PacketModelSettings& p) {
    p.timeLimitPs = s.timePs("time-limit").value_or(p.timeLimitPs);
    p.hangCheckPs = s.timePs("hang-check").value_or(p.hangCheckPs);
    p.seed = s.count("seed", p.seed, 1, kMaxSeed);
    if (p.hangCheckPs < 1'000'000) {
        s.error("hang-check", "below 1 us; expected an interval of at least 1us");
    }
}

void readBackground(JsonSection& s, PacketModelSettings& p) {
    BackgroundSettings b;
    b.source = s.path();
    // Every key is read before any is judged, so a missing one is not reported along with false "unknown key"
    // errors for the others.
    const auto cdf = s.string("flow-size-cdf");
    const auto load = s.real("load", 1e-6, 1);
    b.trafficClass = static_cast<uint8_t>(s.count("traffic-class", b.trafficClass, 1, 7));
    b.dport = static_cast<uint16_t>(s.count("dport", b.dport, 0, 65535));
    if (const nlohmann::json* hosts = s.value("hosts")) {
        std::set<uint64_t> seen;
        if (!hosts->is_array()) {
            s.error("hosts", "expected a list of host indices");
        }
        for (const nlohmann::json& h : hosts->is_array() ? *hosts : nlohmann::json::array()) {
            // Bounded before the cast: a 33-bit index must not wrap onto a real host.
            if (!h.is_number_unsigned() || h.get<uint64_t>() > UINT32_MAX) {
                s.error("hosts", briefJson(h) + " is not a host index; expected whole numbers 0..4294967295");
                break;
            }
            if (!seen.insert(h.get<uint64_t>()).second) {
                s.error("hosts", "host " + briefJson(h) + " is listed twice; expected each host once");
                break;
            }
            b.hosts.push_back(h.get<uint32_t>());
        }
        if (s.ok() && b.hosts.size() < 2) {
            s.error("hosts", "lists " + std::to_string(b.hosts.size()) +
                                 " host(s); background traffic needs at least two (or no list: every host)");
        }
    }
    if (!cdf || !load) {
        if (s.ok()) {
            s.error(cdf ? "load" : "flow-size-cdf", "background traffic needs flow-size-cdf and load");
        }
        return;
    }
    b.flowSizeCdf = fs::path(*cdf).is_relative() ? (fs::path(s.path()).parent_path() / *cdf).string() : *cdf;
    b.load = *load;
    if (s.ok()) {
        p.background = b;
    }
}

template <typename Reader>
void section(JsonSection& top, const char* key, PacketModelSettings& p, Reader read) {
    if (auto s = top.section(key)) {
        p.sectionsGiven.push_back(key);
        read(*s, p);
        s->finish();
    }
}

// Whether a JSON document is meant as our network description (it has a "topology", or a section only ours
// has), as opposed to ASTRA-sim's config.json or the analytical tools' forms. ASTRA-sim's config.json also
// has a "switch" section, with its own keys.
bool isOurDescription(const nlohmann::json& doc) {
    if (doc.contains("topology") && doc["topology"].is_object()) {
        return true;
    }
    for (const char* section : kPacketModelSections) {
        if (std::string(section) != "switch" && doc.contains(section)) {
            return true;
        }
    }
    const auto sw = doc.find("switch");
    if (sw != doc.end() && sw->is_object()) {
        for (const char* key :
             {"buffer", "reserve", "pfc", "ecn", "cut-through", "tiers", "ecn-per-25gbps"}) {
            if (sw->contains(key)) {
                return true;
            }
        }
    }
    return false;
}

std::optional<NetworkDescription> fromOurJson(const nlohmann::json& doc, const std::string& path,
                                              const std::string& text, Diagnostics& diag) {
    NetworkDescription d;
    d.settings = defaults(path);
    d.settings.form = "json";
    JsonSection top(doc, path, text, "", diag);
    top.accept("topology");
    top.accept("ranks");
    section(top, "switch", d.settings, [](JsonSection& s, PacketModelSettings& p) {
        readSwitch(s, p.fabric);
        readTiers(s, p.fabric);
    });
    section(top, "nic", d.settings, readNic);
    section(top, "congestion-control", d.settings, readCongestionControl);
    section(top, "links", d.settings, [](JsonSection& s, PacketModelSettings& p) {
        p.fabric.defaultErrorRate = s.real("error-rate", 0, 1).value_or(0);
    });
    section(top, "outputs", d.settings, readOutputs);
    section(top, "run", d.settings, readRun);
    section(top, "background", d.settings, readBackground);
    section(top, "model-rules", d.settings, [](JsonSection& s, PacketModelSettings& p) {
        ModelRuleOptions& o = p.ruleOptions;
        for (const ModelRuleField& f : modelRuleFields()) {
            o.*f.field = s.string(f.name).value_or("");
        }
        ModelRules check;
        ModelRuleError error;
        if (!parseModelRules(o, check, error)) {
            s.error(error.option, error.why);
        }
    });
    // The topology last: a typo in a section is reported before a large network is built.
    if (!top.finish() || diag.hasErrors()) {
        return std::nullopt;
    }
    d.topology = topologyFromJson(doc, path, text, diag);
    if (!d.topology) {
        return std::nullopt;
    }
    if (!d.settings.fabric.tiers.empty()) {
        JsonSection sw(doc["switch"], path, text, "switch", diag);
        checkTierNames(sw, d.settings.fabric, *d.topology);
    }
    return diag.hasErrors() ? std::nullopt : std::optional<NetworkDescription>(std::move(d));
}

std::optional<NetworkDescription> fromHpccConfig(HpccConfig config, const std::string& topologyFile,
                                                 Diagnostics& diag) {
    if (diag.hasErrors()) {
        return std::nullopt;
    }
    std::string topology = topologyFile;
    if (topology.empty()) {
        if (config.topologyFile.empty()) {
            diag.error(
                config.path +
                ": TOPOLOGY_FILE is missing; expected the physical topology file (or --topology=FILE)");
            return std::nullopt;
        }
        topology = locateConfigInput(config, "TOPOLOGY_FILE", config.topologyFile, diag);
        if (topology.empty()) {
            return std::nullopt;
        }
    } else if (!checkReadableFile(topology, diag, "topology file (--topology)")) {
        return std::nullopt;
    }
    NetworkDescription d;
    if (simai::isSimaiTopologyFile(topology)) {
        // SimAI's pair: its topology file (GPUs, NVSwitches, switches) and its reading of the configuration.
        simai::applySimaiSemantics(config, diag);
        std::optional<TopologySpec> spec = simai::loadSimaiTopology(topology, diag);
        if (!spec) {
            return std::nullopt;
        }
        d.topology = std::make_shared<const TopologySpec>(std::move(*spec));
        checkConfigAgainstTopology(config, *d.topology, diag, {simai::kScaleUpTier});
        d.settings = packetSettingsFromHpccConfig(config);
        d.settings.form = "simai";
        d.settings.fabric.tiers[simai::kScaleUpTier].ecnEnabled = false;
        return diag.hasErrors() ? std::nullopt : std::optional<NetworkDescription>(std::move(d));
    }
    d.topology = loadTopologyDescription(topology, diag);
    if (!d.topology) {
        return std::nullopt;
    }
    checkConfigAgainstTopology(config, *d.topology, diag);
    d.settings = packetSettingsFromHpccConfig(config);
    return diag.hasErrors() ? std::nullopt : std::optional<NetworkDescription>(std::move(d));
}

}  // namespace

std::shared_ptr<const TopologySpec> loadTopologyOfNetwork(const std::string& path, Diagnostics& diag,
                                                          std::optional<PacketModelSettings>* settings) {
    if (endsWith(path, ".json")) {
        std::string text;
        nlohmann::json doc;
        Diagnostics quiet;  // read again below, with its errors
        if (readTextFile(path, text, quiet, "network description") &&
            parseJsonObject(text, path, "a JSON object", doc, quiet) && isOurDescription(doc)) {
            std::optional<NetworkDescription> d = loadNetworkDescription(path, diag);
            if (d && settings) {
                *settings = std::move(d->settings);
            }
            return d ? d->topology : nullptr;
        }
    }
    return loadTopologyDescription(path, diag);
}

PacketModelSettings packetSettingsFromHpccConfig(const HpccConfig& config) {
    PacketModelSettings s;
    s.source = config.path;
    s.form = "astra-ns3-config";
    CcSelection none;  // the algorithm is selected later, with the command line's overrides
    s.fabric = fabricSettingsFromHpccConfig(config, none);
    s.ccParameters = config;
    s.cc = "";  // follow CC_MODE
    s.ccPreset = "config";
    s.fctPath = config.fctOutputFile;
    s.pfcPath = config.pfcOutputFile;
    s.queuePath = config.qlenMonFile;
    if (!config.qlenMonFile.empty()) {
        s.queueIntervalPs = nsToPs(std::max<uint64_t>(config.qlenMonIntervalNs, 1));
        s.queueStartPs = nsToPs(config.qlenMonStartNs);
        s.queueEndPs = nsToPs(config.qlenMonEndNs);
    }
    s.timeLimitPs = config.stopTimeNs > UINT64_MAX / kPsPerNs ? UINT64_MAX : nsToPs(config.stopTimeNs);
    s.linkDown = config.linkDown;
    return s;
}

std::optional<NetworkDescription> loadNetworkDescription(const std::string& path, Diagnostics& diag,
                                                         const std::string& topologyFile) {
    const bool hpccStyle = !endsWith(path, ".yml") && !endsWith(path, ".yaml") && !endsWith(path, ".json");
    if (!topologyFile.empty() && !hpccStyle) {
        diag.error(path + ": --topology=" + topologyFile +
                   " goes with a config.txt-style configuration (SimAI.conf, ASTRA-sim's ns-3 config.txt), "
                   "whose topology it names; this description gives its own");
        return std::nullopt;
    }
    if (endsWith(path, ".yml") || endsWith(path, ".yaml")) {
        NetworkDescription d;
        d.topology = loadTopologyDescription(path, diag);
        d.settings = defaults(path);
        d.settings.form = "astra-analytical";
        return d.topology ? std::optional<NetworkDescription>(std::move(d)) : std::nullopt;
    }
    if (hpccStyle) {
        return fromHpccConfig(loadHpccConfig(path, diag), topologyFile, diag);
    }
    std::string text;
    if (!readTextFile(path, text, diag, "network configuration")) {
        return std::nullopt;
    }
    nlohmann::json doc;
    if (!parseJsonObject(text, path, "a JSON network description", doc, diag)) {
        return std::nullopt;
    }
    if (isOurDescription(doc)) {
        if (!doc.contains("topology")) {
            diag.error(path +
                       ": key 'topology' is missing; a network description needs one, e.g. "
                       "{\"topology\": {\"builder\": \"fat-tree\", \"k\": 4, \"rate\": \"100Gbps\", "
                       "\"delay\": \"1us\"}}");
            return std::nullopt;
        }
        return fromOurJson(doc, path, text, diag);
    }
    if (isAstraNs3JsonConfig(doc)) {
        return fromHpccConfig(hpccConfigFromAstraJson(doc, path, text, diag), "", diag);
    }
    if (doc.contains("CC_MODE") || doc.contains("TOPOLOGY_FILE")) {
        return fromHpccConfig(hpccConfigFromJson(doc, path, text, diag), "", diag);
    }
    NetworkDescription d;  // the analytical tools' JSON forms (dimensions, FatTree, topology-file)
    d.topology = topologyFromJson(doc, path, text, diag);
    d.settings = defaults(path);
    d.settings.form = "astra-analytical";
    return d.topology ? std::optional<NetworkDescription>(std::move(d)) : std::nullopt;
}

}  // namespace mlnet::roce
