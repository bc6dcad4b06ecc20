#include "system-config.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <sstream>

#include "hardware/gpu-catalogue.h"
#include "util/json-text.h"

namespace mlnet {

namespace {

using nlohmann::json;

class KeyReader {
public:
    KeyReader(const json& doc, const std::string& path, Diagnostics& diag)
        : m_doc(doc), m_path(path), m_diag(diag) {}

    std::string where(const std::string& key) const { return m_path + ": key '" + key + "'"; }

    template <typename T>
    void unsignedInt(const std::string& key, T& out, uint64_t min = 0,
                     uint64_t max = std::numeric_limits<uint64_t>::max()) {
        if (!m_doc.contains(key)) {
            return;
        }
        const json& v = m_doc[key];
        if (!v.is_number_integer() ||
            (v.is_number_integer() && v.get<int64_t>() < static_cast<int64_t>(min)) ||
            v.get<uint64_t>() > std::numeric_limits<T>::max() || v.get<uint64_t>() > max) {
            m_diag.error(where(key) + ": expected an integer in " + std::to_string(min) + ".." +
                         std::to_string(std::min<uint64_t>(max, std::numeric_limits<T>::max())) + ", found " +
                         briefJson(v));
            return;
        }
        out = v.get<T>();
    }
    // A number within a physical range [min, max] (`unit` for the message).
    void number(const std::string& key, double& out, double min, double max, const char* unit) {
        if (!m_doc.contains(key)) {
            return;
        }
        const json& v = m_doc[key];
        if (!v.is_number() || !(v.get<double>() >= min && v.get<double>() <= max)) {
            std::ostringstream range;
            range << min << ".." << max;
            m_diag.error(where(key) + ": expected a number in " + range.str() + " (" + unit + "), found " +
                         briefJson(v));
            return;
        }
        out = v.get<double>();
    }
    void flag(const std::string& key, bool& out) {
        if (!m_doc.contains(key)) {
            return;
        }
        const json& v = m_doc[key];
        if (v.is_boolean()) {
            out = v.get<bool>();
        } else if (v.is_number_integer() && (v.get<int64_t>() == 0 || v.get<int64_t>() == 1)) {
            out = v.get<int64_t>() == 1;
        } else {
            m_diag.error(where(key) + ": expected 0 or 1, found " + briefJson(v));
        }
    }
    template <typename E>
    void choice(const std::string& key, E& out, std::initializer_list<std::pair<const char*, E>> options) {
        if (!m_doc.contains(key)) {
            return;
        }
        const json& v = m_doc[key];
        std::string names;
        for (const auto& [name, value] : options) {
            if (v.is_string() && v.get<std::string>() == name) {
                out = value;
                return;
            }
            names += names.empty() ? "" : ", ";
            names += name;
        }
        m_diag.error(where(key) + ": expected one of " + names + ", found " + briefJson(v));
    }
    void algorithms(const std::string& key, std::vector<AlgorithmChoice>& out) {
        if (!m_doc.contains(key)) {
            return;
        }
        const json& v = m_doc[key];
        if (!v.is_array() || v.empty()) {
            m_diag.error(where(key) + ": expected a non-empty list of algorithm names, one per dimension");
            return;
        }
        for (const json& e : v) {
            AlgorithmChoice c;
            const std::string name = e.is_string() ? e.get<std::string>() : "";
            if (name == "ring") {
                c.algorithm = CollectiveAlgorithm::Ring;
            } else if (name.rfind("direct", 0) == 0) {
                c.algorithm = CollectiveAlgorithm::Direct;
                const std::string n = name.substr(6);
                if (!n.empty()) {
                    if (n.find_first_not_of("0123456789") != std::string::npos || n.size() > 9 ||
                        std::stoul(n) == 0) {
                        m_diag.error(where(key) + ": '" + name + "': directN needs a positive window N");
                        continue;
                    }
                    c.window = static_cast<uint32_t>(std::stoul(n));
                }
            } else if (name == "halvingDoubling") {
                c.algorithm = CollectiveAlgorithm::HalvingDoubling;
            } else if (name == "doubleBinaryTree") {
                c.algorithm = CollectiveAlgorithm::DoubleBinaryTree;
            } else if (name == "oneRing") {
                c.algorithm = CollectiveAlgorithm::OneRing;
            } else if (name == "oneDirect") {
                c.algorithm = CollectiveAlgorithm::OneDirect;
            } else if (name == "oneHalvingDoubling") {
                c.algorithm = CollectiveAlgorithm::OneHalvingDoubling;
            } else {
                m_diag.error(where(key) + ": unknown algorithm " + briefJson(e) +
                             " (expected ring, direct, directN, halvingDoubling, doubleBinaryTree, oneRing, "
                             "oneDirect, oneHalvingDoubling)");
                continue;
            }
            out.push_back(c);
        }
    }
    void custom(const std::string& key, std::string& out) {
        if (!m_doc.contains(key)) {
            return;
        }
        const json& v = m_doc[key];
        if (!v.is_array() || v.size() != 1 || !v[0].is_string()) {
            m_diag.error(where(key) + ": expected a list with one Chakra trace prefix");
            return;
        }
        out = v[0].get<std::string>();
    }

private:
    const json& m_doc;
    const std::string& m_path;
    Diagnostics& m_diag;
};

}  // namespace

std::string_view toString(CollectiveAlgorithm algorithm) {
    switch (algorithm) {
        case CollectiveAlgorithm::Ring:
            return "ring";
        case CollectiveAlgorithm::Direct:
            return "direct";
        case CollectiveAlgorithm::HalvingDoubling:
            return "halvingDoubling";
        case CollectiveAlgorithm::DoubleBinaryTree:
            return "doubleBinaryTree";
        case CollectiveAlgorithm::OneRing:
            return "oneRing";
        case CollectiveAlgorithm::OneDirect:
            return "oneDirect";
        case CollectiveAlgorithm::OneHalvingDoubling:
            return "oneHalvingDoubling";
    }
    return "?";
}

SystemConfig parseSystemConfig(const std::string& text, const std::string& path, Diagnostics& diag) {
    SystemConfig c;
    c.path = path;
    json doc;
    if (!parseJsonObject(text, path, "a JSON object of system-configuration keys", doc, diag)) {
        return c;
    }
    static const char* const kKnown[] = {
        "scheduling-policy", "collective-optimization", "active-chunks-per-dimension",
        "preferred-dataset-splits", "endpoint-delay", "local-mem-bw", "peak-perf", "roofline-enabled",
        "replay-only", "trace-enabled", "track-local-mem", "local-mem-trace-filename", "model-shared-bus",
        "L", "o", "g", "G", "local-reduction-delay", "all-reduce-implementation",
        "reduce-scatter-implementation", "all-gather-implementation", "all-to-all-implementation",
        "all-reduce-implementation-custom", "reduce-scatter-implementation-custom",
        "all-gather-implementation-custom", "all-to-all-implementation-custom", "inter-dimension-scheduling",
        "collective-library", "nccl-gpu",
        // accepted by ASTRA-sim but without effect there
        "boost-mode", "intra-dimension-scheduling"};
    for (auto it = doc.begin(); it != doc.end(); ++it) {
        if (it.key().rfind("NCCL_", 0) == 0) {
            // NCCL's environment, given as keys: the NCCL model checks names and values.
            const json& v = it.value();
            if (!v.is_string() && !v.is_number_integer()) {
                diag.error(path + ": key '" + it.key() + "': " + briefJson(v) +
                           " is not an environment value; expected a string or a whole number");
                continue;
            }
            c.ncclEnv.emplace_back(it.key(), v.is_string() ? v.get<std::string>() : v.dump());
        } else if (std::find(std::begin(kKnown), std::end(kKnown), it.key()) == std::end(kKnown)) {
            diag.error(path + ": unknown key '" + it.key() + "'");
        }
    }
    KeyReader r(doc, path, diag);
    r.choice("scheduling-policy", c.schedulingPolicy,
             {{"LIFO", SchedulingPolicy::Lifo},
              {"FIFO", SchedulingPolicy::Fifo},
              {"EXPLICIT", SchedulingPolicy::Explicit}});
    r.choice("collective-optimization", c.collectiveOptimization,
             {{"baseline", CollectiveOptimization::Baseline},
              {"localBWAware", CollectiveOptimization::LocalBwAware}});
    r.choice("inter-dimension-scheduling", c.dimensionScheduling,
             {{"ascending", DimensionScheduling::Ascending},
              {"baseline",
               DimensionScheduling::Ascending},  // what ASTRA-sim users' tools write for the fixed order
              {"themis", DimensionScheduling::Themis},
              {"OfflineGreedy", DimensionScheduling::Themis}});
    r.unsignedInt("active-chunks-per-dimension", c.activeChunksPerDimension, 1);
    r.unsignedInt("preferred-dataset-splits", c.preferredDatasetSplits, 1);
    // Physical ranges: beyond them a run's times no longer fit the simulated clock (they used to wrap).
    r.unsignedInt("endpoint-delay", c.endpointDelayNs, 0, 1'000'000'000'000ull);  // up to 1000 s
    r.number("local-mem-bw", c.localMemBwGBps, 1e-3, 1e6, "GB/s");
    r.number("peak-perf", c.peakPerfTflops, 1e-6, 1e9, "TFLOPS");
    r.flag("roofline-enabled", c.rooflineEnabled);
    r.flag("replay-only", c.replayOnly);
    r.flag("trace-enabled", c.traceEnabled);
    bool unused = false;
    r.flag("track-local-mem", unused);
    r.flag("model-shared-bus", unused);
    if (unused && doc.contains("model-shared-bus") && doc["model-shared-bus"] == 1) {
        diag.error(r.where("model-shared-bus") +
                   ": the LogGP shared-bus model is not supported; set it to 0");
    }
    for (const char* key : {"boost-mode", "intra-dimension-scheduling", "L", "o", "g", "G",
                            "local-reduction-delay", "local-mem-trace-filename", "track-local-mem"}) {
        if (doc.contains(key)) {
            diag.warning(r.where(key) + ": accepted for compatibility; it has no effect");
        }
    }
    // NCCL runs every type it can with "collective-library": "nccl"; one type with its list ["nccl"].
    if (doc.contains("collective-library")) {
        const json& v = doc["collective-library"];
        if (v == "nccl") {
            for (CollectiveType t :
                 {CollectiveType::AllReduce, CollectiveType::AllGather, CollectiveType::ReduceScatter,
                  CollectiveType::AllToAll, CollectiveType::Broadcast, CollectiveType::Reduce}) {
                c.ncclFor[static_cast<int>(t)] = true;
            }
        } else if (v != "astra-sim") {
            diag.error(r.where("collective-library") + ": " + briefJson(v) +
                       "; expected \"nccl\" or \"astra-sim\"");
        }
    }
    if (doc.contains("nccl-gpu")) {
        const json& v = doc["nccl-gpu"];
        if (!v.is_string()) {
            diag.error(r.where("nccl-gpu") + ": " + briefJson(v) + " is not a GPU name; expected " +
                       hardware::gpuTypeNames());
        } else {
            c.ncclGpu = v.get<std::string>();
        }
    }
    const std::pair<const char*, CollectiveType> lists[] = {
        {"all-reduce-implementation", CollectiveType::AllReduce},
        {"reduce-scatter-implementation", CollectiveType::ReduceScatter},
        {"all-gather-implementation", CollectiveType::AllGather},
        {"all-to-all-implementation", CollectiveType::AllToAll}};
    std::vector<AlgorithmChoice>* const outs[] = {&c.allReduce, &c.reduceScatter, &c.allGather, &c.allToAll};
    for (std::size_t i = 0; i < 4; ++i) {
        const char* key = lists[i].first;
        if (doc.contains(key) && doc[key] == json::array({"nccl"})) {
            c.ncclFor[static_cast<int>(lists[i].second)] = true;  // NCCL's model instead of ASTRA-sim's list
        } else {
            r.algorithms(key, *outs[i]);
        }
    }
    r.custom("all-reduce-implementation-custom", c.allReduceCustom);
    r.custom("reduce-scatter-implementation-custom", c.reduceScatterCustom);
    r.custom("all-gather-implementation-custom", c.allGatherCustom);
    r.custom("all-to-all-implementation-custom", c.allToAllCustom);
    if (c.preferredDatasetSplits == 0) {
        diag.error(path + ": key 'preferred-dataset-splits' is required (chunks per collective, at least 1)");
    }
    return c;
}

bool SystemConfig::usesNccl() const {
    return std::any_of(std::begin(ncclFor), std::end(ncclFor), [](bool b) { return b; });
}

SystemConfig loadSystemConfig(const std::string& path, Diagnostics& diag) {
    std::string text;
    if (!readTextFile(path, text, diag, "configuration")) {
        SystemConfig c;
        c.path = path;
        return c;
    }
    return parseSystemConfig(text, path, diag);
}

RemoteMemoryConfig loadRemoteMemoryConfig(const std::string& path, Diagnostics& diag) {
    RemoteMemoryConfig c;
    std::string text;
    json doc;
    if (!readTextFile(path, text, diag, "configuration") ||
        !parseJsonObject(text, path, "a JSON object of remote-memory keys", doc, diag)) {
        return c;
    }
    for (auto it = doc.begin(); it != doc.end(); ++it) {
        static const char* const kKnown[] = {"memory-type", "num-nodes", "num-npus-per-node",
                                             "remote-mem-latency", "remote-mem-bw"};
        if (std::find(std::begin(kKnown), std::end(kKnown), it.key()) == std::end(kKnown)) {
            diag.error(path + ": unknown key '" + it.key() + "'");
        }
    }
    KeyReader r(doc, path, diag);
    if (!doc.contains("memory-type")) {
        diag.error(path +
                   ": key 'memory-type' is required (NO_MEMORY_EXPANSION, PER_NODE_MEMORY_EXPANSION, "
                   "PER_NPU_MEMORY_EXPANSION or MEMORY_POOL)");
        return c;
    }
    r.choice("memory-type", c.type,
             {{"NO_MEMORY_EXPANSION", MemoryType::NoMemoryExpansion},
              {"PER_NODE_MEMORY_EXPANSION", MemoryType::PerNodeMemoryExpansion},
              {"PER_NPU_MEMORY_EXPANSION", MemoryType::PerNpuMemoryExpansion},
              {"MEMORY_POOL", MemoryType::MemoryPool}});
    r.unsignedInt("num-nodes", c.numNodes);
    r.unsignedInt("num-npus-per-node", c.numNpusPerNode);
    r.unsignedInt("remote-mem-latency", c.remoteMemLatencyNs, 0, 1'000'000'000'000ull);
    r.number("remote-mem-bw", c.remoteMemBwGBps, 1e-3, 1e6, "GB/s");
    if (c.type != MemoryType::NoMemoryExpansion) {
        for (const char* key : {"num-nodes", "num-npus-per-node", "remote-mem-latency", "remote-mem-bw"}) {
            if (!doc.contains(key)) {
                diag.error(path + ": key '" + key + "' is required for this memory-type");
            }
        }
        if (doc.contains("remote-mem-bw") && c.remoteMemBwGBps <= 0) {
            diag.error(r.where("remote-mem-bw") + ": must be positive");
        }
    }
    return c;
}

}  // namespace mlnet
