#include "model-spec.h"

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "util/json-section.h"
#include "util/json-text.h"
#include "util/text-lines.h"

namespace mlnet::workload {

namespace {

uint64_t normParams(const ModelSpec& m, uint64_t width) {
    return m.biases ? 2 * width : width;  // LayerNorm has a bias; RMSNorm only a scale
}

uint64_t mlpParams(const ModelSpec& m, uint64_t ffn) {
    const uint64_t h = m.hidden;
    return (m.gatedMlp ? 3 : 2) * h * ffn + (m.biases ? ffn * (m.gatedMlp ? 2 : 1) + h : 0);
}

ModelSpec dense(const char* name, uint32_t layers, uint64_t hidden, uint64_t ffn, uint32_t heads,
                uint32_t kvHeads, uint64_t vocabulary, uint64_t sequence) {
    ModelSpec m;
    m.name = name;
    m.layers = layers;
    m.hidden = hidden;
    m.ffn = ffn;
    m.heads = heads;
    m.kvHeads = kvHeads;
    m.headDim = hidden / heads;
    m.vocabulary = vocabulary;
    m.sequence = sequence;
    return m;
}

std::vector<ModelSpec> presets() {
    std::vector<ModelSpec> all;
    // GPT-3 (Brown et al. 2020, table 2.1): learned positions, GELU MLP of 4h, biases, tied embeddings.
    ModelSpec gpt3 = dense("gpt3-175b", 96, 12288, 49152, 96, 96, 50257, 2048);
    gpt3.gatedMlp = false;
    gpt3.tiedEmbeddings = true;
    gpt3.biases = true;
    all.push_back(gpt3);
    // Llama 3 (Meta's model cards and config.json): SwiGLU, GQA with 8 KV heads, untied embeddings.
    all.push_back(dense("llama3-8b", 32, 4096, 14336, 32, 8, 128256, 8192));
    all.push_back(dense("llama3-70b", 80, 8192, 28672, 64, 8, 128256, 8192));
    all.push_back(dense("llama3.1-405b", 126, 16384, 53248, 128, 8, 128256, 8192));
    // Mixtral 8x7B (Mistral's config.json): 8 experts of the 7B's MLP, top-2, every layer.
    ModelSpec mixtral = dense("mixtral-8x7b", 32, 4096, 14336, 32, 8, 32000, 4096);
    mixtral.moe = MoeSpec{8, 2, 14336, 0, 0, 0};
    all.push_back(mixtral);
    // DeepSeek-V3 (its technical report and config.json): MLA, 3 dense layers first, then 256 routed experts
    // (top-8) and one shared expert of 2048 per MoE layer.
    ModelSpec ds = dense("deepseek-v3", 61, 7168, 18432, 128, 128, 129280, 4096);
    ds.headDim = 128;
    ds.mla = MlaSpec{1536, 512, 128, 64, 128};
    ds.moe = MoeSpec{256, 8, 2048, 1, 2048, 3};
    all.push_back(ds);
    return all;
}

struct TooDeep {};

// YAML as JSON, so that one set of typed readers (JsonSection) checks both forms. Depth is bounded as for
// JSON.
nlohmann::json yamlToJson(const YAML::Node& node, int depth = 0) {
    if (depth > kMaxJsonDepth) {
        throw TooDeep{};
    }
    switch (node.Type()) {
        case YAML::NodeType::Map: {
            nlohmann::json object = nlohmann::json::object();
            for (const auto& item : node) {
                object[item.first.as<std::string>()] = yamlToJson(item.second, depth + 1);
            }
            return object;
        }
        case YAML::NodeType::Sequence: {
            nlohmann::json array = nlohmann::json::array();
            for (const auto& item : node) {
                array.push_back(yamlToJson(item, depth + 1));
            }
            return array;
        }
        case YAML::NodeType::Scalar: {
            const std::string text = node.Scalar();
            if (text == "true" || text == "false") {
                return text == "true";
            }
            nlohmann::json number = nlohmann::json::parse(text, nullptr, false);
            return number.is_number() && node.Tag() != "!" ? number : nlohmann::json(text);
        }
        default:
            return nullptr;
    }
}

void readMoe(JsonSection& s, MoeSpec& moe) {
    moe.experts = static_cast<uint32_t>(s.count("experts", moe.experts, 1, 1u << 16));
    moe.topK = static_cast<uint32_t>(s.count("top-k", moe.topK, 1, 1u << 16));
    moe.expertFfn = s.count("expert-ffn", moe.expertFfn, 1, 1ull << 24);
    moe.sharedExperts = static_cast<uint32_t>(s.count("shared-experts", moe.sharedExperts, 0, 1u << 10));
    moe.sharedFfn = s.count("shared-ffn", moe.sharedFfn, 1, 1ull << 24);
    moe.denseLayersFirst =
        static_cast<uint32_t>(s.count("dense-layers-first", moe.denseLayersFirst, 0, 1u << 16));
    if (moe.topK > moe.experts) {
        s.error("top-k", std::to_string(moe.topK) + " exceeds the " + std::to_string(moe.experts) +
                             " experts; expected top-k <= experts");
    }
    s.finish();
}

void readMla(JsonSection& s, MlaSpec& mla) {
    mla.qLoraRank = s.count("q-lora-rank", mla.qLoraRank, 0, 1ull << 20);
    mla.kvLoraRank = s.count("kv-lora-rank", mla.kvLoraRank, 1, 1ull << 20);
    mla.qkNopeHeadDim = s.count("qk-nope-head-dim", mla.qkNopeHeadDim, 1, 1ull << 16);
    mla.qkRopeHeadDim = s.count("qk-rope-head-dim", mla.qkRopeHeadDim, 0, 1ull << 16);
    mla.vHeadDim = s.count("v-head-dim", mla.vHeadDim, 1, 1ull << 16);
    s.finish();
}

std::optional<ModelSpec> modelFromJson(const nlohmann::json& doc, const std::string& path,
                                       const std::string& text, Diagnostics& diag) {
    JsonSection top(doc, path, text, "", diag);
    ModelSpec m;
    const std::optional<std::string> preset = top.string("preset");
    if (preset) {
        const auto found = modelPreset(*preset);
        if (!found) {
            top.error(
                "preset", "'" + *preset + "' is not a model preset; expected one of " + [] {
                    std::string all;
                    for (const std::string& n : modelPresetNames()) {
                        all += (all.empty() ? "" : ", ") + n;
                    }
                    return all;
                }());
            return std::nullopt;
        }
        m = *found;
    }
    m.name = top.string("name").value_or(m.name.empty() ? "model" : m.name);
    constexpr uint64_t kBig = 1ull << 24;
    m.layers = static_cast<uint32_t>(top.count("layers", m.layers, 1, 1u << 16));
    m.hidden = top.count("hidden", m.hidden, 1, kBig);
    m.ffn = top.count("ffn", m.ffn, 1, kBig);
    m.heads = static_cast<uint32_t>(top.count("heads", m.heads, 1, 1u << 16));
    m.kvHeads = static_cast<uint32_t>(top.count("kv-heads", m.kvHeads ? m.kvHeads : m.heads, 1, 1u << 16));
    m.headDim = top.count("head-dim", m.headDim ? m.headDim : (m.heads ? m.hidden / m.heads : 0), 1, kBig);
    m.vocabulary = top.count("vocabulary", m.vocabulary, 1, 1ull << 32);
    m.sequence = top.count("sequence", m.sequence, 1, 1ull << 30);
    m.gatedMlp = top.boolean("gated-mlp").value_or(m.gatedMlp);
    m.tiedEmbeddings = top.boolean("tied-embeddings").value_or(m.tiedEmbeddings);
    m.biases = top.boolean("biases").value_or(m.biases);
    if (auto p = top.string("precision")) {
        if (*p == "bf16" || *p == "fp8") {
            m.precision = *p == "fp8" ? Precision::Fp8 : Precision::Bf16;
        } else {
            top.error("precision", "'" + *p + "'; expected bf16 or fp8");
        }
    }
    if (auto moe = top.section("moe")) {
        readMoe(*moe, m.moe);
    }
    if (auto mla = top.section("mla")) {
        MlaSpec spec = m.mla.value_or(MlaSpec{});
        readMla(*mla, spec);
        m.mla = spec;
    }
    for (const char* key : {"layers", "hidden", "ffn", "heads", "vocabulary", "sequence"}) {
        if (!top.has(key) && !preset) {
            top.error(key,
                      "is missing; a model without a preset needs layers, hidden, ffn, heads, vocabulary "
                      "and sequence");
        }
    }
    if (m.kvHeads > m.heads || (m.kvHeads && m.heads % m.kvHeads != 0)) {
        top.error("kv-heads", std::to_string(m.kvHeads) + " does not divide the " + std::to_string(m.heads) +
                                  " heads; expected a divisor of heads");
    }
    if (m.moe.experts > 0 && (m.moe.topK == 0 || m.moe.expertFfn == 0)) {
        top.error("moe", "a mixture of experts needs experts, top-k and expert-ffn");
    }
    if (m.moe.denseLayersFirst > m.layers) {
        top.error("moe", "dense-layers-first exceeds the " + std::to_string(m.layers) + " layers");
    }
    if (!top.finish() || diag.hasErrors()) {
        return std::nullopt;
    }
    return m;
}

}  // namespace

uint64_t ModelSpec::qkWidth() const {
    return mla ? heads * (mla->qkNopeHeadDim + mla->qkRopeHeadDim) : heads * headDim;
}

uint64_t ModelSpec::vWidth() const {
    return mla ? heads * mla->vHeadDim : heads * headDim;
}

uint64_t ModelSpec::attentionParams() const {
    const uint64_t h = hidden;
    uint64_t p = normParams(*this, h);
    if (mla) {
        const MlaSpec& a = *mla;
        p += a.qLoraRank ? h * a.qLoraRank + a.qLoraRank + a.qLoraRank * qkWidth() : h * qkWidth();
        p += h * (a.kvLoraRank + a.qkRopeHeadDim) + a.kvLoraRank;    // compressed KV and the shared key
        p += a.kvLoraRank * heads * (a.qkNopeHeadDim + a.vHeadDim);  // up-projection of keys and values
        return p + vWidth() * h;                                     // output projection
    }
    const uint64_t kv = uint64_t{kvHeads} * headDim;
    p += h * (qkWidth() + 2 * kv) + vWidth() * h;
    return p + (biases ? qkWidth() + 2 * kv + h : 0);
}

uint64_t ModelSpec::denseMlpParams() const {
    return mlpParams(*this, ffn) + normParams(*this, hidden);
}

uint64_t ModelSpec::routedExpertParams() const {
    return mlpParams(*this, moe.expertFfn);
}

uint64_t ModelSpec::moeMlpParams() const {
    return hidden * moe.experts + moe.experts * routedExpertParams() +
           moe.sharedExperts * mlpParams(*this, sharedFfn()) + normParams(*this, hidden);
}

uint64_t ModelSpec::layerParams(uint32_t layer) const {
    return attentionParams() + (isMoeLayer(layer) ? moeMlpParams() : denseMlpParams());
}

uint64_t ModelSpec::totalParams() const {
    uint64_t p = embeddingParams() + headParams() + finalNormParams();
    for (uint32_t l = 0; l < layers; ++l) {
        p += layerParams(l);
    }
    return p;
}

uint64_t ModelSpec::activeParamsPerToken() const {
    uint64_t p = vocabulary * hidden + finalNormParams();  // the LM head's GEMM, tied or not
    for (uint32_t l = 0; l < layers; ++l) {
        if (isMoeLayer(l)) {
            p += attentionParams() + hidden * moe.experts + moe.topK * routedExpertParams() +
                 moe.sharedExperts * mlpParams(*this, sharedFfn()) + normParams(*this, hidden);
        } else {
            p += layerParams(l);
        }
    }
    return p;
}

std::vector<std::string> modelPresetNames() {
    std::vector<std::string> names;
    for (const ModelSpec& m : presets()) {
        names.push_back(m.name);
    }
    return names;
}

std::optional<ModelSpec> modelPreset(const std::string& name) {
    for (ModelSpec& m : presets()) {
        if (m.name == name) {
            return std::move(m);
        }
    }
    return std::nullopt;
}

std::optional<ModelSpec> loadModel(const std::string& nameOrPath, Diagnostics& diag) {
    if (auto preset = modelPreset(nameOrPath)) {
        return preset;
    }
    const auto endsWith = [&](const char* suffix) {
        const std::string s(suffix);
        return nameOrPath.size() >= s.size() &&
               nameOrPath.compare(nameOrPath.size() - s.size(), s.size(), s) == 0;
    };
    const bool yaml = endsWith(".yaml") || endsWith(".yml");
    if (!yaml && !endsWith(".json")) {
        std::string names;
        for (const std::string& n : modelPresetNames()) {
            names += (names.empty() ? "" : ", ") + n;
        }
        diag.error("--model=" + nameOrPath + ": not a preset (" + names +
                   ") nor a .json or .yaml model file");
        return std::nullopt;
    }
    std::string text;
    if (!readTextFile(nameOrPath, text, diag, "model")) {
        return std::nullopt;
    }
    nlohmann::json doc;
    if (yaml) {
        try {
            doc = yamlToJson(YAML::Load(text));
        } catch (const YAML::Exception& e) {
            diag.error(atLine(nameOrPath, e.mark.line + 1) + ": malformed YAML: " + e.msg);
            return std::nullopt;
        } catch (const TooDeep&) {
            diag.error(nameOrPath + ": malformed YAML: values are nested more than " +
                       std::to_string(kMaxJsonDepth) + " levels deep; expected a model of a few levels");
            return std::nullopt;
        }
        if (!doc.is_object()) {
            diag.error(nameOrPath + ": expected a mapping of model keys");
            return std::nullopt;
        }
        return modelFromJson(doc, nameOrPath, "", diag);
    }
    if (!parseJsonObject(text, nameOrPath, "a JSON object of model keys", doc, diag)) {
        return std::nullopt;
    }
    return modelFromJson(doc, nameOrPath, text, diag);
}

}  // namespace mlnet::workload
