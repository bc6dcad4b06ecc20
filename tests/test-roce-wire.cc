// RoCEv2 wire format: frame sizes, PSNs, PFC pause times, addresses, header bytes and the ICRC against a
// frame captured from a ConnectX-4 Lx.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "roce-wire-test-util.h"
#include "wire-format.h"

namespace mlnet::roce {
namespace {

uint32_t be24(const std::vector<uint8_t>& b, std::size_t at) {
    return (uint32_t{b[at]} << 16) | be16(b, at + 1);
}
uint64_t be64(const std::vector<uint8_t>& b, std::size_t at) {
    uint64_t v = 0;
    for (std::size_t i = 0; i < 8; ++i) {
        v = (v << 8) | b[at + i];
    }
    return v;
}

uint32_t icrcOver(const std::vector<uint8_t>& b) {
    return roceV2Icrc(b.data() + kIpOffset, be16(b, kIpOffset + 2) - kIcrcBytes);
}

TEST(RoceWireSizes, MatchRealRoceV2Framing) {
    // 14 Ethernet + 20 IPv4 + 8 UDP + 12 BTH + 1000 payload + 4 ICRC + 4 FCS.
    EXPECT_EQ(dataFrameBytes(1000, 0), 1062u);
    EXPECT_EQ(wireBits(dataFrameBytes(1000, 0)), (1062u + 20u) * 8u);
    EXPECT_EQ(kWireOverheadBytes, 20u);
    EXPECT_EQ(ackFrameBytes(0), 66u);  // + 4 AETH, no payload
    EXPECT_EQ(cnpFrameBytes(), 78u);   // + 16 reserved
    EXPECT_EQ(pauseFrameBytes(), 64u);
    EXPECT_EQ(kRoceV2UdpPort, 4791);
}

TEST(RoceWireSizes, PadsPayloadToFourBytesAndFramesToEthernetMinimum) {
    EXPECT_EQ(dataFrameBytes(1001, 0), 1066u);  // 3 pad bytes
    EXPECT_EQ(dataFrameBytes(1003, 0), 1066u);
    EXPECT_EQ(dataFrameBytes(0, 0), 64u);  // 62 bytes of headers padded to the minimum
    EXPECT_EQ(dataFrameBytes(2, 0), 66u);
    EXPECT_EQ(wireBits(pauseFrameBytes()), 84u * 8u);
}

TEST(RoceWireSizes, IntExtension) {
    EXPECT_EQ(intBytes(0), 4u);
    EXPECT_EQ(intBytes(5), 164u);  // 2 hop count + 2 reserved + 5 * 4 u64
    EXPECT_EQ(dataFrameBytes(1000, intBytes(5)), 1062u + 164u);
    EXPECT_EQ(ackFrameBytes(intBytes(5)), 66u + 164u);
}

TEST(RoceWireSizes, SerializedFramesHaveTheirFrameSize) {
    std::array<IntHop, kMaxIntHops> hops{};
    for (bool withInt : {false, true}) {
        FrameContext ctx = context(withInt);
        ctx.maxPayloadInCapture = 4096;
        std::vector<RocePacket> packets = {dataPacket(0, 1000),
                                           dataPacket(0, 1),
                                           dataPacket(0, 0),
                                           ackPacket(PacketKind::Ack, 1000),
                                           ackPacket(PacketKind::Nack, 0),
                                           cnpPacket(),
                                           pausePacket()};
        for (RocePacket& p : packets) {
            p.hops = hops.data();
            p.intHops = 3;
            const uint32_t frame = frameBytesOf(p, ctx);
            const SerializedFrame s = serializeFrame(p, ctx);
            EXPECT_EQ(s.originalLength + kFcsBytes, frame);
            EXPECT_EQ(s.bytes.size(), s.originalLength);
            EXPECT_GE(frame, kMinFrameBytes);
        }
        // A data packet is charged (and framed with) the INT header only: the hop count, not the records; the
        // ACK echoing them carries every record.
        EXPECT_EQ(frameBytesOf(packets[0], ctx), dataFrameBytes(1000, withInt ? intBytes(0) : 0));
        if (withInt) {
            const SerializedFrame data = serializeFrame(packets[0], ctx);
            const std::size_t intAt = kEthHeaderBytes + kIpv4HeaderBytes + kUdpHeaderBytes + kBthBytes;
            EXPECT_EQ(data.bytes[intAt], 0);
            EXPECT_EQ(data.bytes[intAt + 1], 3) << "the INT header holds the hop count";
        }
        EXPECT_EQ(frameBytesOf(packets[3], ctx), ackFrameBytes(withInt ? intBytes(3) : 0));
        EXPECT_EQ(frameBytesOf(packets[5], ctx), cnpFrameBytes());
    }
}

TEST(RoceWireSizes, FixedIntSlotsAndInconsistentPacketsAreRejected) {
    std::array<IntHop, kMaxIntHops> hops{};
    RocePacket p = dataPacket(0, 1000);
    p.hops = hops.data();
    p.intHops = 2;
    FrameContext ctx = context(true);
    ctx.intHopSlots = 5;
    EXPECT_EQ(frameBytesOf(p, ctx), dataFrameBytes(1000, intBytes(5)));

    p.frameBytes = dataFrameBytes(1000, 0);  // charged without INT, framed with it
    EXPECT_THROW(serializeFrame(p, ctx), std::invalid_argument);
    p.frameBytes = dataFrameBytes(1000, intBytes(5));
    EXPECT_NO_THROW(serializeFrame(p, ctx));

    p.intHops = 6;  // more hops than slots
    EXPECT_THROW(frameBytesOf(p, ctx), std::invalid_argument);
    p.intHops = 1;
    p.hops = nullptr;
    EXPECT_THROW(frameBytesOf(p, ctx), std::invalid_argument);
    ctx.mtuPayloadBytes = 0;
    EXPECT_THROW(frameBytesOf(dataPacket(0, 10), ctx), std::invalid_argument);
    EXPECT_NO_THROW(frameBytesOf(pausePacket(), ctx));
}

TEST(RoceWirePsn, WrapsAt24BitsWhileTheByteSequenceIs64Bit) {
    const uint64_t wrap = uint64_t{1} << 24;
    EXPECT_EQ(psnOf(0, kMtu), 0u);
    EXPECT_EQ(psnOf(999, kMtu), 0u);
    EXPECT_EQ(psnOf(1000, kMtu), 1u);
    EXPECT_EQ(psnOf((wrap - 1) * kMtu, kMtu), 0xFFFFFFu);
    EXPECT_EQ(psnOf(wrap * kMtu, kMtu), 0u);
    EXPECT_EQ(psnOf((wrap + 5) * kMtu + 17, kMtu), 5u);
    // A flow well past 4 GiB and past several PSN wraps.
    const uint64_t seq = (3 * wrap + 12345) * uint64_t{4096};
    EXPECT_GT(seq, uint64_t{1} << 32);
    EXPECT_EQ(psnOf(seq, 4096), 12345u);

    // On the wire: data PSN, ACK PSN (last acknowledged packet) and NAK PSN (expected packet) across the
    // wrap.
    const FrameContext ctx = context();
    EXPECT_EQ(be24(serializeFrame(dataPacket(wrap * kMtu, kMtu), ctx).bytes, kBthOffset + 9), 0u);
    EXPECT_EQ(be24(serializeFrame(ackPacket(PacketKind::Ack, wrap * kMtu), ctx).bytes, kBthOffset + 9),
              0xFFFFFFu);
    EXPECT_EQ(be24(serializeFrame(ackPacket(PacketKind::Nack, wrap * kMtu), ctx).bytes, kBthOffset + 9), 0u);
}

TEST(RoceWirePfc, PauseDurationIsQuantaTimes512BitTimes) {
    // 65535 * 512 bits = 33,553,920 bits = 335,539.2 ns at 100 Gb/s, rounded up.
    EXPECT_EQ(pauseDurationNs(65535, 100'000'000'000ULL), 335'540u);
    EXPECT_EQ(pauseDurationNs(65535, 400'000'000'000ULL), 83'885u);  // 83,884.8
    EXPECT_EQ(pauseDurationNs(1, 100'000'000'000ULL), 6u);           // 5.12
    EXPECT_EQ(pauseDurationNs(1, 512'000'000'000ULL), 1u);           // exact
    EXPECT_EQ(pauseDurationNs(0, 100'000'000'000ULL), 0u);
    EXPECT_EQ(pauseDurationNs(65535, 10'000'000'000ULL), 3'355'392u);
    EXPECT_THROW(pauseDurationNs(1, 0), std::invalid_argument);
}

TEST(RoceWireAddress, HpccHostAddressesAndPortMacs) {
    EXPECT_EQ(hostIpv4(0), 0x0B000001u);    // 11.0.0.1
    EXPECT_EQ(hostIpv4(1), 0x0B000101u);    // 11.0.1.1
    EXPECT_EQ(hostIpv4(257), 0x0B010101u);  // 11.1.1.1
    EXPECT_EQ(hostIpv4(65535), 0x0BFFFF01u);
    EXPECT_EQ(hostIpv4(65536), 0x0C000001u);
    EXPECT_NO_THROW(hostIpv4(kMaxIpv4NodeId - 1));
    EXPECT_THROW(hostIpv4(kMaxIpv4NodeId), std::out_of_range);
    EXPECT_EQ(portMac(0x123456, 0x0789), (MacAddress{0x02, 0x12, 0x34, 0x56, 0x07, 0x89}));
    EXPECT_THROW(portMac(1u << 24, 0), std::out_of_range);
    EXPECT_THROW(portMac(0, 1u << 16), std::out_of_range);
}

TEST(RoceWireBytes, Ipv4HeaderChecksumIsValid) {
    // A textbook header: its checksum is 0xb861.
    std::vector<uint8_t> header = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                                   0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
    EXPECT_EQ(ipv4Checksum(header.data(), header.size()), 0xb861);

    const FrameContext ctx = context();
    for (const RocePacket& p : {dataPacket(5000, 1000), ackPacket(PacketKind::Ack, 7), cnpPacket()}) {
        const SerializedFrame s = serializeFrame(p, ctx);
        EXPECT_EQ(ipv4Checksum(s.bytes.data() + kIpOffset, kIpv4HeaderBytes), 0)
            << "header checksum does not verify for kind " << static_cast<int>(p.kind);
        EXPECT_NE(be16(s.bytes, kIpOffset + 10), 0u);
    }
}

TEST(RoceWireBytes, IcrcMatchesFrameCapturedFromConnectX4) {
    // A CNP captured on a ConnectX-4 Lx (published with scapy's RoCE tests); its ICRC bytes are 82 fd 00 2a.
    const std::vector<uint8_t> ip = {0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61,
                                     0x0a, 0x00, 0x11, 0x01, 0x0a, 0x00, 0x12, 0x01, 0x00, 0x00, 0x12, 0xb7,
                                     0x00, 0x28, 0x00, 0x00, 0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18,
                                     0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                     0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    EXPECT_EQ(roceV2Icrc(ip.data(), ip.size()), 0x2a00fd82u);  // little-endian on the wire
    EXPECT_EQ(ipv4Checksum(ip.data(), kIpv4HeaderBytes), 0);
}

TEST(RoceWireBytes, IcrcCoversInvariantFieldsOnly) {
    FrameContext ctx = context();
    ctx.maxPayloadInCapture = 4096;
    for (const RocePacket& p : {dataPacket(5000, 100), ackPacket(PacketKind::Nack, 3000), cnpPacket()}) {
        const SerializedFrame s = serializeFrame(p, ctx);
        const uint32_t icrc = trailingIcrc(s.bytes);
        EXPECT_EQ(icrc, icrcOver(s.bytes));

        // Switches rewrite ECN, DSCP, TTL and the checksums, and FECN/BECN: the ICRC must not change.
        std::vector<uint8_t> variant = s.bytes;
        variant[kIpOffset + 1] ^= 0xFF;
        variant[kIpOffset + 8] -= 3;
        variant[kIpOffset + 10] ^= 0x5A;
        variant[kUdpOffset + 6] = 0x12;
        variant[kBthOffset + 4] ^= 0xC0;
        EXPECT_EQ(icrcOver(variant), icrc);

        std::vector<uint8_t> corrupted = s.bytes;
        corrupted[kBthOffset + 7] ^= 1;  // dest QP
        EXPECT_NE(icrcOver(corrupted), icrc);
    }
}

TEST(RoceWireBytes, DataHeaders) {
    const SerializedFrame s = serializeFrame(dataPacket(7 * kMtu, 30), context());
    const std::vector<uint8_t>& b = s.bytes;
    EXPECT_EQ(s.originalLength, 90u);  // 30 payload + 2 pad
    EXPECT_EQ(be16(b, 12), kEtherTypeIpv4);
    EXPECT_EQ(b[kIpOffset + 1], (24 << 2) | kEcnCe);  // DSCP CS3, CE
    EXPECT_EQ(be16(b, kIpOffset + 2), 76u);
    EXPECT_EQ(b[kIpOffset + 8], 64);  // TTL
    EXPECT_EQ(b[kIpOffset + 9], 17);  // UDP
    EXPECT_EQ(be16(b, kUdpOffset), 49152u);
    EXPECT_EQ(be16(b, kUdpOffset + 2), 4791u);
    EXPECT_EQ(be16(b, kUdpOffset + 4), 56u);
    EXPECT_EQ(be16(b, kUdpOffset + 6), 0u);
    EXPECT_EQ(b[kBthOffset], kBthOpRcSendOnly);
    EXPECT_EQ(b[kBthOffset + 1], 2 << 4);  // pad count 2
    EXPECT_EQ(be16(b, kBthOffset + 2), 0xFFFFu);
    EXPECT_EQ(be24(b, kBthOffset + 5), 0x123456u);
    EXPECT_EQ(b[kBthOffset + 8], 0x80);  // AckReq
    EXPECT_EQ(be24(b, kBthOffset + 9), 7u);
}

TEST(RoceWireBytes, IntExtensionFollowsBthAndAeth) {
    std::array<IntHop, kMaxIntHops> hops{};
    hops[0] = {1000, 2000, 3000, 100'000'000'000ULL};
    hops[1] = {uint64_t{1} << 40, 5, 6, 400'000'000'000ULL};
    RocePacket data = dataPacket(0, 8);
    data.hops = hops.data();
    data.intHops = 2;
    FrameContext ctx = context(true);
    ctx.intHopSlots = 4;
    const std::vector<uint8_t> b = serializeFrame(data, ctx).bytes;
    const std::size_t at = kBthOffset + kBthBytes;
    EXPECT_EQ(be16(b, at), 2u);
    EXPECT_EQ(be16(b, at + 2), 0u);
    EXPECT_EQ(be64(b, at + 4), 1000u);
    EXPECT_EQ(be64(b, at + 4 + 24), 100'000'000'000ULL);
    EXPECT_EQ(be64(b, at + 4 + 32), uint64_t{1} << 40);
    EXPECT_EQ(be64(b, at + 4 + 32 + 24), 400'000'000'000ULL);
    EXPECT_EQ(be64(b, at + 4 + 64), 0u);  // unused slot
    EXPECT_EQ(be16(b, kIpOffset + 2), kIpv4HeaderBytes + kUdpHeaderBytes + kBthBytes + intBytes(4) + 8 + 4);

    RocePacket ack = ackPacket(PacketKind::Ack, 8);
    ack.hops = hops.data();
    ack.intHops = 2;
    const std::vector<uint8_t> a = serializeFrame(ack, ctx).bytes;
    EXPECT_EQ(be16(a, kBthOffset + kBthBytes + kAethBytes), 2u);
    EXPECT_EQ(be64(a, kBthOffset + kBthBytes + kAethBytes + 4 + 8), 2000u);
}

TEST(RoceWireBytes, AckNakAndCnp) {
    const FrameContext ctx = context();
    // ACK of 2500 bytes: packets 0..2 received, the last acknowledged is PSN 2, three messages complete.
    const std::vector<uint8_t> ack = serializeFrame(ackPacket(PacketKind::Ack, 2500), ctx).bytes;
    EXPECT_EQ(ack[kBthOffset], kBthOpRcAcknowledge);
    EXPECT_EQ(ack[kBthOffset + 4], 0x40);  // ECN echo as BECN
    EXPECT_EQ(be24(ack, kBthOffset + 5), 11u);
    EXPECT_EQ(be24(ack, kBthOffset + 9), 2u);
    EXPECT_EQ(ack[kBthOffset + 12], kAethAck);
    EXPECT_EQ(be24(ack, kBthOffset + 13), 3u);

    const std::vector<uint8_t> nak = serializeFrame(ackPacket(PacketKind::Nack, 2000), ctx).bytes;
    EXPECT_EQ(be24(nak, kBthOffset + 9), 2u);
    EXPECT_EQ(nak[kBthOffset + 12], kAethNakPsnSequenceError);
    EXPECT_EQ(be24(nak, kBthOffset + 13), 2u);

    const SerializedFrame cnp = serializeFrame(cnpPacket(), ctx);
    EXPECT_EQ(cnp.originalLength, 74u);
    EXPECT_EQ(cnp.bytes[kIpOffset + 1], (48 << 2) | kEcnEct0);
    EXPECT_EQ(cnp.bytes[kBthOffset], kBthOpCnp);
    EXPECT_EQ(cnp.bytes[kBthOffset + 4], 0x40);  // BECN, as ConnectX sends it
    EXPECT_EQ(be24(cnp.bytes, kBthOffset + 9), 0u);
}

TEST(RoceWireBytes, PfcFrame) {
    RocePacket p = pausePacket();
    p.pauseClasses = 0x81;
    p.pauseQuanta = 0x1234;
    const SerializedFrame s = serializeFrame(p, context());
    const std::vector<uint8_t>& b = s.bytes;
    ASSERT_EQ(b.size(), 60u);
    EXPECT_EQ(s.originalLength, 60u);
    EXPECT_EQ(std::vector<uint8_t>(b.begin(), b.begin() + 6),
              std::vector<uint8_t>(kPfcDestinationMac.begin(), kPfcDestinationMac.end()));
    EXPECT_EQ(std::vector<uint8_t>(b.begin() + 6, b.begin() + 12), (std::vector<uint8_t>{2, 0, 0, 1, 0, 2}));
    EXPECT_EQ(be16(b, 12), kEtherTypeMacControl);
    EXPECT_EQ(be16(b, 14), kPfcOpcode);
    EXPECT_EQ(be16(b, 16), 0x81u);
    // The time of each enabled class (0 and 7), zero for the others.
    for (int q = 0; q < 8; ++q) {
        EXPECT_EQ(be16(b, 18 + 2 * q), q == 0 || q == 7 ? 0x1234u : 0u) << "class " << q;
    }
    for (std::size_t i = 34; i < 60; ++i) {
        EXPECT_EQ(b[i], 0) << "pad byte " << i;
    }
}

TEST(RoceWireBytes, LongPayloadIsTruncatedInTheCapture) {
    FrameContext ctx = context();
    ctx.maxPayloadInCapture = 16;
    const SerializedFrame s = serializeFrame(dataPacket(0, 4000), ctx);
    EXPECT_EQ(s.originalLength, dataFrameBytes(4000, 0) - kFcsBytes);
    EXPECT_EQ(s.bytes.size(), kBthOffset + kBthBytes + 16);
    EXPECT_EQ(be16(s.bytes, kIpOffset + 2), 4000u + 20 + 8 + 12 + 4);  // lengths describe the whole packet
}

}  // namespace
}  // namespace mlnet::roce
