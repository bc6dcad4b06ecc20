// The per-collective part of the run reports (mlnet-analytical --report, mlnet-ns3's summary.json): one JSON
// row per collective and rank, the same fields in both models so their reports compare key by key.
#ifndef MLNET_SYSTEM_COLLECTIVE_REPORT_H
#define MLNET_SYSTEM_COLLECTIVE_REPORT_H

#include <nlohmann/json.hpp>

#include <vector>

#include "system/collectives/collective-record.h"

namespace mlnet {

// The per-collective rows of a report: rank, node, type, size_bytes, communicator, chunks, start_ns, end_ns
// and duration_ns (null while unfinished), bytes_sent_per_dim, and nccl where NCCL ran the collective. They
// are written straight into the report's text: as JSON values a step's million rows took ten times their
// text's memory (4.9 GB for a 280-GPU step at packet level). The report holds collectivesPlaceholder() where
// the array goes; dumpReport writes the report as nlohmann's dump(1) would with the rows there.
nlohmann::ordered_json collectivesPlaceholder();
std::string dumpReport(const nlohmann::ordered_json& report, const std::vector<CollectiveRecord>& records);

// Adds "in_network_reduction" (reductions, bytes_in, bytes_out of the switches' reduction engines) to a
// report when any switch reduced.
void addInNetworkReduction(nlohmann::ordered_json& report, uint64_t reductions, uint64_t bytesIn,
                           uint64_t bytesOut);

}  // namespace mlnet

#endif
