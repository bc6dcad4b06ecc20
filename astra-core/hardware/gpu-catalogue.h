// The GPU types the project knows, one row each: the data sheet's dense peaks and memory (NVIDIA, SXM parts,
// one GPU) and what NCCL's tuning sees of the part (its generation, the GPU's PCIe link to its NIC, NCCL's
// bandwidth of one NVLink). The workload generator's roofline (workload/generator/gpu-spec.h) and the NCCL
// model (system/nccl/) both read it, so "h100" names the same part everywhere and a new GPU is one row.
#ifndef MLNET_HARDWARE_GPU_CATALOGUE_H
#define MLNET_HARDWARE_GPU_CATALOGUE_H

#include <cstdint>
#include <string>

namespace mlnet::hardware {

enum class GpuGeneration : uint8_t { Ampere, Hopper, Blackwell };

struct GpuType {
    const char* name;
    GpuGeneration generation;
    double bf16FlopsPerS;  // dense (no sparsity)
    double fp8FlopsPerS;   // 0: no fp8 tensor cores
    double hbmBytesPerS;
    uint64_t memoryBytes;  // HBM capacity
    double pcieGBps;  // GPU to NIC, per direction (Gen4 x16: 24; Gen5 x16: 48, as NCCL's topology has it)
    double ncclNvlinkGBps;  // NCCL 2.23's application-level bandwidth of one NVLink (its per-SM-generation
                            // figure)
    uint32_t smCount;       // streaming multiprocessors: a GEMM's tiles run in waves of this many
};

namespace detail {
inline constexpr double kT = 1e12;
inline constexpr uint64_t kGB = 1'000'000'000ull;
}  // namespace detail

inline constexpr GpuType kGpuTypes[] = {
    {"a100", GpuGeneration::Ampere, 312 * detail::kT, 0, 2.039 * detail::kT, 80 * detail::kGB, 24, 20.0, 108},
    {"h100", GpuGeneration::Hopper, 989.4 * detail::kT, 1978.9 * detail::kT, 3.35 * detail::kT,
     80 * detail::kGB, 48, 20.6, 132},
    {"h200", GpuGeneration::Hopper, 989.4 * detail::kT, 1978.9 * detail::kT, 4.8 * detail::kT,
     141 * detail::kGB, 48, 20.6, 132},
    // NCCL 2.23 tunes Blackwell with Hopper's figures.
    {"b200", GpuGeneration::Blackwell, 2250 * detail::kT, 4500 * detail::kT, 8.0 * detail::kT,
     180 * detail::kGB, 48, 20.6, 148},
    {"gb200", GpuGeneration::Blackwell, 2500 * detail::kT, 5000 * detail::kT, 8.0 * detail::kT,
     186 * detail::kGB, 48, 20.6, 148},
};

// The row named `name`, or nullptr.
inline const GpuType* findGpuType(const std::string& name) {
    for (const GpuType& g : kGpuTypes) {
        if (name == g.name) {
            return &g;
        }
    }
    return nullptr;
}

// "a100, h100, h200, b200 or gb200", for messages.
inline std::string gpuTypeNames() {
    std::string names;
    const std::size_t n = sizeof(kGpuTypes) / sizeof(kGpuTypes[0]);
    for (std::size_t i = 0; i < n; ++i) {
        names += (i == 0 ? "" : i + 1 == n ? " or " : ", ") + std::string(kGpuTypes[i].name);
    }
    return names;
}

}  // namespace mlnet::hardware

#endif
