// What each fuzz target does with one input, shared by the libFuzzer targets (fuzz-*.cc) and by the
// regression test that replays every input the fuzzers ever found (tests/fuzz/regressions/<target>/).
// Every input must end in a located error or a result: never a crash, an uncaught exception or a hang.
#ifndef MLNET_FUZZ_HARNESSES_H
#define MLNET_FUZZ_HARNESSES_H

#include <cstdint>
#include <string>
#include <vector>

#include "astra-ns3-inputs.h"
#include "flow-file.h"
#include "flow-size-cdf.h"
#include "fuzz-input.h"
#include "hpcc-config.h"
#include "network-description.h"
#include "network/routing.h"
#include "network/topology-builders.h"
#include "network/topology-description.h"
#include "system/system-config.h"
#include "util/json-text.h"
#include "workload/comm-groups.h"
#include "workload/rank-trace-reader.h"

namespace mlnet::fuzz {

// The Chakra ET reader on arbitrary bytes: framing (varints, lengths, gzip), protobuf records, node decoding
// and the per-rank graph checks.
inline void traceRecord(const uint8_t* data, std::size_t size) {
    for (bool strict : {false, true}) {
        TraceReadOptions options;
        options.strict = strict;
        Diagnostics diag;
        readRankTraceFromBuffer(std::vector<uint8_t>(data, data + size), "fuzz.0.et", 0, 2, options, diag);
    }
}

// config.txt and its JSON form, as mlnet-flows reads them.
inline void hpccConfig(const uint8_t* data, std::size_t size) {
    Diagnostics text, json;
    roce::loadHpccConfig(inputFile(data, size, ".txt"), text);
    roce::loadJsonConfig(inputFile(data, size, ".json"), json);
}

// Network descriptions: HPCC topology files, our JSON descriptions and ASTRA-sim network YAML, through the
// one loader every tool uses, then routed when valid and small.
inline void topology(const uint8_t* data, std::size_t size) {
    for (const char* suffix : {".txt", ".json", ".yml"}) {
        Diagnostics diag;
        const auto spec = loadTopologyDescription(inputFile(data, size, suffix), diag);
        if (spec && spec->numVertices() <= 4096) {
            Routing::build(*spec, 1);
        }
    }
}

// HPCC flow files against a fixed 16-host fat-tree.
inline void flowFile(const uint8_t* data, std::size_t size) {
    static const TopologySpec tree = buildFatTree(4, LinkSettings{});
    Diagnostics diag;
    roce::loadFlowFile(inputFile(data, size, ".txt"), tree, diag);
}

// ASTRA-sim system JSON and remote-memory JSON.
inline void systemConfig(const uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    Diagnostics system, memory;
    parseSystemConfig(text, "system.json", system);
    loadRemoteMemoryConfig(inputFile(data, size, ".json"), memory);
}

// The smaller inputs: comm-group JSON (for 16 ranks), flow-size CDFs, ASTRA-sim's logical topology JSON and
// its ns-3 backend's config.json.
inline void smallInputs(const uint8_t* data, std::size_t size) {
    Diagnostics groups, cdf, logical, astra;
    CommGroups(16).loadJson(inputFile(data, size, ".json"), groups);
    roce::FlowSizeCdf::Load(inputFile(data, size, ".txt"), cdf);
    roce::loadLogicalTopology(inputFile(data, size, ".json"), logical);
    const std::string text(reinterpret_cast<const char*>(data), size);
    nlohmann::json doc;
    if (parseJsonObject(text, "config.json", "an object", doc, astra) && roce::isAstraNs3JsonConfig(doc)) {
        roce::hpccConfigFromAstraJson(doc, "config.json", text, astra);
    }
}

// A JSON network configuration through the reader mlnet-ns3 uses: our description with all its sections
// (topology, switch and tiers, nic, congestion-control, links, outputs, run, background, model-rules) and
// ASTRA-sim's config.json (config.txt and YAML have their targets). Files a configuration names (a topology
// file, a CDF) are looked up beside the input and usually absent: that is an error too.
inline void networkDescription(const uint8_t* data, std::size_t size) {
    Diagnostics diag;
    roce::loadNetworkDescription(inputFile(data, size, ".json"), diag);
}

}  // namespace mlnet::fuzz

#endif
