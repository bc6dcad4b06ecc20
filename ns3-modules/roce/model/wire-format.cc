#include "wire-format.h"

#include "util/hpcc-address.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mlnet::roce {

namespace {

constexpr uint8_t kIpv4Ttl = 64;
constexpr uint8_t kIpProtoUdp = 17;
constexpr uint16_t kIpv4DontFragment = 0x4000;
constexpr uint16_t kDefaultPKey = 0xFFFF;
constexpr uint8_t kBthBecn = 0x40;      // in the BTH reserved byte, as ConnectX sets it on CNPs
constexpr uint8_t kBthAckReq = 0x80;    // A bit
constexpr uint32_t kPfcBodyBytes = 60;  // minimum frame without FCS
// Offsets inside the IPv4 packet for the ICRC masks.
constexpr std::size_t kIpTosOffset = 1;
constexpr std::size_t kIpTtlOffset = 8;
constexpr std::size_t kIpChecksumOffset = 10;
constexpr std::size_t kUdpChecksumOffset = kIpv4HeaderBytes + 6;
constexpr std::size_t kBthReservedOffset = kIpv4HeaderBytes + kUdpHeaderBytes + 4;
constexpr std::size_t kIcrcMaskedBytes = kIpv4HeaderBytes + kUdpHeaderBytes + kBthBytes;

struct Crc32Table {
    uint32_t entry[256];
    constexpr Crc32Table() : entry() {
        for (uint32_t i = 0; i < 256; ++i) {
            uint32_t c = i;
            for (int k = 0; k < 8; ++k) {
                c = (c & 1) ? (0xEDB88320u ^ (c >> 1)) : (c >> 1);
            }
            entry[i] = c;
        }
    }
};
constexpr Crc32Table kCrc32;

// Reflected CRC-32 (IEEE 802.3) register update without the final inversion, so calls can be chained.
uint32_t crc32Update(uint32_t crc, const uint8_t* data, std::size_t length) {
    for (std::size_t i = 0; i < length; ++i) {
        crc = kCrc32.entry[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
    }
    return crc;
}

class ByteWriter {
public:
    explicit ByteWriter(std::vector<uint8_t>& out) : m_out(out) {}
    void u8(uint32_t v) { m_out.push_back(static_cast<uint8_t>(v)); }
    void u16(uint32_t v) {
        u8(v >> 8);
        u8(v);
    }
    void u24(uint32_t v) {
        u8(v >> 16);
        u16(v);
    }
    void u32(uint32_t v) {
        u16(v >> 16);
        u16(v);
    }
    void u64(uint64_t v) {
        u32(static_cast<uint32_t>(v >> 32));
        u32(static_cast<uint32_t>(v));
    }
    void mac(const MacAddress& m) { m_out.insert(m_out.end(), m.begin(), m.end()); }
    void zeros(std::size_t n) { m_out.insert(m_out.end(), n, 0); }

private:
    std::vector<uint8_t>& m_out;
};

bool isRoce(PacketKind kind) {
    return kind != PacketKind::Pause;
}
bool carriesInt(PacketKind kind) {
    return kind == PacketKind::Data || kind == PacketKind::Ack || kind == PacketKind::Nack;
}

std::string kindName(PacketKind kind) {
    switch (kind) {
        case PacketKind::Data:
            return "data";
        case PacketKind::Ack:
            return "ACK";
        case PacketKind::Nack:
            return "NAK";
        case PacketKind::Cnp:
            return "CNP";
        case PacketKind::Pause:
            return "PFC";
    }
    return "unknown";
}

// Bytes of the INT extension this packet carries in this context (0 without INT).
uint32_t intExtensionBytes(const RocePacket& p, const FrameContext& ctx) {
    if (!ctx.withInt || !carriesInt(p.kind)) {
        return 0;
    }
    if (p.intHops > kMaxIntHops) {
        throw std::invalid_argument("packet " + std::to_string(p.id) + " carries " +
                                    std::to_string(p.intHops) +
                                    " INT hops, more than kMaxIntHops = " + std::to_string(kMaxIntHops));
    }
    if (p.intHops > 0 && p.hops == nullptr) {
        throw std::invalid_argument("packet " + std::to_string(p.id) + " has INT hops but no INT storage");
    }
    if (ctx.intHopSlots != 0 && p.intHops > ctx.intHopSlots) {
        throw std::invalid_argument("packet " + std::to_string(p.id) + " carries " +
                                    std::to_string(p.intHops) + " INT hops, more than the " +
                                    std::to_string(ctx.intHopSlots) + " slots of the INT extension");
    }
    if (ctx.intHopSlots != 0) {
        return intBytes(ctx.intHopSlots);
    }
    // A data packet is charged the INT header only (the hop count): the switches' records ride along
    // uncharged, as in the reference's fixed-size header; the ACK that echoes them carries and is charged for
    // every record.
    return intBytes(p.kind == PacketKind::Data ? 0 : p.intHops);
}

void writeIntExtension(ByteWriter& w, const RocePacket& p, uint32_t extensionBytes) {
    if (extensionBytes == 0) {
        return;
    }
    w.u16(p.intHops);
    w.u16(0);
    const uint32_t records = std::min<uint32_t>(p.intHops, (extensionBytes - kIntHeaderBytes) / kIntHopBytes);
    for (uint32_t i = 0; i < records; ++i) {
        w.u64(p.hops[i].timeNs);
        w.u64(p.hops[i].txBytes);
        w.u64(p.hops[i].queueBytes);
        w.u64(p.hops[i].rateBps);
    }
    w.zeros(extensionBytes - intBytes(records));
}

}  // namespace

TimeNs pauseDurationNs(uint16_t quanta, uint64_t rateBps) {
    if (rateBps == 0) {
        throw std::invalid_argument("pauseDurationNs: link rate must be > 0");
    }
    // At most 65535 * 512 * 1e9 < 2^55: no overflow.
    const uint64_t bitNs = uint64_t{quanta} * kPauseQuantumBits * 1'000'000'000ULL;
    return (bitNs + rateBps - 1) / rateBps;
}

uint32_t hostIpv4(uint32_t nodeId) {
    if (nodeId >= kMaxIpv4NodeId) {
        throw std::out_of_range("node id " + std::to_string(nodeId) + " has no IPv4 address (limit " +
                                std::to_string(kMaxIpv4NodeId) + ")");
    }
    return hpccIpv4(nodeId);
}

MacAddress portMac(uint32_t nodeId, uint32_t port) {
    if (nodeId > 0xFFFFFF || port > 0xFFFF) {
        throw std::out_of_range("no MAC address for node " + std::to_string(nodeId) + " port " +
                                std::to_string(port) + " (node < 2^24, port < 2^16)");
    }
    return {0x02,
            static_cast<uint8_t>(nodeId >> 16),
            static_cast<uint8_t>(nodeId >> 8),
            static_cast<uint8_t>(nodeId),
            static_cast<uint8_t>(port >> 8),
            static_cast<uint8_t>(port)};
}

uint32_t frameBytesOf(const RocePacket& p, const FrameContext& ctx) {
    if (carriesInt(p.kind) && ctx.mtuPayloadBytes == 0) {
        throw std::invalid_argument("FrameContext.mtuPayloadBytes must be > 0 to frame a " +
                                    kindName(p.kind));
    }
    const uint32_t ext = intExtensionBytes(p, ctx);
    switch (p.kind) {
        case PacketKind::Data:
            return dataFrameBytes(p.payloadBytes, ext);
        case PacketKind::Ack:
        case PacketKind::Nack:
            return ackFrameBytes(ext);
        case PacketKind::Cnp:
            return cnpFrameBytes();
        case PacketKind::Pause:
            return pauseFrameBytes();
    }
    throw std::invalid_argument("unknown packet kind");
}

uint32_t roceV2Icrc(const uint8_t* ipv4Packet, std::size_t length) {
    if (length < kIcrcMaskedBytes) {
        throw std::invalid_argument("roceV2Icrc: " + std::to_string(length) +
                                    " bytes cannot hold IPv4, UDP and BTH headers");
    }
    uint8_t masked[kIcrcMaskedBytes];
    std::copy(ipv4Packet, ipv4Packet + kIcrcMaskedBytes, masked);
    masked[kIpTosOffset] = 0xFF;
    masked[kIpTtlOffset] = 0xFF;
    masked[kIpChecksumOffset] = masked[kIpChecksumOffset + 1] = 0xFF;
    masked[kUdpChecksumOffset] = masked[kUdpChecksumOffset + 1] = 0xFF;
    masked[kBthReservedOffset] = 0xFF;
    static constexpr uint8_t kMaskedLrh[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    uint32_t crc = crc32Update(0xFFFFFFFFu, kMaskedLrh, sizeof kMaskedLrh);
    crc = crc32Update(crc, masked, kIcrcMaskedBytes);
    crc = crc32Update(crc, ipv4Packet + kIcrcMaskedBytes, length - kIcrcMaskedBytes);
    return ~crc;
}

uint16_t ipv4Checksum(const uint8_t* header, std::size_t length) {
    uint32_t sum = 0;
    for (std::size_t i = 0; i + 1 < length; i += 2) {
        sum += (uint32_t{header[i]} << 8) | header[i + 1];
    }
    if (length % 2) {
        sum += uint32_t{header[length - 1]} << 8;
    }
    while (sum >> 16) {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    return static_cast<uint16_t>(~sum);
}

SerializedFrame serializeFrame(const RocePacket& p, const FrameContext& ctx) {
    const uint32_t frameBytes = frameBytesOf(p, ctx);
    if (ctx.chargedAsFramed && p.frameBytes != 0 && p.frameBytes != frameBytes) {
        throw std::invalid_argument("packet " + std::to_string(p.id) + " (" + kindName(p.kind) +
                                    ") is charged " + std::to_string(p.frameBytes) +
                                    " bytes on the wire but frames to " + std::to_string(frameBytes) +
                                    " bytes");
    }
    SerializedFrame out;
    out.originalLength = frameBytes - kFcsBytes;
    std::vector<uint8_t>& b = out.bytes;
    b.reserve(std::min<uint32_t>(out.originalLength, 512));
    ByteWriter w(b);

    if (!isRoce(p.kind)) {
        w.mac(kPfcDestinationMac);
        w.mac(portMac(ctx.srcNodeId, ctx.srcPort));
        w.u16(kEtherTypeMacControl);
        w.u16(kPfcOpcode);
        w.u16(p.pauseClasses);
        for (int q = 0; q < kNumPriorities; ++q) {
            w.u16((p.pauseClasses >> q & 1) ? p.pauseQuanta : 0);
        }
        w.zeros(kPfcBodyBytes - b.size());
        return out;
    }

    const uint32_t ext = intExtensionBytes(p, ctx);
    uint32_t payload = 0;  // InfiniBand payload incl. pad, after BTH and extension headers
    uint32_t pad = 0;
    switch (p.kind) {
        case PacketKind::Data:
            pad = ibPadBytes(p.payloadBytes);
            payload = p.payloadBytes + pad;
            break;
        case PacketKind::Cnp:
            payload = kCnpPayloadBytes;
            break;
        default:
            break;
    }
    const uint32_t ibBytes = kBthBytes +
                             (p.kind == PacketKind::Ack || p.kind == PacketKind::Nack ? kAethBytes : 0) +
                             ext + payload + kIcrcBytes;
    const uint32_t udpBytes = kUdpHeaderBytes + ibBytes;
    const uint32_t ipBytes = kIpv4HeaderBytes + udpBytes;

    w.mac(portMac(ctx.dstNodeId, ctx.dstPort));
    w.mac(portMac(ctx.srcNodeId, ctx.srcPort));
    w.u16(kEtherTypeIpv4);

    const std::size_t ipStart = b.size();
    w.u8(0x45);
    w.u8(((p.priority & 7u) << 5) | (p.ecn & 3u));  // DSCP = 8 * priority, then ECN
    w.u16(ipBytes);
    w.u16(static_cast<uint16_t>(p.id));
    w.u16(kIpv4DontFragment);
    w.u8(kIpv4Ttl);
    w.u8(kIpProtoUdp);
    w.u16(0);
    w.u32(hostIpv4(p.srcHost));
    w.u32(hostIpv4(p.dstHost));
    const uint16_t ipSum = ipv4Checksum(b.data() + ipStart, kIpv4HeaderBytes);
    b[ipStart + kIpChecksumOffset] = static_cast<uint8_t>(ipSum >> 8);
    b[ipStart + kIpChecksumOffset + 1] = static_cast<uint8_t>(ipSum);

    // RoCEv2 leaves the UDP checksum unused (0): the ICRC covers the packet.
    w.u16(p.udpSrcPort);
    w.u16(kRoceV2UdpPort);
    w.u16(udpBytes);
    w.u16(0);

    const uint32_t mtu = ctx.mtuPayloadBytes;
    switch (p.kind) {
        case PacketKind::Data:
            w.u8(kBthOpRcSendOnly);
            w.u8(pad << 4);  // SE 0, M 0, pad count, TVer 0
            w.u16(kDefaultPKey);
            w.u8(0);
            w.u24(p.dstQp & kPsnMask);
            w.u8(kBthAckReq);
            w.u24(psnOf(p.seq, mtu));
            writeIntExtension(w, p, ext);
            break;
        case PacketKind::Ack:
        case PacketKind::Nack: {
            const bool nak = p.kind == PacketKind::Nack;
            // ACK: PSN of the last packet acknowledged (the one holding byte seq - 1); NAK: the expected
            // packet.
            const uint32_t psn = nak ? psnOf(p.seq, mtu) : (p.seq == 0 ? kPsnMask : psnOf(p.seq - 1, mtu));
            // Every data packet is a single-packet message, so the MSN is the number of packets completed.
            const uint32_t msn = static_cast<uint32_t>((p.seq + mtu - 1) / mtu) & kPsnMask;
            w.u8(kBthOpRcAcknowledge);
            w.u8(0);
            w.u16(kDefaultPKey);
            w.u8(p.ecnEcho ? kBthBecn : 0);
            w.u24(p.dstQp & kPsnMask);
            w.u8(0);
            w.u24(psn);
            w.u8(nak ? kAethNakPsnSequenceError : kAethAck);
            w.u24(msn);
            writeIntExtension(w, p, ext);
            break;
        }
        case PacketKind::Cnp:
            w.u8(kBthOpCnp);
            w.u8(0);
            w.u16(kDefaultPKey);
            w.u8(kBthBecn);
            w.u24(p.dstQp & kPsnMask);
            w.u8(0);
            w.u24(0);
            w.zeros(kCnpPayloadBytes);
            break;
        case PacketKind::Pause:
            break;
    }

    const uint32_t dataPayload = p.kind == PacketKind::Data ? p.payloadBytes : 0;
    if (dataPayload > ctx.maxPayloadInCapture) {
        w.zeros(ctx.maxPayloadInCapture);
        return out;
    }
    w.zeros(dataPayload + pad);
    const uint32_t icrc = roceV2Icrc(b.data() + ipStart, b.size() - ipStart);
    for (int i = 0; i < 4; ++i) {
        w.u8(icrc >> (8 * i));
    }
    w.zeros(out.originalLength - b.size());
    return out;
}

}  // namespace mlnet::roce
