// Policy switches for reading traces Defaults accept every trace real producers write.
#ifndef MLNET_WORKLOAD_TRACE_OPTIONS_H
#define MLNET_WORKLOAD_TRACE_OPTIONS_H

#include <cstdint>
#include <string>

namespace mlnet {

struct TraceReadOptions {
    // ASTRA-sim parity: dangling or inconsistent ctrl_deps, CPU-side communication nodes and collectives
    // ASTRA-sim cannot simulate are errors instead of warnings.
    bool strict = false;
    bool allowGzip = true;
    // Unknown NodeType values become INVALID nodes (complete at once, still release children) instead of
    // errors.
    bool skipUnknownNodeTypes = false;
    // Accept STG's legacy integer attribute comm_group as the communicator id when pg_name is absent.
    bool commGroupAlias = false;
    bool keepNames = true;
    uint32_t maxRecordBytes = 256u << 20;
};

struct TraceSetOptions {
    TraceReadOptions read;
    uint32_t numRanks = 0;      // 0: count the consecutive files <prefix>.0.et, <prefix>.1.et, ...
    std::string commGroupFile;  // ASTRA-sim --comm-group-configuration; empty: none
};

}  // namespace mlnet

#endif
