// Shared by the RoCEv2 wire-format tests (test-roce-wire.cc, test-roce-wire-capture.cc): one packet of every
// kind, the frame context they are serialized in, header offsets and the ICRC at the end of a frame.
#ifndef MLNET_TESTS_ROCE_WIRE_TEST_UTIL_H
#define MLNET_TESTS_ROCE_WIRE_TEST_UTIL_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include "wire-format.h"

namespace mlnet::roce {

inline constexpr uint32_t kMtu = 1000;
inline constexpr std::size_t kIpOffset = kEthHeaderBytes;
inline constexpr std::size_t kUdpOffset = kIpOffset + kIpv4HeaderBytes;
inline constexpr std::size_t kBthOffset = kUdpOffset + kUdpHeaderBytes;

inline FrameContext context(bool withInt = false) {
    FrameContext ctx;
    ctx.srcNodeId = 1;
    ctx.srcPort = 2;
    ctx.dstNodeId = 300;
    ctx.dstPort = 5;
    ctx.mtuPayloadBytes = kMtu;
    ctx.withInt = withInt;
    return ctx;
}

inline RocePacket dataPacket(uint64_t seq, uint32_t payloadBytes) {
    RocePacket p;
    p.kind = PacketKind::Data;
    p.priority = 3;
    p.ecn = kEcnCe;
    p.srcHost = 1;
    p.dstHost = 257;
    p.srcQp = 11;
    p.dstQp = 0x123456;
    p.udpSrcPort = 49152;
    p.seq = seq;
    p.payloadBytes = payloadBytes;
    p.id = 42;
    return p;
}

inline RocePacket ackPacket(PacketKind kind, uint64_t seq) {
    RocePacket p;
    p.kind = kind;
    p.srcHost = 257;
    p.dstHost = 1;
    p.srcQp = 0x123456;
    p.dstQp = 11;
    p.udpSrcPort = 49153;
    p.seq = seq;
    p.ecnEcho = true;
    return p;
}

inline RocePacket cnpPacket() {
    RocePacket p;
    p.kind = PacketKind::Cnp;
    p.priority = 6;
    p.ecn = kEcnEct0;
    p.srcHost = 257;
    p.dstHost = 1;
    p.dstQp = 11;
    return p;
}

inline RocePacket pausePacket() {
    RocePacket p;
    p.kind = PacketKind::Pause;
    p.pauseClasses = 0x08;
    p.pauseQuanta = 0xFFFF;
    return p;
}

inline uint32_t be16(const std::vector<uint8_t>& b, std::size_t at) {
    return (uint32_t{b[at]} << 8) | b[at + 1];
}

// The ICRC as it sits at the end of the IB packet (little-endian), for a frame captured whole.
inline uint32_t trailingIcrc(const std::vector<uint8_t>& b) {
    const std::size_t end = kIpOffset + be16(b, kIpOffset + 2);
    return uint32_t{b[end - 4]} | (uint32_t{b[end - 3]} << 8) | (uint32_t{b[end - 2]} << 16) |
           (uint32_t{b[end - 1]} << 24);
}

}  // namespace mlnet::roce

#endif
