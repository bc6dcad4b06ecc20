// What NCCL's kernels achieve on the GPU, beside what NCCL's tuner believes: one calibrated row per GPU
// generation, the only constants of the NCCL model that are not NCCL's own. The tuner (nccl-tuner.*) picks
// the algorithm, protocol and channels as NCCL does; these set how fast the chosen kernel's channels run.
//
// Calibrated on published nccl-tests all-reduce of one server of 8 GPUs (../shared/reference's
// validation-data.md: Azure ND A100 v4 and ND H100 v5, NCCL 2.18.5), on the fewest rows that fix each
// constant; every other row is a prediction (docs/nccl-model.md lists both). A value of 1 (factors) or 0
// (costs) leaves NCCL's own estimate, which is what a generation without a calibrating row gets.
#ifndef MLNET_SYSTEM_NCCL_NCCL_DEVICE_COSTS_H
#define MLNET_SYSTEM_NCCL_NCCL_DEVICE_COSTS_H

#include "system/nccl/nccl-tuner.h"

namespace mlnet::nccl {

struct DeviceCosts {
    // The LL and LL128 kernels' rate per channel as a fraction of the tuner's: their flag-per-line loads
    // and stores keep an SM below the bandwidth NCCL's tuner assigns them.
    double llRateFactor = 1;
    double ll128RateFactor = 1;
    // Each step of a Simple ring or tree on a channel's SM, beside its bytes: waiting for the peer's
    // flags, the memory fences before posting its own, the step's bookkeeping. A ring all-reduce pays it
    // 2 (n - 1) times per loop, so it weighs on mid-sized operations and fades above a few hundred MB.
    double simpleStepUs = 0;
    // NVLS: the load-reduce / multicast-store kernel's rate as a fraction of the tuner's, its cost per loop
    // of a channel (the heads' shares of one chunk each), and the pipeline's fill at the start, in chunk
    // times of one channel.
    double nvlsRateFactor = 1;
    double nvlsLoopUs = 0;
    double nvlsFillChunks = 0;
};

// Ampere: the LL128 factor from the 16 MB row (Ring/LL128), taken for LL too (the 1 MB row, Ring/LL, then
// comes out within 1 %); simpleStepUs from the 268 MB row (Ring/Simple). Hopper: the LL factor from the 1 MB
// row (Ring/LL); the NVLS three from the 4 MB, 16 MB and 8 GB rows. No published Hopper row runs LL128 or a
// Simple ring or tree, so Hopper keeps NCCL's estimate there; Volta has no row at all.
inline DeviceCosts deviceCosts(Arch arch) {
    switch (arch) {
        case Arch::Ampere:
            return {0.58, 0.58, 12.7, 1, 0, 0};
        case Arch::Hopper:
            return {0.48, 1, 0, 1.05, 1.5, 9.0};
        case Arch::Volta:
            break;
    }
    return {};
}

}  // namespace mlnet::nccl

#endif
