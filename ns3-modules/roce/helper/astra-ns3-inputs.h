// The inputs of ASTRA-sim's ns-3 backend, read unchanged so that its users switch by changing the binary's
// name:
// - its JSON network configuration (config.json: the config.txt keys in lower case, grouped into sections
//   "files", "switch", "packet", "congestion_control", "simulator", "link", "trace", "ecn", "queue_monitor";
//   the ECN maps as objects keyed by rate; LINK_DOWN as link_down_time / link_down_a / link_down_b),
//   converted to the HPCC configuration it stands for;
// - the logical topology, {"logical-dims": ["8", "2"]}: the collectives' dimensions (strings of decimal
//   integers, as ASTRA-sim writes them; numbers are accepted too). The product is the number of NPUs: ranks
//   0..N-1 run on the first N hosts of the physical topology.
#ifndef MLNET_ROCE_ASTRA_NS3_INPUTS_H
#define MLNET_ROCE_ASTRA_NS3_INPUTS_H

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "hpcc-config.h"
#include "util/diagnostics.h"

namespace mlnet::roce {

// True when a parsed JSON network configuration has ASTRA-sim's sections rather than our keys.
bool isAstraNs3JsonConfig(const nlohmann::json& doc);

// Converts ASTRA-sim's config.json (parsed from `path`, whose `text` gives lines). Unknown sections and keys
// are errors naming them; values are checked by the HPCC key table.
HpccConfig hpccConfigFromAstraJson(const nlohmann::json& doc, const std::string& path,
                                   const std::string& text, Diagnostics& diag);

// Reads {"logical-dims": [...]}; every entry a whole number >= 1.
std::optional<std::vector<uint32_t>> loadLogicalTopology(const std::string& path, Diagnostics& diag);

}  // namespace mlnet::roce

#endif
