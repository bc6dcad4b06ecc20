// The per-collective part of the run reports (mlnet-analytical --report, mlnet-ns3's summary.json): one JSON
// row per collective and rank, the same fields in both models so their reports compare key by key.
#ifndef MLNET_SYSTEM_COLLECTIVE_REPORT_H
#define MLNET_SYSTEM_COLLECTIVE_REPORT_H

#include <nlohmann/json.hpp>

#include <vector>

#include "system/collectives/collective-record.h"

namespace mlnet {

// rank, node, type, size_bytes, communicator, chunks, start_ns, end_ns and duration_ns (null while
// unfinished), bytes_sent_per_dim.
nlohmann::ordered_json collectivesJson(const std::vector<CollectiveRecord>& records);

// Adds "in_network_reduction" (reductions, bytes_in, bytes_out of the switches' reduction engines) to a
// report when any switch reduced.
void addInNetworkReduction(nlohmann::ordered_json& report, uint64_t reductions, uint64_t bytesIn,
                           uint64_t bytesOut);

}  // namespace mlnet

#endif
