// Internal to the network library: ASTRA-sim's network keys (topology / npus_count / bandwidth / latency, in
// YAML or JSON) and the older JSON forms ("FatTree" with "k", "topology-file"), for topology-description.cc.
#ifndef MLNET_NETWORK_ASTRA_NETWORK_KEYS_H
#define MLNET_NETWORK_ASTRA_NETWORK_KEYS_H

#include <nlohmann/json.hpp>

#include <memory>
#include <set>
#include <string>

#include "network/topology-spec.h"
#include "util/diagnostics.h"

namespace mlnet::description_detail {

// The network of an ASTRA-sim network YAML `text` read from `path`; null on errors, which name the file, line
// and key.
std::shared_ptr<const TopologySpec> topologyFromAstraYaml(const std::string& path, const std::string& text,
                                                          Diagnostics& diag);

// The network described by the keys of `doc` except `skip`: ASTRA-sim's keys in JSON (names, numbers or flat
// lists of them) or an older JSON form. `text` is the JSON read from `path`, for line numbers. Null on errors
// (as above).
std::shared_ptr<const TopologySpec> topologyFromAstraJson(const nlohmann::json& doc, const std::string& path,
                                                          const std::string& text,
                                                          const std::set<std::string>& skip,
                                                          Diagnostics& diag);

}  // namespace mlnet::description_detail

#endif
