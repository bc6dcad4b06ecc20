// Time on the wire in picoseconds. A frame occupies the link for its bytes plus a per-frame overhead (with
// real RoCEv2 framing: preamble/SFD and the inter-frame gap, kWireOverheadBytes).
#ifndef MLNET_ROCE_TIMING_H
#define MLNET_ROCE_TIMING_H

#include <cstdint>

#include "ns3/simulator.h"

#include "roce-packet.h"
#include "roce-simulator-impl.h"
#include "wire-format.h"

namespace mlnet::roce {

// The simulator clock in the model's unit (read directly from our simulator implementation when it runs).
inline TimePs nowPs() {
    if (const RoceSimulatorImpl* impl = RoceSimulatorImpl::Current()) {
        return impl->NowPs();
    }
    return static_cast<TimePs>(ns3::Simulator::Now().GetPicoSeconds());
}

// overheadBytes: charged per frame on top of its size (FrameCharges::OverheadBytes()).
inline TimePs wireTimePs(uint64_t frameBytes, uint32_t overheadBytes, uint64_t rateBps) {
    const Uint128 bits = (static_cast<Uint128>(frameBytes) + overheadBytes) * 8;
    return static_cast<TimePs>((bits * 1'000'000'000'000ull + rateBps / 2) / rateBps);
}

// Time to send `bytes` of frames at `rateBps`, excluding per-frame overheads (for pacing arithmetic).
inline TimePs bitsTimePs(uint64_t bits, uint64_t rateBps) {
    return static_cast<TimePs>((static_cast<Uint128>(bits) * 1'000'000'000'000ull + rateBps - 1) / rateBps);
}

// IEEE 802.1Qbb: one pause quantum is 512 bit times at the link rate.
inline TimePs pauseDurationPs(uint16_t quanta, uint64_t rateBps) {
    return bitsTimePs(uint64_t{quanta} * 512, rateBps);
}

}  // namespace mlnet::roce

#endif
