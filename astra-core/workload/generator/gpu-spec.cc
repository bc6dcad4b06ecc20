#include "gpu-spec.h"

#include <algorithm>
#include <cmath>

#include "hardware/gpu-catalogue.h"
#include "util/text-lines.h"
#include "util/units.h"

namespace mlnet::workload {

namespace {

// Peaks from the catalogue (hardware/gpu-catalogue.h). Efficiencies, one set per architecture:
// - attention: FlashAttention's published kernel rates, causal, head dimension 128, sequence 8k (FA3 on H100:
//   about 640 TFLOP/s forward, 500 backward; FA2 on A100: about 220 and 170), not fitted to step times;
// - GEMMs, the rate of one whose shape costs nothing (shape effects below): one constant per architecture
//   fitted to one step time (Ampere: GPT-3 175B on 64 A100, selective recomputation; Hopper fp8: Llama-3 70B
//   on 64 H100, docs/validation.md); the other published rows are predicted with it. Hopper's bf16 is
//   cuBLAS's large-GEMM rate, about 70 % of peak, not fitted;
// - GEMM shapes: the largest tile cuBLAS runs on the architecture (Ampere 256 x 128, as the guide gives it;
//   Hopper 128 x 256, its warpgroup MMA tile), the data sheet's SM count, and a fill and epilogue of about
//   four K steps of 64;
// - memory-bound kernels: 70 % of HBM bandwidth.
// Blackwell takes Hopper's fractions and tile, unvalidated.
GpuSpec specOf(const hardware::GpuType& type) {
    GpuSpec hopper{"", 0, 0, 0, 0, 0.70, 0.52, 0.65, 0.50, 0.70};
    hopper.tileM = 128;
    hopper.tileN = 256;
    GpuSpec ampere{"", 0, 0, 0, 0, 0.71, 0.71, 0.70, 0.55, 0.70};
    ampere.tileM = 256;
    ampere.tileN = 128;
    GpuSpec g = type.generation == hardware::GpuGeneration::Ampere ? ampere : hopper;
    g.sms = type.smCount;
    g.fillK = 256;
    g.name = type.name;
    g.bf16FlopsPerS = type.bf16FlopsPerS;
    g.fp8FlopsPerS = type.fp8FlopsPerS;
    g.hbmBytesPerS = type.hbmBytesPerS;
    g.memoryBytes = type.memoryBytes;
    return g;
}

}  // namespace

std::vector<std::string> gpuPresetNames() {
    std::vector<std::string> names;
    for (const hardware::GpuType& g : hardware::kGpuTypes) {
        names.push_back(g.name);
    }
    return names;
}

std::optional<GpuSpec> gpuPreset(const std::string& name) {
    const hardware::GpuType* type = hardware::findGpuType(name);
    return type ? std::optional<GpuSpec>(specOf(*type)) : std::nullopt;
}

double gemmShapeEfficiency(const GpuSpec& gpu, const GemmShape& shape) {
    if (shape.m <= 0 || shape.n <= 0 || shape.k <= 0 || shape.count <= 0 || gpu.sms == 0) {
        return 1;
    }
    // Tiles of a grouped GEMM's members share the waves.
    const double tiles = std::ceil(shape.m / gpu.tileM) * std::ceil(shape.n / gpu.tileN) * shape.count;
    const double waves = std::ceil(tiles / gpu.sms);
    const double filled = shape.m * shape.n * shape.count / (waves * gpu.sms * gpu.tileM * gpu.tileN);
    return filled * shape.k / (shape.k + gpu.fillK);
}

double kernelMicros(const GpuSpec& gpu, OpClass cls, bool fp8, bool backward, double flops, double bytes,
                    const GemmShape& shape) {
    double peak = gpu.bf16FlopsPerS, efficiency = gpu.gemmEfficiency;
    if (cls == OpClass::Gemm && fp8 && gpu.fp8FlopsPerS > 0) {
        peak = gpu.fp8FlopsPerS;
        efficiency = gpu.fp8GemmEfficiency;
    } else if (cls == OpClass::Attention) {
        efficiency = backward ? gpu.attentionBackwardEfficiency : gpu.attentionForwardEfficiency;
    }
    double computeS = cls == OpClass::Memory ? 0 : flops / (peak * efficiency);
    if (cls == OpClass::Gemm && shape.m > 0) {
        computeS = backward ? computeS / 2 *
                                  (1 / gemmShapeEfficiency(gpu, {shape.m, shape.k, shape.n, shape.count}) +
                                   1 / gemmShapeEfficiency(gpu, {shape.k, shape.n, shape.m, shape.count}))
                            : computeS / gemmShapeEfficiency(gpu, shape);
    }
    const double memoryS = bytes / (gpu.hbmBytesPerS * gpu.memoryEfficiency);
    return std::max(computeS, memoryS) * 1e6;
}

bool MeasuredTimes::load(const std::string& path, Diagnostics& diag) {
    std::string text;
    if (!readTextFile(path, text, diag, "measured kernel times")) {
        return false;
    }
    // Commas as separators and # comments: the whitespace tokenizer then reads the lines.
    bool comment = false;
    for (char& c : text) {
        comment = c == '\n' ? false : comment || c == '#';
        c = comment ? ' ' : c == ',' ? ' ' : c;
    }
    for (const TextLine& line : tokenizeLines(text)) {
        if (line.tokens.size() == 3 && line.tokens[0] == "op" && line.tokens[1] == "phase") {
            continue;  // header
        }
        double micros = 0;
        if (line.tokens.size() != 3 || (line.tokens[1] != "fwd" && line.tokens[1] != "bwd") ||
            !parsePlainReal(line.tokens[2], micros) || micros < 0) {
            diag.error(atLine(path, line.number) +
                       ": expected 'op,phase,time_us' with phase fwd or bwd and a "
                       "time >= 0");
            return false;
        }
        m_times[{std::string(line.tokens[0]), line.tokens[1] == "bwd"}] = micros;
    }
    return true;
}

std::optional<double> MeasuredTimes::find(const std::string& op, bool backward) const {
    const auto it = m_times.find({op, backward});
    return it == m_times.end() ? std::nullopt : std::optional<double>(it->second);
}

}  // namespace mlnet::workload
