// Time on the wire in picoseconds. A frame occupies the link for its bytes plus a per-frame overhead (with
// real RoCEv2 framing: preamble/SFD and the inter-frame gap, kWireOverheadBytes).
#ifndef MLNET_ROCE_TIMING_H
#define MLNET_ROCE_TIMING_H

#include <cmath>
#include <cstdint>

#include "ns3/simulator.h"

#include "frame-charges.h"
#include "roce-packet.h"
#include "roce-simulator-impl.h"
#include "wire-format.h"

namespace mlnet::roce {

// The network's clock in the model's unit (read directly from our simulator implementation when it runs):
// what the packet model reads and stores.
inline TimePs nowPs() {
    if (const RoceSimulatorImpl* impl = RoceSimulatorImpl::Current()) {
        return impl->NowPs();
    }
    return nowPsThroughNs3();
}
// The simulator's clock (ns-3's Now): what leaves the model (completion and arrival times, trace records).
// Ahead of the network's by the time fast-forward has skipped (RoceSimulatorImpl::ShiftNetwork).
inline TimePs simNowPs() {
    if (const RoceSimulatorImpl* impl = RoceSimulatorImpl::Current()) {
        return impl->SimNowPs();
    }
    return nowPsThroughNs3();
}

// (bits x 10^12 + roundingPs) / rateBps. Frames and pacing quanta stay far below 2^24 bits, where it fits
// 64 bits and the division is one instruction instead of a call to the 128-bit routine (1 % of a packet
// run); the quotient is the same either way.
inline TimePs scaledTimePs(Uint128 bits, uint64_t rateBps, uint64_t roundingPs) {
    if (bits < (Uint128{1} << 24) && rateBps < (uint64_t{1} << 60)) {
        return (static_cast<uint64_t>(bits) * 1'000'000'000'000ull + roundingPs) / rateBps;
    }
    return static_cast<TimePs>((bits * 1'000'000'000'000ull + roundingPs) / rateBps);
}

// overheadBytes: charged per frame on top of its size (FrameCharges::OverheadBytes()).
inline TimePs wireTimePs(uint64_t frameBytes, uint32_t overheadBytes, uint64_t rateBps) {
    return scaledTimePs((static_cast<Uint128>(frameBytes) + overheadBytes) * 8, rateBps, rateBps / 2);
}

// The HPCC reference simulator's serialization and pacing time: ns-3.17's Seconds(bytes * 8.0 / rate), a
// double converted to 64.64 fixed point and truncated to whole nanoseconds (1090 B at 100 Gb/s take 87 ns,
// not 87.2; 1048 B take 83). Its packet trace shows these spacings at a saturated port.
inline TimePs referenceTxTimePs(uint64_t frameBytes, uint64_t rateBps) {
    const double seconds = static_cast<double>(frameBytes) * 8 / static_cast<double>(rateBps);
    const double whole = std::floor(seconds);
    const Uint128 fixed =
        (static_cast<Uint128>(whole) << 64) + static_cast<Uint128>((seconds - whole) * 0x1p64);
    return static_cast<TimePs>((fixed * 1'000'000'000u) >> 64) * kPsPerNs;
}

// ASTRA-sim's ns-3 backend's: ns-3.42's DataRate::CalculateBytesTxTime, bits / rate in 64.64 fixed point
// (the quotient truncated), times 10^9, rounded to the nearest ns (1036 B at 400 Gb/s take 21 ns, not 20.72;
// a tie below the quotient's precision rounds down: 75 B at 400 Gb/s take 1 ns).
inline TimePs astraNs3TxTimePs(uint64_t frameBytes, uint64_t rateBps) {
    const Uint128 fixedSeconds = (static_cast<Uint128>(frameBytes * 8) << 64) / rateBps;
    return static_cast<TimePs>((fixedSeconds * 1'000'000'000u + (Uint128{1} << 63)) >> 64) * kPsPerNs;
}

// The picoseconds a byte takes at rateBps when that is a whole number (8·10^12 / rate: 80 at 100 Gb/s, as at
// every rate that divides 8 Tb/s), else 0. Then wireTimePs(bytes, overhead, rate) is (bytes + overhead) times
// it exactly, since (B·8·10^12 + rate/2) / rate = B·(8·10^12 / rate): a port can take its frames' times by a
// multiplication instead of a division.
inline TimePs wholePsPerByte(uint64_t rateBps) {
    constexpr uint64_t kBitPsPerSecond = 8 * 1'000'000'000'000ull;
    return rateBps != 0 && kBitPsPerSecond % rateBps == 0 ? kBitPsPerSecond / rateBps : 0;
}

// wholePsPerByte for frames charged as framed (their time is wireTimePs), else 0: the reference's framings
// time frames their own way (referenceTxTimePs, astraNs3TxTimePs).
inline TimePs framedPsPerByte(const FrameCharges& charges, uint64_t rateBps) {
    return charges.framing == Framing::RoceV2 ? wholePsPerByte(rateBps) : 0;
}

// What a frame of frameBytes occupies a link at rateBps for under `charges`.
inline TimePs chargedWireTimePs(const FrameCharges& charges, uint64_t frameBytes, uint64_t rateBps) {
    switch (charges.framing) {
        case Framing::Hpcc:
            return referenceTxTimePs(frameBytes, rateBps);
        case Framing::AstraNs3:
            return astraNs3TxTimePs(frameBytes, rateBps);
        case Framing::RoceV2:
            break;
    }
    return wireTimePs(frameBytes, charges.OverheadBytes(), rateBps);
}

// Time to send `bytes` of frames at `rateBps`, excluding per-frame overheads (for pacing arithmetic).
inline TimePs bitsTimePs(uint64_t bits, uint64_t rateBps) {
    return scaledTimePs(bits, rateBps, rateBps - 1);
}

// IEEE 802.1Qbb: one pause quantum is 512 bit times at the link rate.
inline TimePs pauseDurationPs(uint16_t quanta, uint64_t rateBps) {
    return bitsTimePs(uint64_t{quanta} * 512, rateBps);
}

}  // namespace mlnet::roce

#endif
