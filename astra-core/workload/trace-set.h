// A whole trace set: one RankTrace per rank plus the communicator groups, checked across ranks (every member
// of a communicator issues the same collectives in the same order; every SEND has its RECV).
#ifndef MLNET_WORKLOAD_TRACE_SET_H
#define MLNET_WORKLOAD_TRACE_SET_H

#include <functional>
#include <string>
#include <vector>

#include "comm-groups.h"
#include "trace-options.h"
#include "trace-types.h"
#include "util/diagnostics.h"

namespace mlnet {

struct TraceSet {
    std::string prefix;
    std::vector<RankTrace> ranks;
    CommGroups groups;

    uint32_t numRanks() const { return static_cast<uint32_t>(ranks.size()); }
};

// Path of rank `rank`'s file: <prefix>.<rank>.et, or <prefix>.<rank>.et.gz when only that exists.
std::string rankTracePath(const std::string& prefix, Rank rank);

// Loads and checks every rank. Problems are reported to `diag`; the set is usable only if !diag.hasErrors().
TraceSet loadTraceSet(const std::string& prefix, const TraceSetOptions& options, Diagnostics& diag);

// The same from file contents held in memory (generated workloads, tests); `label` stands for the prefix in
// messages and rank r is named "<label>.<r>.et".
TraceSet loadTraceSetFromMemory(const std::string& label, const std::vector<std::string>& rankBytes,
                                const TraceSetOptions& options, Diagnostics& diag);

// The same from ranks produced one at a time (workloads imported or generated in memory): rankBytes(r) gives
// rank r's file contents, read and dropped before the next rank's are made, so the set never holds every
// rank's bytes at once; rankName(r) names rank r in messages.
TraceSet loadTraceSetFromRanks(const std::string& label, uint32_t numRanks,
                               const std::function<std::string(Rank)>& rankBytes,
                               const std::function<std::string(Rank)>& rankName,
                               const TraceSetOptions& options, Diagnostics& diag);

// As loadTraceSet, but throws TraceError listing the errors; warnings are returned through `warnings` if
// given.
TraceSet loadTraceSetOrThrow(const std::string& prefix, const TraceSetOptions& options,
                             Diagnostics* warnings = nullptr);

// Checks across ranks; loadTraceSet calls it. Exposed for sets assembled in memory.
void checkAcrossRanks(const TraceSet& set, Diagnostics& diag);

// The order in which ASTRA-sim's issue rule would meet this rank's nodes when nothing blocks: dependency
// order, ties broken by ascending node id. Collectives are matched across ranks in this order.
std::vector<NodeIndex> issueOrder(const RankTrace& trace);

}  // namespace mlnet

#endif
