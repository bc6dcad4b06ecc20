// Real RoCEv2 framing: the exact frame sizes the model charges on the wire, and the header bytes of a
// RocePacket for pcap output. The simulator moves descriptors, not bytes; this file is the single place that
// knows the layouts, so that link occupancy and captures agree with what a ConnectX NIC and an Ethernet
// switch would put on the wire.
//
// Frame layouts (network byte order; sizes include FCS, exclude preamble/SFD and inter-frame gap):
//   Data       Ethernet | IPv4 | UDP (dst 4791) | BTH | [INT] | payload | IB pad | ICRC | FCS
//   ACK / NAK  Ethernet | IPv4 | UDP            | BTH | AETH | [INT]             | ICRC | FCS
//   CNP        Ethernet | IPv4 | UDP            | BTH | 16 reserved bytes        | ICRC | FCS
//   PFC        Ethernet (dst 01:80:c2:00:00:01, type 0x8808) | opcode 0x0101 | class vector | 8 quanta | pad
//   | FCS
// Frames shorter than the Ethernet minimum are padded to 64 bytes after the ICRC.
//
// Choices where the standards leave room:
//   - No 802.1Q tag: priority travels as DSCP = 8 * priority (class selector CSn), the "trust DSCP" setup of
//   RoCE
//     fabrics, so the frame sizes match untagged L3 RoCE.
//   - Every data packet is an RC SEND ONLY: the descriptor carries no message boundaries, and SEND ONLY has
//   no extra
//     headers, so sizes equal those of the FIRST/MIDDLE/LAST packets of a multi-packet SEND.
//   - The payload is padded to a multiple of 4 bytes as InfiniBand requires (BTH pad count); sizes include
//   the pad.
//   - INT is our extension, not a standard header: u16 valid-hop count, u16 zero, then per hop slot the four
//     u64 fields of cc::IntHop (time, txBytes, queueBytes, rateBps). It sits right after BTH (data) or AETH
//     (ACK/NAK), inside the ICRC; Wireshark shows it as the start of the InfiniBand payload. Data packets are
//     charged, and captured with, the 4-byte header only (the records the switches add ride along uncharged,
//     as in the reference's fixed-size header); ACKs and NAKs carry every echoed record.
//   - ACK/NAK: the BTH PSN follows the InfiniBand rules (ACK: last acknowledged packet, NAK: the expected
//   packet);
//     the MSN counts completed single-packet messages. An ECN echo (RocePacket::ecnEcho) is the BTH BECN bit,
//     which is also what a CNP carries.
#ifndef MLNET_ROCE_WIRE_FORMAT_H
#define MLNET_ROCE_WIRE_FORMAT_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "roce-packet.h"
#include "util/hpcc-address.h"

namespace mlnet::roce {

inline constexpr uint32_t kEthHeaderBytes = 14;
inline constexpr uint32_t kFcsBytes = 4;
inline constexpr uint32_t kPreambleSfdBytes = 8;
inline constexpr uint32_t kInterFrameGapBytes = 12;
// Added to every frame on the wire, on top of its frame size.
inline constexpr uint32_t kWireOverheadBytes = kPreambleSfdBytes + kInterFrameGapBytes;
inline constexpr uint32_t kIpv4HeaderBytes = 20;
inline constexpr uint32_t kUdpHeaderBytes = 8;
inline constexpr uint32_t kBthBytes = 12;
inline constexpr uint32_t kAethBytes = 4;
inline constexpr uint32_t kIcrcBytes = 4;
inline constexpr uint32_t kCnpPayloadBytes = 16;
inline constexpr uint32_t kMinFrameBytes = 64;
inline constexpr uint16_t kRoceV2UdpPort = 4791;
inline constexpr uint32_t kIntHeaderBytes = 4;
inline constexpr uint32_t kIntHopBytes = 32;
inline constexpr uint32_t kPsnMask = 0xFFFFFF;
inline constexpr uint32_t kPauseQuantumBits = 512;

inline constexpr uint8_t kBthOpRcSendOnly = 0x04;
inline constexpr uint8_t kBthOpRcAcknowledge = 0x11;
inline constexpr uint8_t kBthOpCnp = 0x81;
// AETH syndromes: ACK with credit count 0x1F ("invalid", i.e. end-to-end credits unused), NAK "PSN sequence
// error".
inline constexpr uint8_t kAethAck = 0x1F;
inline constexpr uint8_t kAethNakPsnSequenceError = 0x60;
inline constexpr uint16_t kPfcOpcode = 0x0101;
inline constexpr uint16_t kEtherTypeIpv4 = 0x0800;
inline constexpr uint16_t kEtherTypeMacControl = 0x8808;

// InfiniBand pads the payload to a 4-byte multiple.
constexpr uint32_t ibPadBytes(uint32_t payloadBytes) {
    return (4 - payloadBytes % 4) % 4;
}

// Size of our INT extension carrying the given number of hop slots.
constexpr uint32_t intBytes(uint32_t hops) {
    return kIntHeaderBytes + hops * kIntHopBytes;
}

// A RoCEv2 frame incl. FCS whose InfiniBand part after BTH (extension headers, payload, pad) has
// transportBytes.
constexpr uint32_t roceFrameBytes(uint32_t transportBytes) {
    const uint32_t bytes = kEthHeaderBytes + kIpv4HeaderBytes + kUdpHeaderBytes + kBthBytes + transportBytes +
                           kIcrcBytes + kFcsBytes;
    return bytes < kMinFrameBytes ? kMinFrameBytes : bytes;
}

// intBytes is 0 without INT, else intBytes(hops).
constexpr uint32_t dataFrameBytes(uint32_t payloadBytes, uint32_t intBytes) {
    return roceFrameBytes(intBytes + payloadBytes + ibPadBytes(payloadBytes));
}
constexpr uint32_t ackFrameBytes(uint32_t intBytes) {
    return roceFrameBytes(kAethBytes + intBytes);
}
constexpr uint32_t cnpFrameBytes() {
    return roceFrameBytes(kCnpPayloadBytes);
}
constexpr uint32_t pauseFrameBytes() {
    return kMinFrameBytes;
}

// Bits the frame occupies the link for, preamble and inter-frame gap included.
constexpr uint64_t wireBits(uint32_t frameBytes) {
    return (uint64_t{frameBytes} + kWireOverheadBytes) * 8;
}

// 24-bit on-wire PSN of the packet starting at byte seqBytes; every packet but a flow's last carries a full
// MTU, so the 64-bit byte sequence maps to packet numbers by division. mtuPayloadBytes must be > 0.
constexpr uint32_t psnOf(uint64_t seqBytes, uint32_t mtuPayloadBytes) {
    return static_cast<uint32_t>(seqBytes / mtuPayloadBytes) & kPsnMask;
}

// How long a PFC pause of `quanta` lasts at the link rate, rounded up to whole ns. Throws on rateBps == 0.
TimeNs pauseDurationNs(uint16_t quanta, uint64_t rateBps);

// Addresses as the HPCC tools assign them: host node i is 11.(i/256).(i%256).1 (continuing into 12.x for i >=
// 65536). Throws std::out_of_range for ids whose address would wrap 32 bits (>= kMaxIpv4NodeId).
inline constexpr uint32_t kMaxIpv4NodeId = kMaxHpccIpv4NodeId;
uint32_t hostIpv4(uint32_t nodeId);

// Port MACs: 02 (locally administered, unicast) : 24-bit node id : 16-bit port index, so every port of every
// node is distinct and readable in a capture. Throws std::out_of_range for node ids >= 2^24 or ports >= 2^16.
using MacAddress = std::array<uint8_t, 6>;
MacAddress portMac(uint32_t nodeId, uint32_t port);
inline constexpr MacAddress kPfcDestinationMac = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};

// Where a frame is on the wire and how much of it a capture keeps.
struct FrameContext {
    uint32_t srcNodeId = 0;  // transmitting end of the link: source MAC
    uint32_t srcPort = 0;
    uint32_t dstNodeId =
        0;  // receiving end of the link: destination MAC (PFC uses the reserved group address)
    uint32_t dstPort = 0;
    uint32_t mtuPayloadBytes = 0;  // payload bytes of a full data packet; required for data, ACK and NAK
    bool withInt = false;          // data, ACK and NAK carry the INT extension
    uint32_t intHopSlots = 0;  // hop slots the INT extension reserves; 0: exactly the hops the packet carries
    // The packet was charged its RoCEv2 frame size, which serializeFrame checks; false under the HPCC framing
    // (frame-charges.h), whose charges differ from the real frames the capture still shows.
    bool chargedAsFramed = true;
    uint32_t maxPayloadInCapture =
        64;  // payload bytes kept in the capture; a longer payload truncates the frame
};

// Frame size incl. FCS that the packet has with this context. Throws std::invalid_argument when the packet
// does not fit the context (more INT hops than slots or than kMaxIntHops, INT hops without storage, missing
// MTU).
uint32_t frameBytesOf(const RocePacket& p, const FrameContext& ctx);

// Frame bytes without FCS (the pcap DLT_EN10MB convention), possibly truncated after maxPayloadInCapture
// payload bytes, and the length of the full frame without FCS.
struct SerializedFrame {
    std::vector<uint8_t> bytes;
    uint32_t originalLength = 0;
};

// Throws std::invalid_argument as frameBytesOf does, and when p.frameBytes is set but disagrees with the
// frame the context implies: the capture must show the frame the model actually charged on the wire.
SerializedFrame serializeFrame(const RocePacket& p, const FrameContext& ctx);

// RoCEv2 invariant CRC of a packet given from its IPv4 header to the end of the InfiniBand payload (ICRC
// excluded): CRC-32 over eight 0xFF bytes (the masked LRH) followed by that packet with the variant fields
// (IP DSCP/ECN, TTL, header checksum, UDP checksum, BTH reserved byte incl. FECN/BECN) set to all ones. The
// wire carries the value in little-endian byte order, like an Ethernet FCS.
uint32_t roceV2Icrc(const uint8_t* ipv4Packet, std::size_t length);

// IPv4 header checksum: the ones' complement of the ones' complement sum of the 16-bit words, with the
// checksum field itself counted as found (so a valid header yields 0).
uint16_t ipv4Checksum(const uint8_t* header, std::size_t length);

}  // namespace mlnet::roce

#endif
