// The text workload files SimAI (and AICB, which writes them) and ASTRA-sim 1.0 read: a parallelism policy
// keyword with its settings, a layer count, then per layer
//   name  -1  fwd_compute fwd_type fwd_bytes  ig_compute ig_type ig_bytes  wg_compute wg_type wg_bytes update
// (HYBRID_CUSTOMIZED adds the layer's own policy keyword). Both tools read the layers as a stream of
// whitespace-separated tokens, so line breaks inside them do not matter; they differ in the header:
//   SimAI:   line 1 is the keyword and "label: value" pairs in any order (model_parallel_NPU_group:, ep:,
//   pp:,
//            vpp:, ga:, all_gpus:, checkpoints: N l.., checkpoint_initiates: N l.., pp_comm[:],
//            DLRM_LAST_BOTTOM_LAYER:), line 2 the layer count;
//   A1:      a token stream: the keyword, for HYBRID_TRANSFORMER* a label (any) and the TP size, for
//            _FWD_IN_BCKWD two "label N l1..lN" lists, for HYBRID_DLRM* the last bottom layer, then the
//            count.
// and in what a communication token means (SimAI matches a prefix and reads an _EP / _DP_EP suffix as the
// communicator; A1 takes the five plain names only). The parser keeps what the file says, with lines; what it
// means for a run (communicators, order, blocking) is workload-importer.h's business.
#ifndef MLNET_WORKLOAD_IMPORTERS_TEXT_WORKLOAD_H
#define MLNET_WORKLOAD_IMPORTERS_TEXT_WORKLOAD_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/diagnostics.h"
#include "workload/trace-types.h"

namespace mlnet::importers {

enum class WorkloadFormat : uint8_t { SimAI, Astra1 };
std::string_view toString(WorkloadFormat format);  // "SimAI", "ASTRA-sim 1.0"

// The parallelism policies of both tools (the same keyword list).
enum class Policy : uint8_t {
    Data,
    Model,
    HybridDataModel,
    HybridModelData,
    HybridTransformer,
    HybridTransformerFwdInBckwd,
    HybridDlrm,
    HybridDlrmEnhanced,
    HybridCustomized,
    Micro,
    DistributedInference,
};
std::optional<Policy> policyFromKeyword(std::string_view keyword);
std::string_view keywordOf(Policy policy);
// "DATA, MODEL, ...": for messages.
std::string policyKeywords();
// "<file>: line N: <field>: <what>"; a field named by its label ("ep:") keeps its one colon.
std::string fieldError(const std::string& path, int line, const std::string& field, const std::string& what);

// A token of the file quoted for a message: non-printable bytes as \xNN, at most 48 characters.
std::string shownToken(std::string_view token);
inline bool isTransformer(Policy p) {
    return p == Policy::HybridTransformer || p == Policy::HybridTransformerFwdInBckwd;
}
inline bool isDlrm(Policy p) {
    return p == Policy::HybridDlrm || p == Policy::HybridDlrmEnhanced;
}

// The three passes of a layer line, in column order.
enum Phase : uint8_t { kForward = 0, kInputGradient = 1, kWeightGradient = 2 };
inline constexpr int kNumPhases = 3;
std::string_view phaseName(Phase phase);    // "forward", "input-gradient", "weight-gradient"
std::string_view phaseColumn(Phase phase);  // "fwd", "ig", "wg"

// SimAI's communicator suffix of a communication token: none (the column's default: TP for forward and
// input gradient, DP for weight gradient), _EP, _DP_EP.
enum class GroupSuffix : uint8_t { None, Ep, DpEp };

struct CommField {
    // NONE (or a token neither tool simulates, counted by the parser) leaves it absent.
    bool present = false;
    CollectiveType type = CollectiveType::AllReduce;
    GroupSuffix suffix = GroupSuffix::None;
    bool allReduceAllToAll = false;  // ALLREDUCEALLTOALL: neither tool simulates it; refused when issued
    std::string token;
    uint64_t bytes = 0;
    int line = 0;  // of the type token
};

struct LayerLine {
    std::string name;
    int line = 0;  // of the name token
    uint64_t computeNs[kNumPhases] = {};
    int computeLine[kNumPhases] = {};
    CommField comm[kNumPhases];
    uint64_t updateNs = 0;
    std::optional<Policy> layerPolicy;  // HYBRID_CUSTOMIZED only
};

// A header value with the line it was read from.
template <typename T>
struct Located {
    T value{};
    int line = 0;
};

// Things a file holds that the tool itself ignores (counted, reported once per kind with the first place),
// kept with the parsed file so the import's summary can list them.
class IgnoredItems {
public:
    void add(const std::string& what, const std::string& where, uint64_t count = 1);
    struct Item {
        uint64_t count = 0;
        std::string firstWhere;
    };
    const std::map<std::string, Item>& items() const { return m_items; }
    // One warning per kind: "<first where>: <what> (N times)".
    void report(Diagnostics& diag) const;

private:
    std::map<std::string, Item> m_items;
};

struct TextWorkload {
    std::string path;
    WorkloadFormat format = WorkloadFormat::SimAI;
    Policy policy = Policy::Data;
    // SimAI's labels (A1 gives only tp, from the token after its label).
    std::optional<Located<uint32_t>> tp, ep, pp, vpp, ga, allGpus, dlrmLastBottomLayer;
    std::optional<Located<uint64_t>> ppCommBytes;
    // Layer indices that are recompute checkpoints / that start a recompute, as the tool honours them
    // (SimAI: the first entry of each list only).
    std::vector<uint32_t> checkpoints, checkpointInitiates;
    int checkpointsLine = 0;
    int layerCountLine = 0;
    std::vector<LayerLine> layers;
    IgnoredItems ignored;
};

// True when the file's first token is one of the policy keywords (a text workload rather than a Chakra trace
// prefix). Reads at most the first 4 KB; false for anything unreadable.
bool looksLikeTextWorkload(const std::string& path);

// Which tool a text workload was written for, from what only one of them reads: SimAI when line 1 holds one
// of its own labels (ep:, pp:, vpp:, ga:, all_gpus:, pp_comm, DLRM_LAST_BOTTOM_LAYER:) or a communication
// token carries an _EP / _DP_EP suffix; ASTRA-sim 1.0 when its header spreads over lines as only its token
// stream allows (the TP size or DLRM's layer on a line of its own) or DLRM's layer follows the keyword bare.
// nullopt when the file could be either (then the caller's default applies). `why` says what decided.
std::optional<WorkloadFormat> detectFormat(const std::string& text, std::string* why = nullptr);

// The same for a file; nullopt also when it cannot be read (the import reports that).
std::optional<WorkloadFormat> detectFileFormat(const std::string& path);

// Parses the file in `format`. Errors name the file, the line and the field; nullopt when there were any.
std::optional<TextWorkload> parseTextWorkload(const std::string& path, const std::string& text,
                                              WorkloadFormat format, Diagnostics& diag);
std::optional<TextWorkload> loadTextWorkload(const std::string& path, WorkloadFormat format,
                                             Diagnostics& diag);

}  // namespace mlnet::importers

#endif
