#include "text-workload.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <set>

#include "util/decimal.h"
#include "util/text-lines.h"

namespace mlnet::importers {

namespace {

constexpr std::array<std::pair<Policy, std::string_view>, 11> kPolicies = {{
    {Policy::Data, "DATA"},
    {Policy::Model, "MODEL"},
    {Policy::HybridDataModel, "HYBRID_DATA_MODEL"},
    {Policy::HybridModelData, "HYBRID_MODEL_DATA"},
    {Policy::HybridTransformer, "HYBRID_TRANSFORMER"},
    {Policy::HybridTransformerFwdInBckwd, "HYBRID_TRANSFORMER_FWD_IN_BCKWD"},
    {Policy::HybridDlrm, "HYBRID_DLRM"},
    {Policy::HybridDlrmEnhanced, "HYBRID_DLRM_ENHANCED"},
    {Policy::HybridCustomized, "HYBRID_CUSTOMIZED"},
    {Policy::Micro, "MICRO"},
    {Policy::DistributedInference, "DISTRIBUTED_INFERENCE"},
}};

// The collectives in the order SimAI tests their names as prefixes (ALLREDUCE first, so ALLREDUCEALLTOALL
// is caught by it).
constexpr std::array<std::pair<std::string_view, CollectiveType>, 4> kOps = {{
    {"ALLREDUCE", CollectiveType::AllReduce},
    {"ALLTOALL", CollectiveType::AllToAll},
    {"ALLGATHER", CollectiveType::AllGather},
    {"REDUCESCATTER", CollectiveType::ReduceScatter},
}};

constexpr std::string_view kCommTypes =
    "NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL (SimAI also their _EP and _DP_EP forms)";

bool startsWith(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

struct Token {
    std::string_view text;
    int line;
};

std::vector<Token> flatten(const std::vector<TextLine>& lines, std::size_t fromLine) {
    std::vector<Token> tokens;
    for (std::size_t i = fromLine; i < lines.size(); ++i) {
        for (std::string_view t : lines[i].tokens) {
            tokens.push_back({t, lines[i].number});
        }
    }
    return tokens;
}

// Reads the pieces of one file; every problem is an error at its line naming the field.
class Parser {
public:
    Parser(const std::string& path, WorkloadFormat format, Diagnostics& diag, TextWorkload& w)
        : m_path(path), m_format(format), m_diag(diag), m_w(w) {}

    bool fail(int line, const std::string& field, const std::string& what) {
        m_diag.error(fieldError(m_path, line, field, what));
        return false;
    }

    // A whole number; AICB writes some as Python floats ("25165824.0"), which SimAI's stoi cuts at the
    // point, so a zero fraction is accepted and any other is refused.
    template <typename Unsigned>
    bool number(const Token& t, const std::string& field, Unsigned& out, uint64_t max, bool allowPointZero) {
        std::string_view text = t.text;
        if (allowPointZero) {
            const std::size_t dot = text.find('.');
            if (dot != std::string_view::npos &&
                text.find_first_not_of('0', dot + 1) == std::string_view::npos) {
                text = text.substr(0, dot);
            }
        }
        uint64_t v = 0;
        if (!parseDecimal(text, v) || v > max) {
            return fail(t.line, field,
                        shownToken(t.text) + " is not a whole number in 0.." + std::to_string(max));
        }
        out = static_cast<Unsigned>(v);
        return true;
    }

    // SimAI: the communicator from a prefix match and the suffix; A1: the five plain names.
    bool comm(const Token& t, const std::string& where, Phase phase, CommField& out) {
        out.token = std::string(t.text);
        out.line = t.line;
        const std::string field = where + " " + std::string(phaseColumn(phase)) + " communication type";
        if (t.text == "NONE") {
            return true;
        }
        if (t.text == "BROADCAST") {
            m_w.ignored.add(std::string(toString(m_format)) +
                                " does not simulate BROADCAST (it reads it as NONE); no collective issued",
                            atLine(m_path, t.line));
            return true;
        }
        if (t.text == "ALLREDUCEALLTOALL") {
            out.present = true;
            out.allReduceAllToAll = true;
            return true;
        }
        for (const auto& [name, type] : kOps) {
            if (!startsWith(t.text, name)) {
                continue;
            }
            const std::string_view suffix = t.text.substr(name.size());
            if (suffix.empty()) {
                out.present = true;
                out.type = type;
                return true;
            }
            if (m_format == WorkloadFormat::Astra1 && (suffix == "_EP" || suffix == "_DP_EP")) {
                return fail(t.line, field,
                            shownToken(out.token) +
                                " carries SimAI's communicator suffix, which ASTRA-sim 1.0 reads as NONE; "
                                "expected " +
                                std::string(kCommTypes) + " (or read the file as SimAI's)");
            }
            if (suffix == "_EP" || suffix == "_DP_EP") {
                out.present = true;
                out.type = type;
                out.suffix = suffix == "_EP" ? GroupSuffix::Ep : GroupSuffix::DpEp;
                return true;
            }
            return fail(t.line, field,
                        shownToken(out.token) + ": SimAI would read it as " + std::string(name) +
                            " on no communicator (an unknown suffix " + std::string(suffix) + "); expected " +
                            std::string(name) + ", " + std::string(name) + "_EP or " + std::string(name) +
                            "_DP_EP");
        }
        return fail(
            t.line, field,
            shownToken(out.token) + " is not a communication type; expected " + std::string(kCommTypes));
    }

    bool layers(const std::vector<Token>& tokens, std::size_t at, uint64_t count, int countLine) {
        const std::size_t perLayer = m_w.policy == Policy::HybridCustomized ? 13 : 12;
        // No more than the tokens can hold: a hostile count must not reserve gigabytes before failing.
        m_w.layers.reserve(
            std::min<uint64_t>(count, (tokens.size() - std::min(at, tokens.size())) / perLayer));
        std::size_t i = at;
        for (uint64_t l = 0; l < count; ++l) {
            if (i + perLayer > tokens.size()) {
                const int line =
                    i < tokens.size() ? tokens[i].line : (tokens.empty() ? countLine : tokens.back().line);
                return fail(line, "layer " + std::to_string(l + 1),
                            "the file ends after " + std::to_string(l) + " of the " + std::to_string(count) +
                                " layers its layer count (line " + std::to_string(countLine) +
                                ") announces; expected " + std::to_string(perLayer) + " fields per layer");
            }
            LayerLine layer;
            layer.name = std::string(tokens[i].text);
            layer.line = tokens[i].line;
            const std::string where = "layer " + std::to_string(l + 1) + " " + shownToken(layer.name);
            const Token& dep = tokens[i + 1];
            if (dep.text != "-1") {
                const bool negative = !dep.text.empty() && dep.text[0] == '-';
                uint64_t magnitude = 0;
                if (!parseDecimal(dep.text.substr(negative ? 1 : 0), magnitude) || magnitude > INT32_MAX) {
                    return fail(dep.line, where + " dependency field",
                                shownToken(dep.text) +
                                    " is not an integer (both tools read an int here, expected -1)");
                }
                m_w.ignored.add("the dependency field (2nd) is not -1; both tools read and ignore it",
                                atLine(m_path, dep.line));
            }
            bool ok = true;
            for (int p = 0; p < kNumPhases; ++p) {
                const Phase phase = static_cast<Phase>(p);
                const std::string column(phaseColumn(phase));
                const Token& compute = tokens[i + 2 + 3 * p];
                const Token& type = tokens[i + 3 + 3 * p];
                const Token& size = tokens[i + 4 + 3 * p];
                layer.computeLine[p] = compute.line;
                ok &= number(compute, where + " " + column + " compute time (ns)", layer.computeNs[p],
                             UINT64_MAX / 2, false);
                ok &= comm(type, where, phase, layer.comm[p]);
                ok &= number(size, where + " " + column + " communication size (bytes)", layer.comm[p].bytes,
                             static_cast<uint64_t>(INT64_MAX), false);
                if (ok && !layer.comm[p].present && layer.comm[p].bytes > 0 && type.text == "NONE") {
                    m_w.ignored.add("a size given with communication type NONE (nothing is communicated)",
                                    atLine(m_path, size.line));
                }
            }
            ok &= number(tokens[i + 11], where + " update time (ns)", layer.updateNs, UINT64_MAX / 2, false);
            if (perLayer == 13) {
                const Token& p = tokens[i + 12];
                layer.layerPolicy = policyFromKeyword(p.text);
                if (!layer.layerPolicy) {
                    ok &= fail(p.line, where + " layer policy (13th field of HYBRID_CUSTOMIZED)",
                               shownToken(p.text) + " is not a parallelism policy; expected one of " +
                                   policyKeywords());
                }
            }
            if (!ok) {
                return false;
            }
            m_w.layers.push_back(std::move(layer));
            i += perLayer;
        }
        if (i < tokens.size()) {
            return fail(tokens[i].line, "layer count (line " + std::to_string(countLine) + ")",
                        "the file continues after the " + std::to_string(count) + " layers it announces ('" +
                            std::string(tokens[i].text) + "' and " + std::to_string(tokens.size() - i - 1) +
                            " more tokens, which both tools would leave unread); expected the count to match "
                            "the layer lines");
        }
        return true;
    }

    bool layerCount(const Token& t, uint64_t& count) {
        if (!number(t, "layer count", count, 1u << 24, false)) {
            return false;
        }
        if (count == 0) {
            return fail(t.line, "layer count", "0; expected at least one layer");
        }
        m_w.layerCountLine = t.line;
        return true;
    }

    bool simai(const std::vector<TextLine>& lines) {
        if (lines.empty() || lines[0].number != 1) {
            return fail(1, "policy", "line 1 is empty; SimAI reads the parallelism policy from line 1");
        }
        const std::vector<std::string_view>& head = lines[0].tokens;
        if (!keyword(Token{head[0], 1})) {
            return false;
        }
        const bool transformer = isTransformer(m_w.policy);
        std::set<std::string> seen;
        bool ok = true;
        for (std::size_t i = 1; i < head.size(); ++i) {
            const std::string label(head[i]);
            auto value = [&](std::size_t k) -> const std::string_view* {
                return i + k < head.size() ? &head[i + k] : nullptr;
            };
            const bool known = label == "model_parallel_NPU_group:" || label == "ep:" || label == "pp:" ||
                               label == "vpp:" || label == "ga:" || label == "all_gpus:" ||
                               label == "checkpoints:" || label == "checkpoint_initiates:" ||
                               label == "pp_comm" || label == "pp_comm:" ||
                               label == "DLRM_LAST_BOTTOM_LAYER:";
            if (!known) {
                const bool isLabel = !label.empty() && label.back() == ':' && value(1);
                m_w.ignored.add(
                    "line 1: " + shownToken(label + (isLabel ? " " + std::string(*value(1)) : "")) +
                        " is no label SimAI reads (it ignores it)",
                    atLine(m_path, 1));
                i += isLabel ? 1 : 0;
                continue;
            }
            const std::string key = label == "pp_comm:" ? "pp_comm" : label;
            if (!seen.insert(key).second) {
                ok &= fail(1, label, "given twice (SimAI would take the last); expected each label once");
            }
            if (!value(1)) {
                ok &= fail(1, label, "has no value after it");
                break;
            }
            const Token v{*value(1), 1};
            const bool readByPolicy = label == "pp_comm" || label == "pp_comm:" ? true
                                      : label == "DLRM_LAST_BOTTOM_LAYER:"      ? isDlrm(m_w.policy)
                                      : label == "checkpoints:" || label == "checkpoint_initiates:"
                                          ? m_w.policy == Policy::HybridTransformerFwdInBckwd
                                          : transformer;
            if (label == "checkpoints:" || label == "checkpoint_initiates:") {
                uint32_t n = 0;
                if (!number(v, label, n, 1u << 20, false)) {
                    ok = false;
                    break;
                }
                if (i + 1 + n >= head.size()) {
                    ok &= fail(1, label,
                               "announces " + std::to_string(n) + " layers but line 1 has " +
                                   std::to_string(head.size() - i - 2) + " tokens after the count");
                    break;
                }
                std::vector<uint32_t> list;
                for (uint32_t k = 0; k < n; ++k) {
                    uint32_t layer = 0;
                    ok &= number(Token{head[i + 2 + k], 1}, label + " entry " + std::to_string(k + 1), layer,
                                 1u << 24, false);
                    list.push_back(layer);
                }
                if (!readByPolicy && n > 0) {
                    m_w.ignored.add("line 1: '" + label +
                                        "' lists layers, but SimAI reads recompute lists only "
                                        "for HYBRID_TRANSFORMER_FWD_IN_BCKWD",
                                    atLine(m_path, 1));
                } else if (n > 0) {
                    // SimAI's loop re-reads the list's first entry for every entry.
                    (label == "checkpoints:" ? m_w.checkpoints : m_w.checkpointInitiates).push_back(list[0]);
                    m_w.checkpointsLine = 1;
                    if (n > 1) {
                        m_w.ignored.add("line 1: '" + label +
                                            "' entries after the first (SimAI's parser reads the first entry "
                                            "for every entry, so only it takes effect)",
                                        atLine(m_path, 1), n - 1);
                    }
                }
                i += 1 + n;
                continue;
            }
            ++i;
            if (!readByPolicy) {
                m_w.ignored.add("line 1: '" + label + " " + std::string(v.text) +
                                    "': SimAI reads it only for " +
                                    (label == "DLRM_LAST_BOTTOM_LAYER:" ? "HYBRID_DLRM policies"
                                                                        : "HYBRID_TRANSFORMER policies"),
                                atLine(m_path, 1));
                continue;
            }
            if (key == "pp_comm") {
                uint64_t bytes = 0;
                ok &= number(v, label, bytes, static_cast<uint64_t>(INT64_MAX), true);
                m_w.ppCommBytes = Located<uint64_t>{bytes, 1};
                continue;
            }
            uint32_t n = 0;
            if (!number(v, label, n, 1u << 24, false)) {
                ok = false;
                continue;
            }
            const Located<uint32_t> located{n, 1};
            if (key == "model_parallel_NPU_group:") {
                m_w.tp = located;
            } else if (key == "ep:") {
                m_w.ep = located;
            } else if (key == "pp:") {
                m_w.pp = located;
            } else if (key == "vpp:") {
                m_w.vpp = located;
            } else if (key == "ga:") {
                m_w.ga = located;
            } else if (key == "all_gpus:") {
                m_w.allGpus = located;
            } else {
                m_w.dlrmLastBottomLayer = located;
            }
        }
        if (!ok) {
            return false;
        }
        if (isDlrm(m_w.policy) && !m_w.dlrmLastBottomLayer) {
            return fail(
                1, "DLRM_LAST_BOTTOM_LAYER:",
                "missing; SimAI reads the last bottom-MLP layer of HYBRID_DLRM from this label (ASTRA-sim "
                "1.0's bare number after the keyword is not understood by SimAI)");
        }
        if (lines.size() < 2 || lines[1].number != 2) {
            return fail(2, "layer count", "line 2 is empty; SimAI reads the layer count from line 2");
        }
        uint64_t count = 0;
        if (!layerCount(Token{lines[1].tokens[0], 2}, count)) {
            return false;
        }
        if (lines[1].tokens.size() > 1) {
            return fail(2, "layer count",
                        "line 2 has " + std::to_string(lines[1].tokens.size()) +
                            " fields; SimAI reads only the count there and the layers from line 3");
        }
        const std::vector<Token> body = flatten(lines, 2);
        return layers(body, 0, count, 2);
    }

    bool astra1(const std::vector<TextLine>& lines) {
        const std::vector<Token> tokens = flatten(lines, 0);
        if (tokens.empty()) {
            return fail(1, "policy", "the file is empty; expected a parallelism policy keyword");
        }
        if (!keyword(tokens[0])) {
            return false;
        }
        std::size_t i = 1;
        auto need = [&](const std::string& field) -> const Token* {
            if (i >= tokens.size()) {
                fail(tokens.back().line, field, "the file ends before it");
                return nullptr;
            }
            return &tokens[i++];
        };
        if (isTransformer(m_w.policy)) {
            const Token* label = need("model-parallel label");
            const Token* tp = label ? need("model_parallel_NPU_group") : nullptr;
            uint32_t n = 0;
            if (!tp ||
                !number(*tp, "model_parallel_NPU_group (the token after '" + std::string(label->text) + "')",
                        n, 1u << 24, false)) {
                return false;
            }
            if (label->text != "model_parallel_NPU_group:") {
                m_w.ignored.add("the label before the TP size is '" + std::string(label->text) +
                                    "' (ASTRA-sim 1.0 reads any token there)",
                                atLine(m_path, label->line));
            }
            m_w.tp = Located<uint32_t>{n, tp->line};
            if (m_w.policy == Policy::HybridTransformerFwdInBckwd) {
                for (auto* list : {&m_w.checkpoints, &m_w.checkpointInitiates}) {
                    const char* field = list == &m_w.checkpoints ? "checkpoints" : "checkpoint_initiates";
                    const Token* lab = need(std::string(field) + " label");
                    const Token* count = lab ? need(std::string(field) + " count") : nullptr;
                    uint32_t c = 0;
                    if (!count || !number(*count, std::string(field) + " count", c, 1u << 20, false)) {
                        return false;
                    }
                    m_w.checkpointsLine = count->line;
                    for (uint32_t k = 0; k < c; ++k) {
                        const Token* l = need(std::string(field) + " entry " + std::to_string(k + 1));
                        uint32_t layer = 0;
                        if (!l || !number(*l, std::string(field) + " entry " + std::to_string(k + 1), layer,
                                          1u << 24, false)) {
                            return false;
                        }
                        list->push_back(layer);
                    }
                }
            }
        } else if (isDlrm(m_w.policy)) {
            const Token* last = need("last bottom layer (the number after HYBRID_DLRM)");
            uint32_t n = 0;
            if (!last ||
                !number(*last,
                        "last bottom layer (the number after " + std::string(keywordOf(m_w.policy)) + ")", n,
                        1u << 24, false)) {
                return false;
            }
            m_w.dlrmLastBottomLayer = Located<uint32_t>{n, last->line};
        }
        const Token* countToken = need("layer count");
        if (!countToken) {
            return false;
        }
        if (!countToken->text.empty() && countToken->text.back() == ':') {
            return fail(
                countToken->line, "layer count",
                shownToken(countToken->text) +
                    " looks like a SimAI header label, which ASTRA-sim 1.0 does not read; expected the "
                    "layer count (or read the file as SimAI's)");
        }
        uint64_t count = 0;
        if (!number(*countToken, "layer count", count, 1u << 24, false)) {
            return false;
        }
        if (count == 0) {
            return fail(countToken->line, "layer count", "0; expected at least one layer");
        }
        m_w.layerCountLine = countToken->line;
        return layers(tokens, i, count, countToken->line);
    }

private:
    bool keyword(const Token& t) {
        const auto policy = policyFromKeyword(t.text);
        if (!policy) {
            return fail(
                t.line, "policy",
                shownToken(t.text) + " is not a parallelism policy; expected one of " + policyKeywords());
        }
        m_w.policy = *policy;
        return true;
    }

    const std::string& m_path;
    WorkloadFormat m_format;
    Diagnostics& m_diag;
    TextWorkload& m_w;
};

}  // namespace

std::string_view toString(WorkloadFormat format) {
    return format == WorkloadFormat::SimAI ? "SimAI" : "ASTRA-sim 1.0";
}

std::optional<Policy> policyFromKeyword(std::string_view keyword) {
    for (const auto& [policy, name] : kPolicies) {
        if (name == keyword) {
            return policy;
        }
    }
    return std::nullopt;
}

std::string_view keywordOf(Policy policy) {
    for (const auto& [p, name] : kPolicies) {
        if (p == policy) {
            return name;
        }
    }
    return "?";
}

std::string policyKeywords() {
    std::string all;
    for (const auto& entry : kPolicies) {
        all += (all.empty() ? "" : ", ") + std::string(entry.second);
    }
    return all;
}

std::string fieldError(const std::string& path, int line, const std::string& field, const std::string& what) {
    const bool labelled = !field.empty() && field.back() == ':';
    return atLine(path, line) + ": " + field + (labelled ? " " : ": ") + what;
}

std::string shownToken(std::string_view token) {
    // Bytes from a file that is not text must not reach the terminal raw, nor a whole line of them.
    constexpr std::size_t kMaxShown = 48;
    std::string out = "'";
    for (std::size_t i = 0; i < token.size() && i < kMaxShown; ++i) {
        const auto c = static_cast<unsigned char>(token[i]);
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            static constexpr char kHex[] = "0123456789abcdef";
            out += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
        }
    }
    return out + (token.size() > kMaxShown ? "'..." : "'");
}

std::string_view phaseName(Phase phase) {
    static constexpr std::string_view kNames[] = {"forward", "input-gradient", "weight-gradient"};
    return kNames[phase];
}

std::string_view phaseColumn(Phase phase) {
    static constexpr std::string_view kNames[] = {"fwd", "ig", "wg"};
    return kNames[phase];
}

void IgnoredItems::add(const std::string& what, const std::string& where, uint64_t count) {
    Item& item = m_items[what];
    if (item.count == 0) {
        item.firstWhere = where;
    }
    item.count += count;
}

void IgnoredItems::report(Diagnostics& diag) const {
    for (const auto& [what, item] : m_items) {
        diag.warning(item.firstWhere + ": " + what +
                     (item.count > 1 ? " (" + std::to_string(item.count) + " times)" : ""));
    }
}

bool looksLikeTextWorkload(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return false;
    }
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    if (head.size() >= 3 && head.compare(0, 3, "\xEF\xBB\xBF") == 0) {
        head.erase(0, 3);
    }
    const std::size_t start = head.find_first_not_of(" \t\r\n");
    if (start == std::string::npos) {
        return false;
    }
    const std::size_t end = head.find_first_of(" \t\r\n", start);
    if (end == std::string::npos && head.size() == 4096) {
        return false;  // a 4 KB token is no keyword
    }
    return policyFromKeyword(
               std::string_view(head).substr(start, end == std::string::npos ? end : end - start))
        .has_value();
}

std::optional<WorkloadFormat> detectFormat(const std::string& text, std::string* why) {
    const std::vector<TextLine> lines = tokenizeLines(text);
    if (lines.empty()) {
        return std::nullopt;
    }
    auto say = [&](const std::string& reason) {
        if (why) {
            *why = reason;
        }
    };
    const auto& head = lines[0].tokens;
    const auto policy = policyFromKeyword(head[0]);
    if (lines[0].number == 1) {
        for (std::string_view t : head) {
            for (std::string_view label : {"ep:", "pp:", "vpp:", "ga:", "all_gpus:", "pp_comm",
                                           "pp_comm:", "DLRM_LAST_BOTTOM_LAYER:"}) {
                if (t == label) {
                    say("line 1 has SimAI's label '" + std::string(label) + "'");
                    return WorkloadFormat::SimAI;
                }
            }
        }
    }
    if (policy && isDlrm(*policy) && head.size() >= 2 && !head[1].empty() &&
        head[1].find_first_not_of("0123456789") == std::string_view::npos) {
        say("line 1 gives DLRM's last bottom layer as a bare number after the keyword");
        return WorkloadFormat::Astra1;
    }
    if (policy && isTransformer(*policy) && head.size() < 3) {
        say("the TP size of " + std::string(keywordOf(*policy)) + " is not on line 1");
        return WorkloadFormat::Astra1;
    }
    for (std::size_t l = 1; l < lines.size(); ++l) {
        for (std::string_view t : lines[l].tokens) {
            for (const auto& op : kOps) {
                if (startsWith(t, op.first) &&
                    (t.substr(op.first.size()) == "_EP" || t.substr(op.first.size()) == "_DP_EP")) {
                    say("line " + std::to_string(lines[l].number) + " has SimAI's communicator form '" +
                        std::string(t) + "'");
                    return WorkloadFormat::SimAI;
                }
            }
        }
    }
    return std::nullopt;
}

std::optional<WorkloadFormat> detectFileFormat(const std::string& path) {
    std::string text;
    Diagnostics quiet;
    return readTextFile(path, text, quiet, "workload file") ? detectFormat(text) : std::nullopt;
}

std::optional<TextWorkload> parseTextWorkload(const std::string& path, const std::string& text,
                                              WorkloadFormat format, Diagnostics& diag) {
    TextWorkload w;
    w.path = path;
    w.format = format;
    const std::vector<TextLine> lines = tokenizeLines(text);
    Parser parser(path, format, diag, w);
    const std::size_t errorsBefore = diag.errorCount();
    const bool ok = format == WorkloadFormat::SimAI ? parser.simai(lines) : parser.astra1(lines);
    if (!ok || diag.errorCount() != errorsBefore) {
        return std::nullopt;
    }
    return w;
}

std::optional<TextWorkload> loadTextWorkload(const std::string& path, WorkloadFormat format,
                                             Diagnostics& diag) {
    std::string text;
    if (!readTextFile(path, text, diag, "workload file")) {
        return std::nullopt;
    }
    return parseTextWorkload(path, text, format, diag);
}

}  // namespace mlnet::importers
