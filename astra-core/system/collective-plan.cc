#include "collective-plan.h"

#include <algorithm>
#include <numeric>

namespace mlnet {

namespace {

// ASTRA-sim's sub-communicator rings use the "Fast" memory-bus path: a fixed 10 ns instead of endpoint-delay.
constexpr uint64_t kFlattenedEndpointDelayNs = 10;

bool isOneAlgorithm(CollectiveAlgorithm a) {
    return a == CollectiveAlgorithm::OneRing || a == CollectiveAlgorithm::OneDirect ||
           a == CollectiveAlgorithm::OneHalvingDoubling;
}

AlgorithmChoice dimensional(AlgorithmChoice c) {
    switch (c.algorithm) {
        case CollectiveAlgorithm::OneRing:
            c.algorithm = CollectiveAlgorithm::Ring;
            break;
        case CollectiveAlgorithm::OneDirect:
            c.algorithm = CollectiveAlgorithm::Direct;
            break;
        case CollectiveAlgorithm::OneHalvingDoubling:
            c.algorithm = CollectiveAlgorithm::HalvingDoubling;
            break;
        default:
            break;
    }
    return c;
}

}  // namespace

uint32_t LogicalTopology::numNpus() const {
    return std::accumulate(dimSizes.begin(), dimSizes.end(), uint32_t{1}, std::multiplies<>());
}

CollectivePlanner::CollectivePlanner(const SystemConfig& config, LogicalTopology topology,
                                     uint64_t endpointDelayNs)
    : m_config(config), m_topology(std::move(topology)), m_endpointDelayNs(endpointDelayNs) {
    uint32_t stride = 1;
    for (uint32_t size : m_topology.dimSizes) {
        m_strides.push_back(stride);
        stride *= size;
    }
}

namespace {

// The implementation list a collective type takes its algorithms from (rooted collectives and barriers use
// all-reduce's, as ASTRA-sim does) and that list's key.
const std::vector<AlgorithmChoice>& listFor(const SystemConfig& c, CollectiveType type,
                                            const char** key = nullptr) {
    const char* k = "all-reduce-implementation";
    const std::vector<AlgorithmChoice>* list = &c.allReduce;
    switch (type) {
        case CollectiveType::ReduceScatter:
        case CollectiveType::ReduceScatterBlock:
            k = "reduce-scatter-implementation";
            list = &c.reduceScatter;
            break;
        case CollectiveType::AllGather:
            k = "all-gather-implementation";
            list = &c.allGather;
            break;
        case CollectiveType::AllToAll:
            k = "all-to-all-implementation";
            list = &c.allToAll;
            break;
        default:
            break;
    }
    if (key) {
        *key = k;
    }
    return *list;
}

}  // namespace

bool CollectivePlanner::validate(Diagnostics& diag, const std::vector<CollectiveType>& used) const {
    const std::size_t before = diag.errorCount();
    const std::size_t dims = m_topology.dimSizes.size();
    auto check = [&](const char* key, const std::vector<AlgorithmChoice>& list, bool allowTree) {
        if (list.empty()) {
            diag.error(m_config.path + ": key '" + key + "' is required (one algorithm per dimension)");
            return;
        }
        const bool one = list.size() == 1 && isOneAlgorithm(list[0].algorithm);
        if (!one && list.size() != dims) {
            diag.error(m_config.path + ": key '" + key + "' lists " + std::to_string(list.size()) +
                       " algorithms but the network has " + std::to_string(dims) +
                       " dimensions; give one per dimension (ASTRA-sim would silently use only the first " +
                       std::to_string(list.size()) + ")");
        }
        for (std::size_t d = 0; d < list.size(); ++d) {
            const AlgorithmChoice a = dimensional(list[d]);
            if (a.algorithm == CollectiveAlgorithm::DoubleBinaryTree && !allowTree) {
                diag.error(m_config.path + ": key '" + key +
                           "': doubleBinaryTree implements all-reduce only");
            }
            const uint32_t n = one ? m_topology.numNpus() : (d < dims ? m_topology.dimSizes[d] : 1);
            const bool powerOfTwo = (n & (n - 1)) == 0;
            if ((a.algorithm == CollectiveAlgorithm::HalvingDoubling ||
                 a.algorithm == CollectiveAlgorithm::DoubleBinaryTree) &&
                !powerOfTwo) {
                diag.error(m_config.path + ": key '" + key +
                           "': " + std::string(toString(list[d].algorithm)) +
                           " needs a power-of-two group, but dimension " + std::to_string(d) + " has " +
                           std::to_string(n) + " NPUs");
            }
        }
    };
    std::vector<const std::vector<AlgorithmChoice>*> checked;
    for (CollectiveType type : used) {
        const char* key = nullptr;
        const std::vector<AlgorithmChoice>& list = listFor(m_config, type, &key);
        if (std::find(checked.begin(), checked.end(), &list) != checked.end()) {
            continue;
        }
        checked.push_back(&list);
        check(key, list, &list == &m_config.allReduce);
        if (&list == &m_config.allToAll) {
            for (const AlgorithmChoice& a : list) {
                if (dimensional(a).algorithm == CollectiveAlgorithm::HalvingDoubling) {
                    diag.error(m_config.path +
                               ": key 'all-to-all-implementation': halvingDoubling has no all-to-all");
                }
            }
        }
    }
    return diag.errorCount() == before;
}

AlgorithmChoice CollectivePlanner::algorithmFor(CollectiveType type, uint32_t dimension,
                                                bool flattened) const {
    const std::vector<AlgorithmChoice>* list = &listFor(m_config, type);
    if (list->empty()) {
        return {};
    }
    if (flattened && list->size() > 1) {
        return {};  // ASTRA-sim forces ring on flattened communicators of multi-dimensional systems
    }
    return dimensional((*list)[std::min<std::size_t>(dimension, list->size() - 1)]);
}

std::vector<DimensionSpan> CollectivePlanner::spans(Rank rank, const std::vector<Rank>& members,
                                                    uint32_t involvedDims, bool forceFlat,
                                                    bool& flattened) const {
    flattened = false;
    std::vector<DimensionSpan> out;
    if (forceFlat) {
        const auto position = std::lower_bound(members.begin(), members.end(), rank) - members.begin();
        if (members.size() > 1) {
            out.push_back({0, PeerSet{static_cast<uint32_t>(members.size()), static_cast<uint32_t>(position),
                                      0, 1, &members}});
        }
        return out;
    }
    const std::size_t dims = m_topology.dimSizes.size();
    const bool world = members.size() == m_topology.numNpus();
    const bool one = !m_config.allReduce.empty() && isOneAlgorithm(m_config.allReduce[0].algorithm);
    if (world && !one) {
        for (uint32_t d = 0; d < dims; ++d) {
            const uint32_t n = m_topology.dimSizes[d];
            if (n <= 1 || (d < 32 && !(involvedDims >> d & 1))) {
                continue;
            }
            const uint32_t coordinate = rank / m_strides[d] % n;
            out.push_back(
                {d, PeerSet{n, coordinate, rank - coordinate * m_strides[d], m_strides[d], nullptr}});
        }
        return out;
    }
    if (!world) {
        // A communicator aligned with topology dimensions (all NPUs that differ from `rank` only in a set of
        // whole dimensions) keeps those dimensions instead of becoming a flat ring.
        std::vector<uint32_t> varying;
        uint64_t expected = 1;
        for (uint32_t d = 0; d < dims; ++d) {
            const uint32_t n = m_topology.dimSizes[d];
            const Rank other = rank - (rank / m_strides[d] % n) * m_strides[d] +
                               ((rank / m_strides[d] + 1) % n) * m_strides[d];
            if (n > 1 && std::binary_search(members.begin(), members.end(), other)) {
                varying.push_back(d);
                expected *= n;
            }
        }
        bool aligned = expected == members.size() && !varying.empty();
        for (std::size_t i = 0; aligned && i < members.size(); ++i) {
            for (uint32_t d = 0; d < dims && aligned; ++d) {
                const bool vary = std::find(varying.begin(), varying.end(), d) != varying.end();
                if (!vary && members[i] / m_strides[d] % m_topology.dimSizes[d] !=
                                 rank / m_strides[d] % m_topology.dimSizes[d]) {
                    aligned = false;
                }
            }
        }
        if (aligned) {
            for (uint32_t d : varying) {
                const uint32_t n = m_topology.dimSizes[d];
                const uint32_t coordinate = rank / m_strides[d] % n;
                out.push_back(
                    {d, PeerSet{n, coordinate, rank - coordinate * m_strides[d], m_strides[d], nullptr}});
            }
            return out;
        }
    }
    flattened = !world;
    const auto position = std::lower_bound(members.begin(), members.end(), rank) - members.begin();
    if (members.size() > 1) {
        out.push_back({0, PeerSet{static_cast<uint32_t>(members.size()), static_cast<uint32_t>(position), 0,
                                  1, &members}});
    }
    return out;
}

std::vector<uint64_t> CollectivePlanner::chunks(CollectiveType type, uint64_t commSizeBytes) const {
    const uint64_t splits = m_config.preferredDatasetSplits;
    uint64_t size = commSizeBytes;
    uint64_t chunk = size / splits;
    if (type != CollectiveType::AllGather && chunk < m_topology.numNpus()) {
        chunk = m_topology.numNpus();
        size = splits * chunk;
    }
    if (chunk == 0) {
        return {size};  // an all-gather shard smaller than the split count travels whole
    }
    // Every stream carries a full chunk, so a remainder adds one more whole chunk (ASTRA-sim's
    // generate_collective).
    return std::vector<uint64_t>((size + chunk - 1) / chunk, chunk);
}

std::vector<PhaseSpec> CollectivePlanner::phases(CollectiveType type, uint64_t chunkBytes,
                                                 const std::vector<DimensionSpan>& spans, bool flattened,
                                                 std::vector<double>& themisLoadNs) const {
    std::vector<PhaseSpec> out;
    const uint64_t delay = flattened && !m_config.endpointDelayOnSubCommunicators ? kFlattenedEndpointDelayNs
                                                                                  : m_endpointDelayNs;
    auto add = [&](PhaseKind kind, const DimensionSpan& span, uint64_t bytes) {
        out.push_back(
            {kind, algorithmFor(type, span.dimension, flattened), span.peers, bytes, span.dimension, delay});
    };
    if (spans.empty()) {
        return out;
    }
    switch (type) {
        case CollectiveType::AllReduce: {
            const bool themis =
                m_config.dimensionScheduling == DimensionScheduling::Themis && spans.size() > 1;
            if (themis) {
                // Greedy Themis order: each reduce-scatter goes to the dimension whose accumulated busy time
                // stays lowest; the all-gathers mirror it. Every rank runs the same arithmetic, so orders
                // agree.
                std::vector<std::size_t> left(spans.size());
                std::iota(left.begin(), left.end(), 0);
                std::vector<std::size_t> order;
                uint64_t bytes = chunkBytes;
                std::vector<uint64_t> inputs;
                while (!left.empty()) {
                    auto best = left.begin();
                    double bestLoad = 0;
                    for (auto it = left.begin(); it != left.end(); ++it) {
                        const uint32_t d = spans[*it].dimension;
                        const double n = spans[*it].peers.size;
                        const double cost = 2 * (n - 1) / n * bytes / m_topology.dimBandwidthBytesPerNs[d];
                        if (it == left.begin() || themisLoadNs[d] + cost < bestLoad) {
                            best = it;
                            bestLoad = themisLoadNs[d] + cost;
                        }
                    }
                    themisLoadNs[spans[*best].dimension] = bestLoad;
                    order.push_back(*best);
                    inputs.push_back(bytes);
                    bytes /= spans[*best].peers.size;
                    left.erase(best);
                }
                for (std::size_t i = 0; i < order.size(); ++i) {
                    add(PhaseKind::ReduceScatter, spans[order[i]], inputs[i]);
                }
                for (std::size_t i = order.size(); i-- > 0;) {
                    add(PhaseKind::AllGather, spans[order[i]], inputs[i] / spans[order[i]].peers.size);
                }
            } else if (m_config.collectiveOptimization == CollectiveOptimization::LocalBwAware) {
                std::vector<uint64_t> inputs;
                uint64_t bytes = chunkBytes;
                for (std::size_t i = 0; i + 1 < spans.size(); ++i) {
                    inputs.push_back(bytes);
                    add(PhaseKind::ReduceScatter, spans[i], bytes);
                    bytes /= spans[i].peers.size;
                }
                add(PhaseKind::AllReduce, spans.back(), bytes);
                for (std::size_t i = spans.size() - 1; i-- > 0;) {
                    add(PhaseKind::AllGather, spans[i], inputs[i] / spans[i].peers.size);
                }
            } else {
                for (const DimensionSpan& span : spans) {
                    add(PhaseKind::AllReduce, span, chunkBytes);
                }
            }
            break;
        }
        case CollectiveType::ReduceScatter:
        case CollectiveType::ReduceScatterBlock: {
            uint64_t bytes = chunkBytes;
            for (const DimensionSpan& span : spans) {
                add(PhaseKind::ReduceScatter, span, bytes);
                bytes /= span.peers.size;
            }
            break;
        }
        case CollectiveType::AllGather: {
            uint64_t bytes = chunkBytes;
            for (std::size_t i = spans.size(); i-- > 0;) {
                add(PhaseKind::AllGather, spans[i], bytes);
                bytes *= spans[i].peers.size;
            }
            break;
        }
        case CollectiveType::AllToAll:
            for (const DimensionSpan& span : spans) {
                add(PhaseKind::AllToAll, span, chunkBytes);
            }
            break;
        case CollectiveType::Barrier:
            for (const DimensionSpan& span : spans) {
                // A barrier is an all-to-all of one byte per peer: every rank hears from every other.
                out.push_back({PhaseKind::AllToAll,
                               {CollectiveAlgorithm::Direct, 0},
                               span.peers,
                               span.peers.size,
                               span.dimension,
                               delay});
            }
            break;
        case CollectiveType::Broadcast:
        case CollectiveType::Reduce:
        case CollectiveType::Gather:
        case CollectiveType::Scatter: {
            // Rooted collectives run over the whole communicator as one line (spans() flattens them), rooted
            // at its first member.
            PhaseKind kind = type == CollectiveType::Broadcast ? PhaseKind::Broadcast
                             : type == CollectiveType::Reduce  ? PhaseKind::Reduce
                             : type == CollectiveType::Gather  ? PhaseKind::Gather
                                                               : PhaseKind::Scatter;
            PhaseSpec p{kind, {}, spans[0].peers, chunkBytes, spans[0].dimension, delay};
            out.push_back(p);
            break;
        }
    }
    return out;
}

}  // namespace mlnet
