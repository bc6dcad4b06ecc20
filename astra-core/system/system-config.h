// ASTRA-sim's system JSON (--system-configuration) and remote-memory JSON (--remote-memory-configuration),
// read strictly: every key ASTRA-sim 2.x parses is understood, keys it accepts but ignores are warned about,
// anything else is an error naming the file and the key.
#ifndef MLNET_SYSTEM_SYSTEM_CONFIG_H
#define MLNET_SYSTEM_SYSTEM_CONFIG_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "util/diagnostics.h"
#include "workload/trace-types.h"

namespace mlnet {

enum class CollectiveAlgorithm {
    Ring,
    Direct,
    HalvingDoubling,
    DoubleBinaryTree,
    OneRing,
    OneDirect,
    OneHalvingDoubling
};
enum class SchedulingPolicy { Lifo, Fifo, Explicit };
enum class CollectiveOptimization { Baseline, LocalBwAware };
// Order in which a chunk visits the dimensions: fixed ascending (ASTRA-sim 2.x) or Themis' dynamic load
// balancing.
enum class DimensionScheduling { Ascending, Themis };

struct AlgorithmChoice {
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
    uint32_t window = 0;  // directN: messages in flight (0: n - 1)
};

struct SystemConfig {
    SchedulingPolicy schedulingPolicy = SchedulingPolicy::Lifo;
    CollectiveOptimization collectiveOptimization = CollectiveOptimization::Baseline;
    DimensionScheduling dimensionScheduling = DimensionScheduling::Ascending;
    uint32_t activeChunksPerDimension = 1;
    uint32_t preferredDatasetSplits = 0;  // required
    uint32_t queuesPerDimension = 1;      // --num-queues-per-dim (command line, not JSON)
    uint64_t endpointDelayNs = 10;
    double localMemBwGBps = 0;  // GB/s with GB = 1e9 bytes; 0: no local reduction cost
    double peakPerfTflops = 0;
    bool rooflineEnabled = false;
    bool replayOnly = false;
    bool traceEnabled = false;
    // One entry per logical dimension, per collective.
    std::vector<AlgorithmChoice> allReduce, reduceScatter, allGather, allToAll;
    // Custom (MSCCL-style) implementations: Chakra trace prefixes, one per collective kind, empty if unused.
    std::string allReduceCustom, reduceScatterCustom, allGatherCustom, allToAllCustom;
    std::string path;  // where it was read from, for messages
    // The NCCL model (system/nccl/): the collective types it runs ("collective-library": "nccl", or an
    // implementation list ["nccl"]), the GPU type NCCL tunes for ("nccl-gpu") and the NCCL_* environment
    // keys as given (checked by the model).
    bool ncclFor[kNumCollectiveTypes] = {};
    std::string ncclGpu = "h100";
    std::vector<std::pair<std::string, std::string>> ncclEnv;
    bool usesNccl() const;
    // ASTRA-sim's sub-communicator rings take a fixed 10 ns per step instead of endpoint-delay; SimAI pays
    // its per-flow send latency on every communicator. Not a JSON key: set for the built-in SimAI system
    // only.
    bool endpointDelayOnSubCommunicators = false;
};

SystemConfig loadSystemConfig(const std::string& path, Diagnostics& diag);
SystemConfig parseSystemConfig(const std::string& jsonText, const std::string& path, Diagnostics& diag);

enum class MemoryType { NoMemoryExpansion, PerNodeMemoryExpansion, PerNpuMemoryExpansion, MemoryPool };

struct RemoteMemoryConfig {
    MemoryType type = MemoryType::NoMemoryExpansion;
    uint32_t numNodes = 0;
    uint32_t numNpusPerNode = 0;
    uint64_t remoteMemLatencyNs = 0;
    double remoteMemBwGBps = 0;
};

RemoteMemoryConfig loadRemoteMemoryConfig(const std::string& path, Diagnostics& diag);

std::string_view toString(CollectiveAlgorithm algorithm);

}  // namespace mlnet

#endif
