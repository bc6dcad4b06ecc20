// What one GPU can do, and the one place where a kernel's time comes from: a roofline over its peak dense
// FLOP/s (bf16, fp8) and HBM bandwidth, each derated by the efficiency of its operation class, and a GEMM's
// further by its shape (how its output tiles fill the SMs' waves, how long its K loop is against the tile's
// fill and epilogue). One set of efficiencies per GPU type, calibrated on as few published step times as
// possible (docs/validation.md says which), never per case. A CSV of measured kernel times can replace the
// roofline for named operations.
#ifndef MLNET_WORKLOAD_GENERATOR_GPU_SPEC_H
#define MLNET_WORKLOAD_GENERATOR_GPU_SPEC_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/diagnostics.h"

namespace mlnet::workload {

enum class OpClass : uint8_t {
    Gemm,       // matrix multiplications (bf16 or fp8 by the model's precision)
    Attention,  // fused attention kernels (FlashAttention, bf16)
    Memory,     // element-wise and reductions: norms, activations, residuals, the optimizer step
};

// A GEMM C[m x n] = A[m x k] B[k x n], `count` of them side by side in one kernel (grouped experts). A
// shape with m == 0 is unknown: the GEMM runs at its class's efficiency alone.
struct GemmShape {
    double m = 0, n = 0, k = 0, count = 1;
};

struct GpuSpec {
    std::string name;
    double bf16FlopsPerS = 0;  // dense (no sparsity)
    double fp8FlopsPerS = 0;   // 0: no fp8 tensor cores (fp8 GEMMs run at the bf16 rate)
    double hbmBytesPerS = 0;
    uint64_t memoryBytes = 0;  // HBM capacity
    // Fractions of the peaks that kernels of each class reach (attention's forward and backward kernels
    // apart).
    double gemmEfficiency = 0, fp8GemmEfficiency = 0, attentionForwardEfficiency = 0,
           attentionBackwardEfficiency = 0, memoryEfficiency = 0;
    // GEMM shape effects (NVIDIA's "Matrix Multiplication Background" guide: tile and wave quantization):
    // output tiles of tileM x tileN run in waves of `sms`, and each tile's K loop pays about `fillK` more
    // elements of K for its pipeline's fill and its epilogue. The efficiencies above are those of a GEMM
    // large enough for neither to show.
    uint32_t sms = 0, tileM = 0, tileN = 0, fillK = 0;
};

// The catalogue's GPU types (hardware/gpu-catalogue.h: a100, h100, h200, b200, gb200), with their
// efficiencies.
std::vector<std::string> gpuPresetNames();
std::optional<GpuSpec> gpuPreset(const std::string& name);

// Measured kernel times that replace the roofline: a CSV of "op,phase,time_us" lines (a header line is
// allowed; # starts a comment), op being an operation name of the step (qkv, attention, out-proj, mlp-up,
// mlp-act, mlp-down, norm, router, experts, shared-experts, embedding, lm-head, optimizer) and phase fwd or
// bwd. A time applies to every operation of that name and phase.
class MeasuredTimes {
public:
    bool load(const std::string& path, Diagnostics& diag);
    std::optional<double> find(const std::string& op, bool backward) const;
    bool empty() const { return m_times.empty(); }

private:
    std::map<std::pair<std::string, bool>, double> m_times;  // (op, backward) -> microseconds
};

// The fraction of the class's GEMM rate that a GEMM of this shape reaches: its output's tiles over the
// tile slots of the waves they take, times k / (k + fillK). 1 for an unknown shape.
double gemmShapeEfficiency(const GpuSpec& gpu, const GemmShape& shape);

// The roofline time of one kernel in microseconds: the longer of its compute and its memory traffic. A GEMM
// with a known forward `shape` runs at its shape's efficiency; its backward (flops: both halves) is the
// data gradient (m x k from m x n by n x k) and the weight gradient (k x n, reducing over m), each half of
// the flops at its own shape's efficiency.
double kernelMicros(const GpuSpec& gpu, OpClass cls, bool fp8, bool backward, double flops, double bytes,
                    const GemmShape& shape = {});

}  // namespace mlnet::workload

#endif
