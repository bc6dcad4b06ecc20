// How one rank's part of a collective is cut into chunks and phases: which peers each phase talks to, with
// which algorithm and how many bytes, following ASTRA-sim's system layer (chunking, baseline and localBWAware
// decompositions over dimensions, dimension 0 = fastest-varying rank digit) plus Themis' dynamic dimension
// order.
#ifndef MLNET_SYSTEM_COLLECTIVE_PLAN_H
#define MLNET_SYSTEM_COLLECTIVE_PLAN_H

#include <cstdint>
#include <string>
#include <vector>

#include "system/system-config.h"
#include "util/diagnostics.h"
#include "workload/trace-types.h"

namespace mlnet {

// The ranks a phase talks to, in ring order; a rank's position is its index. Either a strided line through
// one dimension of the logical topology or an explicit list (flattened communicators).
struct PeerSet {
    uint32_t size = 1;
    uint32_t position = 0;
    Rank base = 0;
    uint32_t stride = 1;
    const std::vector<Rank>* list = nullptr;

    Rank at(uint32_t i) const { return list ? (*list)[i] : base + i * stride; }
};

enum class PhaseKind : uint8_t {
    AllReduce,
    ReduceScatter,
    AllGather,
    AllToAll,
    Broadcast,
    Reduce,
    Gather,
    Scatter
};

struct PhaseSpec {
    PhaseKind kind;
    AlgorithmChoice algorithm;
    PeerSet peers;
    uint64_t inputBytes;  // per rank, per chunk, entering this phase
    uint32_t dimension;   // logical dimension (flattened communicators use 0)
    uint64_t endpointDelayNs;
};

struct LogicalTopology {
    std::vector<uint32_t> dimSizes;
    std::vector<double> dimBandwidthBytesPerNs;  // for Themis
    uint32_t numNpus() const;
};

// The dimensions a collective of `rank` runs over, in ascending order, each as the rank's peer set there.
struct DimensionSpan {
    uint32_t dimension;
    PeerSet peers;
};

class CollectivePlanner {
public:
    CollectivePlanner(const SystemConfig& config, LogicalTopology topology, uint64_t endpointDelayNs);

    // Reports problems with the implementation lists this run uses for this topology (missing, lengths,
    // algorithms that cannot run there) to diag; false when there was one. Only the lists of the collective
    // types in `used` are checked, as ASTRA-sim reads a list only when a collective needs it (a type with a
    // custom implementation needs none).
    bool validate(Diagnostics& diag, const std::vector<CollectiveType>& used) const;

    // Dimensions (or one flattened span) for a collective of `rank` on communicator `members` (ascending
    // ranks). `forceFlat` asks for one line over the members (rooted collectives); `flattened` is set when a
    // sub-communicator does not align with topology dimensions and so becomes ASTRA-sim's flat ring.
    std::vector<DimensionSpan> spans(Rank rank, const std::vector<Rank>& members, uint32_t involvedDims,
                                     bool forceFlat, bool& flattened) const;

    // Chunk sizes of a collective of `commSizeBytes` (ASTRA-sim's determine_chunk_size; the small-size
    // rewrite applies to every type but ALL_GATHER).
    std::vector<uint64_t> chunks(CollectiveType type, uint64_t commSizeBytes) const;

    // Phases for one chunk. `themisLoadNs` (per dimension, per rank) is read and updated when Themis ordering
    // is on.
    std::vector<PhaseSpec> phases(CollectiveType type, uint64_t chunkBytes,
                                  const std::vector<DimensionSpan>& spans, bool flattened,
                                  std::vector<double>& themisLoadNs) const;

    const LogicalTopology& topology() const { return m_topology; }

private:
    AlgorithmChoice algorithmFor(CollectiveType type, uint32_t dimension, bool flattened) const;

    const SystemConfig& m_config;
    LogicalTopology m_topology;
    std::vector<uint32_t> m_strides;
    uint64_t m_endpointDelayNs;
};

}  // namespace mlnet

#endif
