#include "nccl-op.h"

namespace mlnet::nccl {

void NcclCollectives::Op::planAllToAll(uint64_t commSize) {
    const uint32_t n = size();
    const Channels ch = computeChannels(m_shape, m_owner.m_config.env);
    // Point to point rides the ring's connections: its hop latencies, Simple, the per-peer channels.
    m_choice.algo = Algo::Ring;
    m_choice.proto = Proto::Simple;
    m_choice.busBwGBps = (m_shape.nNodes > 1 ? ch.ring.bwInter : ch.ring.bwIntra) * ch.ring.nChannels;
    m_choice.algBwGBps = m_choice.busBwGBps;
    m_bytes = commSize;
    m_peerBytes = commSize / n;
    // NCCL 2.23's split of one peer's data over its channels (enqueue.cc): parts of at least stepSize/2
    // between servers (stepSize/8 inside one), on no more than the per-peer channels.
    const uint64_t step = m_shape.nNodes > 1 ? (128u << 10) : (512u << 10);
    const uint64_t minPart = m_shape.nNodes > 1 ? step / 2 : step / 8;
    uint32_t nChMin = ch.p2pChannelsPerPeer;
    while (nChMin * n > ch.p2pChannels && nChMin > 1) {
        nChMin /= 2;
    }
    m_peerChannels = static_cast<uint32_t>(
        std::max<uint64_t>(1, std::min<uint64_t>(nChMin, (m_peerBytes + minPart - 1) / minPart)));
    m_choice.nChannels = m_peerChannels;
    // A channel's GPU side moves a search channel's speed.
    m_channelBytesPerUs = (m_shape.nNodes > 1 ? ch.ring.bwInter : ch.ring.bwIntra) * 1e3;
    for (Member& m : m_members) {
        // Each peer's parts out and in.
        m.unitsLeft = uint64_t{2} * (n - 1) * m_peerChannels;
    }
}

uint32_t NcclCollectives::Op::proxyOf(uint32_t from, uint32_t to) const {
    const NcclTopology& t = m_owner.m_topology;
    if (!m_owner.m_config.env.pxn || t.serverOf(m_ranks[from]) == t.serverOf(m_ranks[to])) {
        return from;
    }
    const Rank proxy = t.localPeer(m_ranks[from], t.localIndexOf(m_ranks[to]));
    const auto it = std::lower_bound(m_ranks.begin(), m_ranks.end(), proxy);
    return it != m_ranks.end() && *it == proxy ? static_cast<uint32_t>(it - m_ranks.begin()) : from;
}

void NcclCollectives::Op::startAllToAll(uint64_t pos64) {
    const uint32_t pos = static_cast<uint32_t>(pos64), n = size();
    for (uint32_t delta = 1; delta < n; ++delta) {
        const uint32_t to = (pos + delta) % n, from = (pos + n - delta) % n;
        const uint32_t inbound = proxyOf(from, pos), outbound = proxyOf(pos, to);
        for (uint32_t c = 0; c < m_peerChannels; ++c) {
            // The slot names the data's origin: a proxy forwards several origins to one destination.
            expect(inbound, pos, c, kP2p, from, partOf(c),
                   makeCallback<&Op::p2pReceived>(this, pack(pos, c, 0)));
            if (outbound != pos) {
                m_forwards.push_back({outbound, to, pos, c});
                expect(pos, outbound, c, kPxn, to, partOf(c),
                       makeCallback<&Op::pxnReceived>(this, m_forwards.size() - 1));
                transfer(pos, outbound, c, kPxn, to, partOf(c), Callback{});
            } else {
                transfer(pos, to, c, kP2p, pos, partOf(c), makeCallback<&Op::p2pSent>(this, pack(pos, c, 0)));
            }
        }
    }
}

void NcclCollectives::Op::joinAllToAll(uint32_t pos, Callback done, uint32_t record) {
    Member& m = m_members[pos];
    m.done = done;
    m.record = record;
    m.joined = true;
    m_owner.m_network.schedule(0, makeCallback<&Op::startAllToAll>(this, pos));
}

void NcclCollectives::Op::pxnReceived(uint64_t index) {
    const Forward f = m_forwards[index];
    transfer(f.proxy, f.to, f.channel, kP2p, f.origin, partOf(f.channel),
             makeCallback<&Op::p2pSent>(this, pack(f.origin, f.channel, 0)));
}
}  // namespace mlnet::nccl
