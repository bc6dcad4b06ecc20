// Turns a SimAI or ASTRA-sim 1.0 text workload (text-workload.h) into one Chakra trace per rank, with each
// tool's own meaning of every field:
//   - the training loop of the policy (the tools' Workload::iterate_* state machines): which column's
//     collective each pass issues, which ones the next compute waits for (blocking) and which overlap it, the
//     wait for a layer's previous weight-gradient collective before its next forward, recomputation of
//     checkpointed layers (HYBRID_TRANSFORMER_FWD_IN_BCKWD), DLRM's embedding all-to-alls, MICRO's first
//     collective only; the "update time" as the delay between a collective's end and whatever waits for it;
//   - the communicators: SimAI's per token and column (TP for forward and input-gradient columns, DP for the
//     weight-gradient column, EP / DP_EP by suffix), ASTRA-sim 1.0's by the policy's involved dimensions;
//   - the sizes: SimAI's all-gather size is the gathered output, ASTRA-sim 1.0's (and Chakra's) the per-rank
//     input, so SimAI's is divided by the group size;
//   - times in ns (ASTRA-sim 1.0's cycles at 1 GHz, as both tools' ns-3 backends run them), written as whole
//     microseconds with the rounding remainder carried to the next compute node so a rank's total stays
//     exact.
// Where both tools ignore the pipeline (SimAI forces PP to 1 and adds a formula's bubble afterwards), the
// pipeline is simulated: the file is one stage's work for its GA micro-batches (as AICB writes it), every
// stage runs it, and activations and gradients travel between stages as SEND/RECV.
//
// Rank layout (SimAI's, TP fastest; PP slowest as in Megatron): rank = tp + TP (dp + DP stage), and within
// the data-parallel index dp = ep + EP dp_ep. TP groups are consecutive ranks; DP groups the ranks of a stage
// with the same tp; EP groups EP consecutive TP groups' k-th ranks; DP_EP groups every EP-th TP group's k-th
// rank. ASTRA-sim 1.0's dimension-based policies map onto the same blocks: its model-parallel dimensions are
// the TP block, the rest the DP stride.
#ifndef MLNET_WORKLOAD_IMPORTERS_WORKLOAD_IMPORTER_H
#define MLNET_WORKLOAD_IMPORTERS_WORKLOAD_IMPORTER_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "text-workload.h"
#include "workload/trace-set.h"
#include "workload/trace-writer.h"

namespace mlnet::importers {

struct ImportOptions {
    // The world size when the file gives none (ASTRA-sim 1.0 files; SimAI files without all_gpus:), as the
    // tools take it from the network. With all_gpus: in the file, a different value is an error.
    std::optional<uint32_t> gpus;
    // The GPUs of the network the run is on: the world size when neither the file nor `gpus` gives one; a
    // file's all_gpus: above it is an error (its ranks would have no GPU).
    std::optional<uint32_t> networkGpus;
    // ASTRA-sim 1.0's logical dimensions, fastest first (HYBRID_DATA_MODEL, HYBRID_MODEL_DATA and
    // HYBRID_CUSTOMIZED split collectives by them); empty: one dimension of every rank, as SimAI's ns-3
    // backend has. Their product must be the world size.
    std::vector<uint32_t> dims;
    // Training passes (ASTRA-sim 1.0's --num-passes; SimAI runs 1).
    uint32_t passes = 1;
};

enum class GroupKind : uint8_t { World, Tp, Dp, Ep, DpEp };
std::string_view groupName(GroupKind kind);  // "world", "tp", "dp", "ep", "dp_ep"

// Where every rank sits and which communicators exist.
struct Layout {
    uint32_t world = 1, tp = 1, dp = 1, pp = 1, ep = 1, dpEp = 1;

    uint32_t tpOf(Rank r) const { return r % tp; }
    uint32_t dpOf(Rank r) const { return r / tp % dp; }
    uint32_t stageOf(Rank r) const { return r / (tp * dp); }
    uint32_t size(GroupKind kind) const;
    GroupId groupOf(GroupKind kind, Rank r) const;
    std::vector<Rank> members(GroupKind kind, Rank r) const;
};

// Micro-batch blocks of the file: `count` consecutive blocks of `lines` layer lines starting at line index
// `first` (AICB's GA copies of one stage's layers). Lines before are the step's opening lines (AICB's
// data-parallel gradient rows), lines after its closing lines; every stage runs all of them.
struct MicroBatchBlocks {
    uint32_t first = 0, lines = 0, count = 1;
};

// What one rank's trace holds: compute as the file gives it (ns) and as written (whole µs), and its
// collectives and point-to-point messages by "<COLLECTIVE> <communicator>" ("ALL_GATHER dp", "SEND pp").
struct RankStats {
    uint64_t computeNs = 0;      // the file's compute and update-delay times on this rank's path
    uint64_t computeMicros = 0;  // what the trace's compute nodes carry
    int64_t unwrittenNs = 0;     // the last remainder, below half a microsecond
    uint64_t nodes = 0;
    uint64_t nameBytes = 0;
    struct Comm {
        uint64_t count = 0;
        uint64_t bytes = 0;  // Chakra comm_size summed (all-gather: the per-rank input)
    };
    std::map<std::string, Comm> comm;
};

class WorkloadImporter {
public:
    // Checks the file against the policy's semantics and the options; errors name the file, line and field.
    static std::optional<WorkloadImporter> prepare(TextWorkload workload, const ImportOptions& options,
                                                   Diagnostics& diag);

    const TextWorkload& workload() const { return m_w; }
    const Layout& layout() const { return m_layout; }
    uint32_t numRanks() const { return m_layout.world; }
    const MicroBatchBlocks& blocks() const { return m_blocks; }
    uint64_t pipelineBytes() const { return m_ppBytes; }
    std::string pipelineBytesSource() const { return m_ppBytesSource; }
    // What the file holds that the run does not use, and why (the tool's own semantics); for the summary.
    const IgnoredItems& ignored() const { return m_ignored; }
    // Semantics that differ from the tool's own run of the file (the pipeline, SimAI's TP=1 skips), one line
    // each.
    const std::vector<std::string>& differences() const { return m_differences; }

    RankTraceBuilder buildRank(Rank rank, RankStats* stats = nullptr) const;
    // The stats of the first rank of every stage (the ranks of a stage differ only in their peers).
    const std::vector<RankStats>& stageStats() const { return m_stageStats; }
    // Nodes, name bytes and group members of the whole set, for memory estimates.
    uint64_t totalNodes() const;
    // Bytes a TraceSet of this import holds in memory (decoded nodes, dependencies, names, communicators).
    uint64_t estimateTraceSetBytes() const;

    // A few lines for people: what was imported (ranks, layout, micro-batches, pipeline, per-rank compute and
    // collectives) and what was ignored and why.
    std::string summary() const;

private:
    WorkloadImporter() = default;
    class RankEmitter;
    friend class RankEmitter;

    // Where a column's collective runs, or why the tool does not issue it.
    struct Placement {
        bool issued = false;
        GroupKind kind = GroupKind::World;
        std::string why;  // when not issued
    };
    Placement place(uint32_t layer, Phase phase) const;
    // The recompute of an initiator layer starts at the nearest checkpoint at or below it.
    uint32_t checkpointBefore(uint32_t initiator) const;

    TextWorkload m_w;
    ImportOptions m_options;
    Layout m_layout;
    uint32_t m_dim0 =
        0;  // ASTRA-sim 1.0's first logical dimension (the model-parallel block of its policies)
    MicroBatchBlocks m_blocks;
    uint64_t m_ppBytes = 0;
    std::string m_ppBytesSource;
    std::vector<bool> m_kindUsed = std::vector<bool>(5, false);
    IgnoredItems m_ignored;
    std::vector<std::string> m_differences;
    std::vector<RankStats> m_stageStats;
};

// The import from a file as one step: the format detected unless `format` is given (ambiguous files are read
// as `fallback`), parsed, prepared; warnings for what is ignored go to diag.
std::optional<WorkloadImporter> importTextWorkload(const std::string& path,
                                                   std::optional<WorkloadFormat> format,
                                                   WorkloadFormat fallback, const ImportOptions& options,
                                                   Diagnostics& diag, std::string* formatNote = nullptr);

// The import as a TraceSet in memory (for the simulators' --workload-configuration=FILE): every rank built,
// encoded and read back through the trace reader with `traceOptions`, so the same checks apply as to files;
// refused with both numbers when its estimate exceeds maxMemoryBytes.
TraceSet importAsTraceSet(const WorkloadImporter& importer, const TraceSetOptions& traceOptions,
                          uint64_t maxMemoryBytes, Diagnostics& diag);

// The simulators' side of it: a text workload given as --workload-configuration=FILE, for a network of
// `networkGpus` NPUs whose logical dimensions are `networkDims` (ASTRA-sim 1.0's dimension policies use them;
// SimAI's ns-3 has one). Files that could be either tool's are read as ASTRA-sim 1.0's (the format's origin)
// unless `format` says. `report` gets the format note and the import summary. Empty set with errors in diag
// on failure.
TraceSet importForSimulator(const std::string& path, std::optional<WorkloadFormat> format, uint32_t passes,
                            uint32_t networkGpus, const std::vector<uint32_t>& networkDims,
                            const TraceSetOptions& traceOptions, uint64_t maxMemoryBytes, Diagnostics& diag,
                            std::string& report);

// The system configuration a SimAI user has none of: SimAI's ns-3 collectives as our system JSON (ring
// all-reduce, all-gather and reduce-scatter, direct all-to-all, one chunk per collective, FIFO, and its 6 µs
// per-flow send latency as the endpoint delay), with one algorithm per logical dimension of the network.
std::string simaiSystemJson(std::size_t dimensions);

}  // namespace mlnet::importers

#endif
