// The packet as the RoCE model moves it: a compact, pooled descriptor with the fields every layer needs and
// the exact frame size on the wire. Real header bytes are produced from it only for pcap output
// (wire-format.h), so the hot path never serializes, allocates or copies payload.
#ifndef MLNET_ROCE_PACKET_H
#define MLNET_ROCE_PACKET_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "int-hop.h"
#include "roce-route.h"
#include "util/time.h"

namespace mlnet::roce {

enum class PacketKind : uint8_t {
    Data,   // RoCEv2 RC SEND/WRITE: BTH (+ INT) + payload
    Ack,    // BTH + AETH (ACK)
    Nack,   // BTH + AETH (NAK, PSN sequence error)
    Cnp,    // RoCEv2 congestion notification packet (BTH opcode 0x81)
    Pause,  // IEEE 802.1Qbb PFC frame
};

inline constexpr int kNumPriorities = 8;

// Why a frame was lost (drop traces of switches and channels).
enum class DropReason : uint8_t {
    BufferFull,  // the switch buffer had no room: shared pool beyond the threshold and no headroom (or PFC
                 // off)
    LinkDown,    // the cable was down when the frame was on it
    RandomLoss,  // the cable's per-frame error rate
};
// Enough for any path of a 5-tier network; a longer path is an error, never a silent truncation.
inline constexpr int kMaxIntHops = 16;

using IntHop = cc::IntHop;

// IP ECN field values.
inline constexpr uint8_t kEcnNotEct = 0;
inline constexpr uint8_t kEcnEct0 = 2;
inline constexpr uint8_t kEcnCe = 3;

// Two cache lines, aligned: the first holds what a hop reads (the switch's forwarding, queueing, buffer,
// cable and INT fields), the second what the NICs read and the 5-tuple a switch hashes when the
// packet carries no route. Frames of a large run are mostly out of
// cache when their next event comes, so each line the hop path touches is a miss.
struct alignas(64) RocePacket {
    PacketKind kind = PacketKind::Data;
    uint8_t priority = 3;        // 802.1p class, also the switch queue
    uint8_t ecn = kEcnEct0;      // IP ECN bits
    uint8_t intHops = 0;         // INT records in hops
    uint8_t routeHop = 0;        // forwarding vertices of route passed so far
    bool ecnEcho = false;        // ACK: the acknowledged data carried CE (HPCC-compatible NIC mode)
    bool lastOfMessage = false;  // data: the message's final packet (the receiver ACKs it at once)
    uint32_t frameBytes =
        0;  // Ethernet frame incl. FCS; preamble and inter-frame gap are added by the device
    uint32_t dstHost = 0;
    // On the cable: its failure count when the frame left (a frame sent before a failure is lost even if the
    // cable came back).
    uint32_t cableEpoch = 0;
    uint32_t ingressPort = 0;    // switch bookkeeping: where the frame came in
    RocePacket* next = nullptr;  // intrusive FIFO link
    // kMaxIntHops slots when the pool carries INT, else null. In the first line: every switch dequeue of an
    // INT packet stamps a record, and loading the pointer from the second line was a miss on most of them
    // (k8 all-to-all with HPCC).
    IntHop* hops = nullptr;
    RoceRoute route;  // the egress port at every forwarding vertex

    uint32_t srcHost = 0;
    uint32_t srcQp = 0, dstQp = 0;  // queue-pair numbers at the two NICs
    uint32_t payloadBytes = 0;
    uint64_t flow = 0;        // message id: tells a reused QP slot from its previous message
    uint64_t seq = 0;         // data: byte offset of the payload; ACK/NACK: next expected byte
    uint64_t sentPs = 0;      // when the sender built the data packet (echoed on ACKs for RTT samples)
    uint64_t id = 0;          // unique per packet, for traces
    uint16_t udpSrcPort = 0;  // RoCEv2 varies the UDP source port per QP for ECMP entropy
    // PFC frames: class-enable vector and the pause time of those classes (units of 512 bit times at the
    // link rate; 0 resumes). The model's devices pause every class of a frame for the same time.
    uint8_t pauseClasses = 0;
    uint16_t pauseQuanta = 0;
};
static_assert(sizeof(RocePacket) == 128, "RocePacket is two cache lines");
static_assert(offsetof(RocePacket, srcHost) == 64, "the hop path's fields fill the first cache line");

// Free-list allocator: packets are recycled, never freed, so steady state does no heap allocation. INT
// storage is attached to every packet slot only when INT is on, so runs without HPCC do not pay for it.
class PacketPool {
public:
    // With INT, every packet carries room for `intHops` records (at most kMaxIntHops).
    explicit PacketPool(bool withInt = false, uint32_t intHops = kMaxIntHops)
        : m_withInt(withInt), m_intHops(std::min<uint32_t>(intHops, kMaxIntHops)) {}
    PacketPool(const PacketPool&) = delete;
    PacketPool& operator=(const PacketPool&) = delete;

    RocePacket* allocate() {
        RocePacket* p;
        if (m_free) {
            p = m_free;
            m_free = p->next;
        } else {
            if (m_nextInBlock == kBlockPackets) {
                m_blocks.emplace_back(new RocePacket[kBlockPackets]);
                if (m_withInt) {
                    m_intBlocks.emplace_back(new IntHop[kBlockPackets * m_intHops]);
                    for (std::size_t i = 0; i < kBlockPackets; ++i) {
                        m_blocks.back()[i].hops = m_intBlocks.back() + i * m_intHops;
                    }
                }
                m_nextInBlock = 0;
            }
            p = &m_blocks.back()[m_nextInBlock++];
        }
        p->intHops = 0;
        return recycle(p);
    }
    // Turns a packet the caller is done with into a fresh one, as allocate() would hand out, but keeping its
    // INT records: a receiver answers a data packet with an ACK that echoes them, in place of a copy.
    RocePacket* recycle(RocePacket* p) {
        p->next = nullptr;
        p->route.length = 0;
        p->routeHop = 0;
        p->ecnEcho = false;
        p->lastOfMessage = false;
        p->id = ++m_issued;
        return p;
    }
    void release(RocePacket* p) {
        p->next = m_free;
        m_free = p;
    }
    uint64_t issued() const { return m_issued; }
    uint32_t intHops() const { return m_intHops; }
    ~PacketPool() {
        for (RocePacket* b : m_blocks) {
            delete[] b;
        }
        for (IntHop* b : m_intBlocks) {
            delete[] b;
        }
    }

private:
    static constexpr std::size_t kBlockPackets = 4096;
    bool m_withInt;
    uint32_t m_intHops;
    std::vector<RocePacket*> m_blocks;
    std::vector<IntHop*> m_intBlocks;
    std::size_t m_nextInBlock = kBlockPackets;
    RocePacket* m_free = nullptr;
    uint64_t m_issued = 0;
};

// FIFO of packets through their intrusive links.
class PacketQueue {
public:
    bool empty() const { return m_head == nullptr; }
    RocePacket* front() const { return m_head; }
    void push(RocePacket* p) {
        p->next = nullptr;
        if (m_tail) {
            m_tail->next = p;
        } else {
            m_head = p;
        }
        m_tail = p;
    }
    RocePacket* pop() {
        RocePacket* p = m_head;
        m_head = p->next;
        if (!m_head) {
            m_tail = nullptr;
        } else {
            // The next pop reads the new head first, after many other packets' events: start fetching it now
            // (a queued descriptor is usually out of cache by then).
            __builtin_prefetch(m_head);
        }
        p->next = nullptr;
        return p;
    }

private:
    RocePacket* m_head = nullptr;
    RocePacket* m_tail = nullptr;
};

}  // namespace mlnet::roce

#endif
