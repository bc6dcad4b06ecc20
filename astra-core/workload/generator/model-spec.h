// A transformer model as the workload generator sees it: the shapes that set every GEMM, attention kernel,
// activation and gradient of a training step. Dense (GPT, Llama) and mixture-of-experts (Mixtral, DeepSeek)
// models, grouped-query attention and DeepSeek's multi-head latent attention (MLA). Read from a preset name
// or a JSON / YAML file with the same keys; parameter counts come from the shapes, not from a stored figure.
#ifndef MLNET_WORKLOAD_GENERATOR_MODEL_SPEC_H
#define MLNET_WORKLOAD_GENERATOR_MODEL_SPEC_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/diagnostics.h"

namespace mlnet::workload {

enum class Precision : uint8_t { Bf16, Fp8 };

struct MoeSpec {
    uint32_t experts = 0;           // routed experts (0: a dense model)
    uint32_t topK = 0;              // routed experts per token
    uint64_t expertFfn = 0;         // intermediate size of one routed expert
    uint32_t sharedExperts = 0;     // experts every token goes through
    uint64_t sharedFfn = 0;         // intermediate size of one shared expert (default: expertFfn)
    uint32_t denseLayersFirst = 0;  // the first layers keep a dense MLP of ModelSpec::ffn
};

// Multi-head latent attention (DeepSeek-V2/V3): queries and keys/values through low-rank projections.
struct MlaSpec {
    uint64_t qLoraRank = 0;  // 0: queries projected at full rank
    uint64_t kvLoraRank = 0;
    uint64_t qkNopeHeadDim = 0, qkRopeHeadDim = 0, vHeadDim = 0;
};

struct ModelSpec {
    std::string name;
    uint32_t layers = 0;
    uint64_t hidden = 0;
    uint64_t ffn = 0;  // dense MLP intermediate size
    uint32_t heads = 0;
    uint32_t kvHeads = 0;  // grouped-query attention; = heads for multi-head attention
    uint64_t headDim = 0;  // default hidden / heads
    uint64_t vocabulary = 0;
    uint64_t sequence = 0;  // default sequence length (the plan may override)
    bool gatedMlp = true;   // SwiGLU (3 matrices) or GELU (2)
    bool tiedEmbeddings = false;
    bool biases = false;  // GPT-style biases on the linear layers
    MoeSpec moe;
    std::optional<MlaSpec> mla;
    Precision precision = Precision::Bf16;  // of the GEMMs (fp8: Transformer Engine); activations stay bf16

    bool isMoeLayer(uint32_t layer) const { return moe.experts > 0 && layer >= moe.denseLayersFirst; }
    uint64_t sharedFfn() const { return moe.sharedFfn ? moe.sharedFfn : moe.expertFfn; }

    // Parameters by where they live (exact counts from the shapes).
    uint64_t attentionParams() const;     // one layer's attention block with its norm
    uint64_t denseMlpParams() const;      // one dense layer's MLP with its norm
    uint64_t routedExpertParams() const;  // one routed expert
    uint64_t moeMlpParams() const;        // one MoE layer's MLP: router, routed and shared experts, norm
    uint64_t layerParams(uint32_t layer) const;
    uint64_t embeddingParams() const { return vocabulary * hidden; }
    uint64_t headParams() const { return tiedEmbeddings ? 0 : vocabulary * hidden; }  // LM head
    uint64_t finalNormParams() const { return biases ? 2 * hidden : hidden; }
    uint64_t totalParams() const;
    // Parameters a token goes through (MoE: top-k routed experts), excluding the input embedding: what the
    // 6 x N x tokens rule counts.
    uint64_t activeParamsPerToken() const;
    // Attention widths: queries x heads (qk), values x heads.
    uint64_t qkWidth() const;
    uint64_t vWidth() const;
};

// Presets: gpt3-175b, llama3-8b, llama3-70b, llama3.1-405b, mixtral-8x7b, deepseek-v3.
std::vector<std::string> modelPresetNames();
std::optional<ModelSpec> modelPreset(const std::string& name);

// A preset name, or a JSON (.json) or YAML (.yaml, .yml) file: {"preset": "llama3-70b"} optionally with keys
// that override it, or every key: name, layers, hidden, ffn, heads, kv-heads, head-dim, vocabulary, sequence,
// gated-mlp, tied-embeddings, biases, precision (bf16 | fp8), moe {experts, top-k, expert-ffn,
// shared-experts, shared-ffn, dense-layers-first}, mla {q-lora-rank, kv-lora-rank, qk-nope-head-dim,
// qk-rope-head-dim, v-head-dim}. Errors name the file, line and key.
std::optional<ModelSpec> loadModel(const std::string& nameOrPath, Diagnostics& diag);

}  // namespace mlnet::workload

#endif
