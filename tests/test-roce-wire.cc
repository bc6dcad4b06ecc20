// RoCEv2 wire format: frame sizes, header bytes, ICRC against a frame captured from a ConnectX-4 Lx, pcap
// files, and tshark's decoding of every frame kind.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "pcap-writer.h"
#include "trace-test-util.h"
#include "wire-format.h"

namespace mlnet::roce {
namespace {

constexpr uint32_t kMtu = 1000;
constexpr std::size_t kIpOffset = kEthHeaderBytes;
constexpr std::size_t kUdpOffset = kIpOffset + kIpv4HeaderBytes;
constexpr std::size_t kBthOffset = kUdpOffset + kUdpHeaderBytes;

FrameContext context(bool withInt = false) {
    FrameContext ctx;
    ctx.srcNodeId = 1;
    ctx.srcPort = 2;
    ctx.dstNodeId = 300;
    ctx.dstPort = 5;
    ctx.mtuPayloadBytes = kMtu;
    ctx.withInt = withInt;
    return ctx;
}

RocePacket dataPacket(uint64_t seq, uint32_t payloadBytes) {
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

RocePacket ackPacket(PacketKind kind, uint64_t seq) {
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

RocePacket cnpPacket() {
    RocePacket p;
    p.kind = PacketKind::Cnp;
    p.priority = 6;
    p.ecn = kEcnEct0;
    p.srcHost = 257;
    p.dstHost = 1;
    p.dstQp = 11;
    return p;
}

RocePacket pausePacket() {
    RocePacket p;
    p.kind = PacketKind::Pause;
    p.pauseClasses = 0x08;
    p.pauseQuanta[3] = 0xFFFF;
    return p;
}

uint32_t be16(const std::vector<uint8_t>& b, std::size_t at) {
    return (uint32_t{b[at]} << 8) | b[at + 1];
}
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
uint32_t le32(const std::string& b, std::size_t at) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) {
        v = (v << 8) | static_cast<uint8_t>(b[at + i]);
    }
    return v;
}

// The ICRC as it sits at the end of the IB packet (little-endian), for a frame captured whole.
uint32_t trailingIcrc(const std::vector<uint8_t>& b) {
    const std::size_t end = kIpOffset + be16(b, kIpOffset + 2);
    return uint32_t{b[end - 4]} | (uint32_t{b[end - 3]} << 8) | (uint32_t{b[end - 2]} << 16) |
           (uint32_t{b[end - 1]} << 24);
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
        EXPECT_EQ(frameBytesOf(packets[0], ctx), dataFrameBytes(1000, withInt ? intBytes(3) : 0));
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
    p.pauseQuanta[0] = 0x1234;
    p.pauseQuanta[7] = 0xFFFF;
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
    EXPECT_EQ(be16(b, 18), 0x1234u);
    EXPECT_EQ(be16(b, 18 + 14), 0xFFFFu);
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

TEST(RoceWirePcap, NanosecondHeaderAndRecords) {
    const std::string path = makeTempDir("roce-wire") + "/trace.pcap";
    PcapWriter w(path, 100);
    const SerializedFrame big = serializeFrame(dataPacket(0, 1000), [] {
        FrameContext ctx = context();
        ctx.maxPayloadInCapture = 1000;
        return ctx;
    }());
    w.write(3'000'000'123ULL, big);
    w.write(3'000'001'000ULL, serializeFrame(pausePacket(), context()));
    EXPECT_EQ(w.frames(), 2u);
    w.close();

    const std::string f = readFileBytes(path);
    ASSERT_EQ(f.size(), 24u + 16 + 100 + 16 + 60);
    EXPECT_EQ(le32(f, 0), 0xA1B23C4Du);
    EXPECT_EQ(le32(f, 4), 0x00040002u);  // version 2.4
    EXPECT_EQ(le32(f, 16), 100u);        // snaplen
    EXPECT_EQ(le32(f, 20), 1u);          // Ethernet
    EXPECT_EQ(le32(f, 24), 3u);          // seconds
    EXPECT_EQ(le32(f, 28), 123u);        // nanoseconds
    EXPECT_EQ(le32(f, 32), 100u);        // captured, cut to snaplen
    EXPECT_EQ(le32(f, 36), 1058u);       // original
    EXPECT_EQ(f.substr(40, 100), std::string(big.bytes.begin(), big.bytes.begin() + 100));
    EXPECT_EQ(le32(f, 140 + 8), 60u);
    EXPECT_EQ(le32(f, 140 + 12), 60u);
}

TEST(RoceWirePcap, AppearsOnlyWhenClosed) {
    const std::string dir = makeTempDir("roce-wire");
    const std::string path = dir + "/a.pcap";
    {
        PcapWriter w(path);
        w.write(0, serializeFrame(cnpPacket(), context()));
        EXPECT_TRUE(std::filesystem::exists(path + ".tmp"));
        EXPECT_FALSE(std::filesystem::exists(path));
        w.close();
        EXPECT_THROW(w.write(1, serializeFrame(cnpPacket(), context())), std::logic_error);
    }
    EXPECT_TRUE(std::filesystem::exists(path));
    EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));

    const std::string abandoned = dir + "/b.pcap";
    {
        PcapWriter w(abandoned);
        w.write(0, serializeFrame(cnpPacket(), context()));
    }
    EXPECT_FALSE(std::filesystem::exists(abandoned));
    EXPECT_FALSE(std::filesystem::exists(abandoned + ".tmp"));
}

TEST(RoceWirePcap, FailureNamesThePath) {
    const std::string path = makeTempDir("roce-wire") + "/missing/dir/c.pcap";
    try {
        PcapWriter w(path);
        FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
}

// Runs a shell command and returns its standard output; fails the test on a non-zero exit.
std::string run(const std::string& command) {
    std::FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) {
        throw std::runtime_error("popen failed: " + command);
    }
    std::string out;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) {
        out.append(buf, n);
    }
    const int status = ::pclose(pipe);
    if (status != 0) {
        throw std::runtime_error("command failed (" + std::to_string(status) + "): " + command);
    }
    return out;
}

TEST(RoceWireTshark, DecodesEveryFrameKind) {
    if (std::system("command -v tshark >/dev/null 2>&1") != 0) {
        GTEST_SKIP() << "tshark is not installed";
    }
    const std::string dir = makeTempDir("roce-wire-tshark");
    const std::string path = dir + "/kinds.pcap";
    const FrameContext ctx = context();
    const SerializedFrame data = serializeFrame(dataPacket(7 * kMtu, 30), ctx);
    const SerializedFrame ack = serializeFrame(ackPacket(PacketKind::Ack, 8 * kMtu), ctx);
    const SerializedFrame nak = serializeFrame(ackPacket(PacketKind::Nack, 8 * kMtu), ctx);
    const SerializedFrame cnp = serializeFrame(cnpPacket(), ctx);
    const SerializedFrame big = serializeFrame(dataPacket((uint64_t{1} << 24) * kMtu + 5 * kMtu, kMtu), ctx);
    {
        PcapWriter w(path);
        w.write(1000, data);
        w.write(2000, ack);
        w.write(3000, nak);
        w.write(4000, cnp);
        w.write(5000, serializeFrame(pausePacket(), ctx));
        w.write(6000, big);
        w.close();
    }

    const std::vector<std::string> fields = {"frame.protocols",
                                             "frame.len",
                                             "frame.cap_len",
                                             "ip.src",
                                             "ip.dst",
                                             "ip.dsfield.dscp",
                                             "ip.dsfield.ecn",
                                             "ip.checksum.status",
                                             "udp.dstport",
                                             "infiniband.bth.opcode",
                                             "infiniband.bth.destqp",
                                             "infiniband.bth.psn",
                                             "infiniband.bth.a",
                                             "infiniband.bth.padcnt",
                                             "infiniband.aeth.syndrome",
                                             "infiniband.aeth.msn",
                                             "infiniband.invariant.crc",
                                             "macc.opcode",
                                             "macc.cbfc.enbv",
                                             "macc.cbfc.pause_time.c3",
                                             "eth.dst"};
    std::string command =
        "tshark -r '" + path + "' -o ip.check_checksum:TRUE -T fields -E separator=, -E aggregator='|'";
    for (const std::string& f : fields) {
        command += " -e " + f;
    }
    const std::string errPath = dir + "/tshark.err";
    command += " 2>'" + errPath + "'";
    std::string printed;
    try {
        printed = run(command);
    } catch (const std::runtime_error& e) {
        FAIL() << e.what() << "\n" << readFileBytes(errPath);
    }
    std::istringstream out(printed);

    std::vector<std::map<std::string, std::string>> rows;
    std::string line;
    while (std::getline(out, line)) {
        std::map<std::string, std::string> row;
        std::istringstream cells(line);
        std::string cell;
        for (const std::string& f : fields) {
            std::getline(cells, cell, ',');
            row[f] = cell;
            cell.clear();
        }
        rows.push_back(row);
    }
    ASSERT_EQ(rows.size(), 6u) << "tshark printed:\n" << printed;

    auto crcText = [](const SerializedFrame& s) {
        char text[16];
        const uint32_t icrc = trailingIcrc(s.bytes);
        // tshark reads the four ICRC bytes as a big-endian number.
        std::snprintf(text, sizeof text, "0x%08x",
                      ((icrc & 0xFF) << 24) | ((icrc & 0xFF00) << 8) | ((icrc >> 8) & 0xFF00) | (icrc >> 24));
        return std::string(text);
    };

    const auto& d = rows[0];
    EXPECT_EQ(d.at("frame.protocols"), "eth:ethertype:ip:udp:infiniband");
    EXPECT_EQ(d.at("frame.len"), "90");
    EXPECT_EQ(d.at("ip.src"), "11.0.1.1");
    EXPECT_EQ(d.at("ip.dst"), "11.1.1.1");
    EXPECT_EQ(d.at("ip.dsfield.dscp"), "24");
    EXPECT_EQ(d.at("ip.dsfield.ecn"), "3");
    EXPECT_EQ(d.at("ip.checksum.status"), "1");  // good
    EXPECT_EQ(d.at("udp.dstport"), "4791");
    EXPECT_EQ(d.at("infiniband.bth.opcode"), "4");  // RC SEND Only
    EXPECT_EQ(d.at("infiniband.bth.destqp"), "0x123456");
    EXPECT_EQ(d.at("infiniband.bth.psn"), "7");
    EXPECT_EQ(d.at("infiniband.bth.a"), "1");
    EXPECT_EQ(d.at("infiniband.bth.padcnt"), "2");
    EXPECT_EQ(d.at("infiniband.invariant.crc"), crcText(data));
    EXPECT_EQ(d.at("eth.dst"), "02:00:01:2c:00:05");

    for (const auto* row : {&rows[1], &rows[2]}) {
        EXPECT_EQ(row->at("frame.protocols"), "eth:ethertype:ip:udp:infiniband");
        EXPECT_EQ(row->at("frame.len"), "62");
        EXPECT_EQ(row->at("ip.src"), "11.1.1.1");
        EXPECT_EQ(row->at("infiniband.bth.opcode"), "17");  // RC Acknowledge
        EXPECT_EQ(row->at("infiniband.bth.destqp"), "0x00000b");
        EXPECT_EQ(row->at("infiniband.aeth.msn"), "8");
    }
    EXPECT_EQ(rows[1].at("infiniband.bth.psn"), "7");
    EXPECT_EQ(rows[1].at("infiniband.aeth.syndrome"), "31");  // ACK, credit count 0x1F
    EXPECT_EQ(rows[1].at("infiniband.invariant.crc"), crcText(ack));
    EXPECT_EQ(rows[2].at("infiniband.bth.psn"), "8");
    EXPECT_EQ(rows[2].at("infiniband.aeth.syndrome"), "96");  // NAK, PSN sequence error
    EXPECT_EQ(rows[2].at("infiniband.invariant.crc"), crcText(nak));

    const auto& c = rows[3];
    EXPECT_EQ(c.at("frame.protocols"), "eth:ethertype:ip:udp:infiniband");
    EXPECT_EQ(c.at("frame.len"), "74");
    EXPECT_EQ(c.at("infiniband.bth.opcode"), "129");  // CNP
    EXPECT_EQ(c.at("infiniband.bth.destqp"), "0x00000b");
    EXPECT_EQ(c.at("ip.dsfield.dscp"), "48");
    EXPECT_EQ(c.at("ip.dsfield.ecn"), "2");
    EXPECT_EQ(c.at("ip.checksum.status"), "1");

    const auto& p = rows[4];
    EXPECT_EQ(p.at("frame.protocols"), "eth:ethertype:macc");
    EXPECT_EQ(p.at("frame.len"), "60");
    EXPECT_EQ(p.at("eth.dst"), "01:80:c2:00:00:01");
    EXPECT_EQ(p.at("macc.opcode"), "0x0101");  // class-based flow control (PFC)
    EXPECT_EQ(p.at("macc.cbfc.enbv"), "0x0008");
    EXPECT_EQ(p.at("macc.cbfc.pause_time.c3"), "65535");

    const auto& b = rows[5];  // truncated capture of a full packet after a PSN wrap
    EXPECT_EQ(b.at("frame.len"), "1058");
    EXPECT_EQ(b.at("frame.cap_len"), std::to_string(kBthOffset + kBthBytes + 64));
    EXPECT_EQ(b.at("infiniband.bth.psn"), "5");
    EXPECT_EQ(b.at("infiniband.invariant.crc"), "");
}

}  // namespace
}  // namespace mlnet::roce
