// Reads one rank's Chakra ET file into a RankTrace and checks it on its own: framing, records, attributes and
// the dependency graph (duplicate ids, dangling or self dependencies, cycles). Cross-rank checks live in
// trace-set.h.
#ifndef MLNET_WORKLOAD_RANK_TRACE_READER_H
#define MLNET_WORKLOAD_RANK_TRACE_READER_H

#include <cstdint>
#include <string>
#include <vector>

#include "trace-options.h"
#include "trace-types.h"
#include "util/diagnostics.h"

namespace mlnet {

// numRanks is the size of the trace set (0 if unknown); it bounds the peer ranks of SEND and RECV nodes.
RankTrace readRankTrace(const std::string& path, Rank rank, uint32_t numRanks,
                        const TraceReadOptions& options, Diagnostics& diag);

// The same from bytes in memory; `label` names the source in messages.
RankTrace readRankTraceFromBuffer(std::vector<uint8_t> bytes, const std::string& label, Rank rank,
                                  uint32_t numRanks, const TraceReadOptions& options, Diagnostics& diag);

// Children of every node of a CSR parent graph: children of i are children[result[i] .. result[i + 1]).
std::vector<uint32_t> childrenCsr(const std::vector<uint32_t>& begin, const std::vector<NodeIndex>& parents,
                                  std::vector<NodeIndex>& children);

// Nodes on one dependency cycle of the graph given in CSR form (parents of i are
// parents[begin[i]..begin[i+1])), in cycle order; empty when the graph is acyclic.
std::vector<NodeIndex> findDependencyCycle(const std::vector<uint32_t>& begin,
                                           const std::vector<NodeIndex>& parents);

}  // namespace mlnet

#endif
