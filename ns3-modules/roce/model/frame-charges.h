// What each kind of frame costs on the wire: the bytes a link is busy for and a buffer holds. Two framings:
//   RoceV2 (default): the real frames of wire-format.h, plus preamble/SFD and inter-frame gap per frame.
//   Hpcc: the packet sizes of the HPCC reference simulator, so its published runs can be reproduced frame for
//     frame: data = payload + 48 B (its "PPP" header, which it sizes as an Ethernet header: 14; IPv4 20,
//     UDP 8, sequence/priority 6) + its INT block, ACK/NACK = 14 + 20 + 12 B + INT block, padded to 60 B,
//     PFC = 14 + 20 + 9 B, no preamble and no gap. The INT block is fixed per algorithm whatever the route:
//     42 B for HPCC (five hop slots and a count), 8 B for TIMELY (a timestamp), none otherwise. The time a
//     frame takes is the reference's too (roce-timing.h chargedWireTimePs).
// Captures are real RoCEv2 frames in both framings (pcap-writer.h): the framing changes what is charged, not
// what a capture shows.
#ifndef MLNET_ROCE_FRAME_CHARGES_H
#define MLNET_ROCE_FRAME_CHARGES_H

#include <algorithm>
#include <cstdint>

#include "wire-format.h"

namespace mlnet::roce {

enum class Framing : uint8_t { RoceV2, Hpcc, AstraNs3 };

struct FrameCharges {
    Framing framing = Framing::RoceV2;
    // Hpcc and AstraNs3: the reference's INT block for the algorithm (42, 8 or 0).
    uint32_t hpccIntBlockBytes = 0;

    static constexpr uint32_t kHpccL2HeaderBytes = 14;  // its PppHeader: 2 bytes of protocol, 12 of zeros
    static constexpr uint32_t kHpccDataHeaderBytes = kHpccL2HeaderBytes + 20 + 8 + 6;
    static constexpr uint32_t kHpccAckHeaderBytes = kHpccL2HeaderBytes + 20 + 12;
    static constexpr uint32_t kHpccMinAckBytes = 60;  // the reference pads ACKs to a minimal Ethernet frame
    static constexpr uint32_t kHpccPauseBytes = kHpccL2HeaderBytes + 20 + 9;
    static constexpr uint32_t kHpccIntBlockBytes = 42;   // HPCC: five 8-byte hop slots and a 16-bit count
    static constexpr uint32_t kTimelyIntBlockBytes = 8;  // TIMELY: one 64-bit timestamp
    static constexpr uint32_t kAstraL2HeaderBytes = 2;   // astra-network-ns3's PppHeader: the protocol only
    static constexpr uint32_t kAstraDataHeaderBytes = kAstraL2HeaderBytes + 20 + 8 + 6;
    static constexpr uint32_t kAstraAckHeaderBytes = kAstraL2HeaderBytes + 20 + 12;
    // Its ACK padding still subtracts a 14-byte header from 60: an ACK without INT is 48 B.
    static constexpr uint32_t kAstraMinAckBytes =
        kHpccMinAckBytes - (kHpccL2HeaderBytes - kAstraL2HeaderBytes);
    static constexpr uint32_t kAstraPauseBytes = kAstraL2HeaderBytes + 20 + 9;

    // The HPCC reference's packet sizes or ASTRA-sim's ns-3 backend's (which derive from them): no preamble,
    // no gap, INT as a fixed block, base RTTs from payloads.
    constexpr bool ReferenceSizes() const { return framing != Framing::RoceV2; }

    // A data frame with payloadBytes; withInt: it carries our INT extension (RoceV2 charges its 4-byte
    // header).
    constexpr uint32_t Data(uint32_t payloadBytes, bool withInt) const {
        switch (framing) {
            case Framing::Hpcc:
                return payloadBytes + kHpccDataHeaderBytes + hpccIntBlockBytes;
            case Framing::AstraNs3:
                return payloadBytes + kAstraDataHeaderBytes + hpccIntBlockBytes;
            case Framing::RoceV2:
                break;
        }
        return dataFrameBytes(payloadBytes, withInt ? intBytes(0) : 0);
    }
    // An ACK or NAK echoing intHops INT records (withInt: the NIC runs INT).
    constexpr uint32_t Ack(uint32_t intHops, bool withInt) const {
        switch (framing) {
            case Framing::Hpcc:
                return std::max(kHpccMinAckBytes, kHpccAckHeaderBytes + hpccIntBlockBytes);
            case Framing::AstraNs3:
                return std::max(kAstraMinAckBytes, kAstraAckHeaderBytes + hpccIntBlockBytes);
            case Framing::RoceV2:
                break;
        }
        return ackFrameBytes(withInt ? intBytes(intHops) : 0);
    }
    // The reference has no CNP frame (it echoes ECN on ACKs); a CNP is charged as an ACK there.
    constexpr uint32_t Cnp() const { return ReferenceSizes() ? Ack(0, false) : cnpFrameBytes(); }
    constexpr uint32_t Pause() const {
        switch (framing) {
            case Framing::Hpcc:
                return kHpccPauseBytes;
            case Framing::AstraNs3:
                return kAstraPauseBytes;
            case Framing::RoceV2:
                break;
        }
        return pauseFrameBytes();
    }
    // Bytes charged per frame on top of its size: preamble/SFD and inter-frame gap (none in the reference).
    constexpr uint32_t OverheadBytes() const { return ReferenceSizes() ? 0 : kWireOverheadBytes; }
};

}  // namespace mlnet::roce

#endif
