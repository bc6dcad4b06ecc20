// Time of compute and memory nodes: replay of the recorded duration, ASTRA-sim's roofline, and the
// remote-memory models of --remote-memory-configuration.
#ifndef MLNET_SYSTEM_COMPUTE_MODEL_H
#define MLNET_SYSTEM_COMPUTE_MODEL_H

#include <vector>

#include "common/event-queue.h"
#include "system/system-config.h"
#include "workload/trace-types.h"

namespace mlnet {

class ComputeModel {
public:
    explicit ComputeModel(const SystemConfig& config);
    // duration_micros in ns (0 becomes 1 ns, as in ASTRA-sim); GPU nodes use the roofline when it is enabled.
    TimeNs durationNs(const TraceNode& node) const;
    // Empty when the node can be timed; otherwise what is missing (roofline needs num_ops and tensor_size).
    std::string whyUntimeable(const TraceNode& node) const;

private:
    bool m_roofline;
    double m_memBytesPerNs;
    double m_peakOpsPerNs;
};

// MEM_LOAD / MEM_STORE. Without memory expansion a tensor moves at local-mem-bw; the expansion models
// serialise accesses on the memory that serves the NPU (its own, its node's, or one pool) and add the remote
// latency.
class MemoryModel {
public:
    MemoryModel(const RemoteMemoryConfig& config, double localMemBwGBps, uint32_t numRanks);
    TimeNs accessNs(Rank rank, uint64_t sizeBytes, TimeNs nowNs);
    std::string whyUnusable(uint32_t numRanks) const;

private:
    RemoteMemoryConfig m_config;
    double m_localBytesPerNs;
    std::vector<TimeNs> m_busyUntil;  // per memory device
};

}  // namespace mlnet

#endif
