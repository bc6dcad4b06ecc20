#include "episode-memo.h"

#include <algorithm>

#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include "roce-timing.h"
#include "util/mix-hash.h"

namespace mlnet::roce {

EpisodeMemo::EpisodeMemo(const Routing& routing, uint32_t cables, uint32_t mtuPayloadBytes, Fabric fabric)
    : m_routing(routing),
      m_mtuPayloadBytes(mtuPayloadBytes),
      m_fabric(std::move(fabric)),
      m_owner(cables, 0) {}

EpisodeMemo::~EpisodeMemo() = default;

uint64_t EpisodeMemo::ContentKey(const Input& in) {
    uint64_t h = MixHash(uint64_t{in.src} << 32 | in.dst, in.sizeBytes);
    h = MixHash(h, in.priority);
    return MixHash(h, in.pathHash);
}

bool EpisodeMemo::Footprint(uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport, Message& msg) {
    m_cables.clear();
    m_ackCables.clear();
    if (src != dst && (!m_routing.path(src, dst, m_routing.flowKey(sport, dport, false), m_cables) ||
                       !m_routing.path(dst, src, m_routing.flowKey(sport, dport, true), m_ackCables))) {
        return false;
    }
    msg.pathHops = static_cast<uint32_t>(m_cables.size());
    uint64_t h = m_cables.size();
    for (uint32_t c : m_cables) {
        h = MixHash(h, c);
    }
    for (uint32_t c : m_ackCables) {
        h = MixHash(h, c);
    }
    msg.input.pathHash = h;
    m_cables.insert(m_cables.end(), m_ackCables.begin(), m_ackCables.end());
    std::sort(m_cables.begin(), m_cables.end());
    m_cables.erase(std::unique(m_cables.begin(), m_cables.end()), m_cables.end());
    return true;
}

uint32_t EpisodeMemo::NewEpisode(TimePs now) {
    const uint32_t e = m_episodes.acquire();
    Episode& ep = m_episodes[e];
    ep.mode = Mode::Recording;
    ep.startPs = now;
    ep.disturbancesAtStart = Disturbances();
    ep.open = 0;
    ep.cables.clear();
    ep.messages.clear();
    ep.record = nullptr;
    ep.matched.clear();
    ep.matchedCount = 0;
    ep.scan = 0;
    ep.counted = false;
    return e;
}

uint64_t EpisodeMemo::Disturbances() {
    const uint64_t n = m_fabric.disturbances();
    if (n != m_lastDisturbances) {
        m_lastDisturbances = n;
        m_disturbedAtPs = simNowPs();
    }
    return n;
}

void EpisodeMemo::Join(uint32_t e, uint32_t m) {
    m_messages[m].episode = e;
    m_messages[m].slot = static_cast<uint32_t>(m_episodes[e].messages.size());
    m_episodes[e].messages.push_back(m);
}

void EpisodeMemo::Forget(uint32_t e, uint32_t m) {
    std::vector<uint32_t>& list = m_episodes[e].messages;
    const uint32_t slot = m_messages[m].slot, last = list.back();
    list[slot] = last;
    m_messages[last].slot = slot;
    list.pop_back();
    Release(m);
}

void EpisodeMemo::Release(uint32_t m) {
    Message& msg = m_messages[m];
    ++msg.generation;  // its pending callbacks and replay events no longer apply
    msg.sent = nullptr;
    msg.received = nullptr;
    m_messages.release(m);
}

void EpisodeMemo::Claim(uint32_t e, const std::vector<uint32_t>& cables) {
    for (uint32_t c : cables) {
        if (m_owner[c] != e + 1) {
            m_owner[c] = e + 1;
            m_episodes[e].cables.push_back(c);
        }
    }
}

void EpisodeMemo::Start(uint64_t messageId, uint32_t src, uint32_t dst, uint64_t sizeBytes, uint8_t priority,
                        uint16_t flowDstPort, RoceNic::Done sent, RoceNic::Received received) {
    const TimePs now = simNowPs();
    const uint16_t sport = m_fabric.sourcePort(src, dst);
    const uint32_t m = m_messages.acquire();
    {
        Message& msg = m_messages[m];
        msg.input = Input{now, src, dst, sizeBytes, priority, 0};
        msg.id = messageId;
        msg.sport = sport;
        msg.dport = flowDstPort;
        msg.order = m_order++;
        msg.state = State::Simulated;
        msg.receivedDone = !received;
        msg.sentDone = false;
        msg.sent = std::move(sent);
        msg.received = std::move(received);
        if (!Footprint(src, dst, sport, flowDstPort, msg)) {
            m_fabric.start(messageId, src, dst, sizeBytes, priority, sport, flowDstPort, std::move(msg.sent),
                           std::move(msg.received));
            Release(m);
            return;
        }
    }
    const uint64_t key = ContentKey(m_messages[m].input);
    if (ReplayExpected(m, key)) {
        return;
    }
    m_owners.clear();
    for (uint32_t c : m_cables) {
        if (m_owner[c] != 0) {
            m_owners.push_back(m_owner[c] - 1);
        }
    }
    std::sort(m_owners.begin(), m_owners.end());
    m_owners.erase(std::unique(m_owners.begin(), m_owners.end()), m_owners.end());
    if (m_owners.empty()) {
        // Idle cables: a new episode, replayed when a record starts with this message.
        const uint32_t e = NewEpisode(now);
        Join(e, m);
        Claim(e, m_cables);
        if (!ReplayFromStart(e, m, key)) {
            Simulate(m, sizeBytes, sport);
        }
        return;
    }
    // Cables of running episodes: one episode from now on, simulated; a replay among them ends here.
    uint32_t into = m_owners[0];
    for (uint32_t o : m_owners) {
        if (m_episodes[o].mode == Mode::Replaying) {
            Resume(o);
        }
        if (m_episodes[o].messages.size() > m_episodes[into].messages.size()) {
            into = o;
        }
    }
    const std::vector<uint32_t> others = m_owners;
    for (uint32_t o : others) {
        if (o != into) {
            Merge(into, o);
        }
    }
    Join(into, m);
    Claim(into, m_cables);
    Simulate(m, sizeBytes, sport);
}

bool EpisodeMemo::ReplayExpected(uint32_t m, uint64_t key) {
    const Input& in = m_messages[m].input;
    const auto range = m_expected.equal_range(key);
    for (auto it = range.first; it != range.second; ++it) {
        const uint32_t e = it->second.episode, index = it->second.index;
        const Episode& ep = m_episodes[e];
        const Input& want = ep.record->inputs[index];
        if (!SameContent(want, in) || !Near(ep.startPs + want.atPs, in.atPs) ||
            !std::all_of(m_cables.begin(), m_cables.end(),
                         [&](uint32_t c) { return m_owner[c] == 0 || m_owner[c] == e + 1; })) {
            continue;
        }
        m_expected.erase(it);
        Join(e, m);
        Claim(e, m_cables);
        Replay(e, m, index);
        return true;
    }
    return false;
}

bool EpisodeMemo::ReplayFromStart(uint32_t e, uint32_t m, uint64_t key) {
    const auto it = m_byFirst.find(key);
    if (it == m_byFirst.end()) {
        return false;
    }
    Record* best = nullptr;
    uint32_t bestIndex = 0;
    for (Record* r : it->second) {
        for (uint32_t i = 0; i < r->inputs.size() && r->inputs[i].atPs <= kTiePs; ++i) {
            if (r->keys[i] == key && SameContent(r->inputs[i], m_messages[m].input) &&
                (!best || r->score > best->score)) {
                best = r;
                bestIndex = i;
                break;
            }
        }
    }
    if (!best) {
        return false;
    }
    if (const auto learn = m_learn.find(best); learn != m_learn.end()) {
        // Its last replay diverged: this time the episode is recorded, from every message of its first
        // instant (each may open an episode of its own until their cables meet).
        const TimePs now = simNowPs();
        if (learn->second == kNever) {
            learn->second = now;
            return false;
        }
        if (now <= learn->second + kTiePs) {
            return false;
        }
        m_learn.erase(learn);
    }
    if (m_lastDisturbances > 0 && simNowPs() < m_disturbedAtPs + kQuietPs) {
        return false;
    }
    if (m_stats.diverged > kDivergenceGrace && m_stats.diverged * 4 > m_stats.replayed) {
        return false;  // replays here end more often than they finish: the approximation would dominate
    }
    Episode& ep = m_episodes[e];
    ep.mode = Mode::Replaying;
    ep.record = best;
    ep.startPs = m_messages[m].input.atPs - best->inputs[bestIndex].atPs;
    ep.matched.assign(best->inputs.size(), 0);
    ep.matchedCount = 0;
    for (uint32_t i = 0; i < best->inputs.size(); ++i) {
        if (i != bestIndex) {
            m_expected.emplace(best->keys[i], Expect{e, i});
        }
    }
    Replay(e, m, bestIndex);
    WatchInputs(e);
    return true;
}

void EpisodeMemo::WatchInputs(uint32_t e) {
    Episode& ep = m_episodes[e];
    while (ep.scan < ep.matched.size() && ep.matched[ep.scan]) {
        ++ep.scan;
    }
    if (ep.scan == ep.matched.size()) {
        return;
    }
    const TimePs due = ep.startPs + ep.record->inputs[ep.scan].atPs + kTiePs + 1, now = simNowPs();
    ns3::Simulator::Schedule(ns3::PicoSeconds(due > now ? due - now : 0), &EpisodeMemo::CheckInputs, this, e,
                             ep.generation);
}

void EpisodeMemo::CheckInputs(uint32_t e, uint32_t generation) {
    Episode& ep = m_episodes[e];
    if (ep.generation != generation || ep.mode != Mode::Replaying) {
        return;
    }
    while (ep.scan < ep.matched.size() && ep.matched[ep.scan]) {
        ++ep.scan;
    }
    if (ep.scan < ep.matched.size() && ep.startPs + ep.record->inputs[ep.scan].atPs + kTiePs < simNowPs()) {
        Resume(e);  // a recorded message did not come: what the record says next no longer applies
        return;
    }
    WatchInputs(e);
}

void EpisodeMemo::CableDown(uint32_t cable) {
    if (m_owner[cable] != 0 && m_episodes[m_owner[cable] - 1].mode == Mode::Replaying) {
        Resume(m_owner[cable] - 1);
    }
}

void EpisodeMemo::Unexpect(uint32_t e) {
    Episode& ep = m_episodes[e];
    if (ep.mode != Mode::Replaying) {
        return;
    }
    for (uint32_t i = 0; i < ep.record->inputs.size(); ++i) {
        if (ep.matched[i]) {
            continue;
        }
        const auto range = m_expected.equal_range(ep.record->keys[i]);
        for (auto it = range.first; it != range.second; ++it) {
            if (it->second.episode == e && it->second.index == i) {
                m_expected.erase(it);
                break;
            }
        }
    }
}

void EpisodeMemo::Simulate(uint32_t m, uint64_t sizeBytes, uint16_t sport) {
    Message& msg = m_messages[m];
    const uint32_t e = msg.episode;
    m_episodes[e].open += msg.receivedDone ? 1 : 2;
    const uint32_t generation = msg.generation;
    RoceNic::Done sent = [this, m, generation](const FlowCompletion& c) {
        if (m_messages[m].generation != generation) {
            return;
        }
        m_messages[m].sentAtPs = simNowPs();
        FlowCompletion done = c;
        if (m_messages[m].state == State::Resumed) {
            // A replay's message that went on at packet level: its completion is the whole message's.
            done.startPs = m_messages[m].input.atPs;
            done.sizeBytes = m_messages[m].input.sizeBytes;
            done.flowId = m_messages[m].id;
        }
        const RoceNic::Done callback = m_messages[m].sent;
        if (callback) {
            callback(done);
        }
        Completed(m, true);
    };
    RoceNic::Received received;
    if (!msg.receivedDone) {
        received = [this, m, generation](uint64_t, TimePs atPs) {
            if (m_messages[m].generation != generation) {
                return;
            }
            m_messages[m].receivedAtPs = simNowPs();
            const RoceNic::Received callback = m_messages[m].received;
            callback(m_messages[m].id, atPs);
            Completed(m, false);
        };
    }
    m_fabric.start(msg.id, msg.input.src, msg.input.dst, sizeBytes, msg.input.priority, sport, msg.dport,
                   std::move(sent), std::move(received));
}

void EpisodeMemo::Replay(uint32_t e, uint32_t m, uint32_t index) {
    const Episode& ep = m_episodes[e];
    const Output& out = ep.record->outputs[index];
    Message& msg = m_messages[m];
    msg.state = State::Replayed;
    msg.recordIndex = index;
    m_episodes[e].matched[index] = 1;
    ++m_episodes[e].matchedCount;
    m_episodes[e].open += msg.receivedDone ? 1 : 2;
    ++m_replayedInFlight;
    ++m_stats.replayedMessages;
    m_stats.replayedBytes += msg.input.sizeBytes;
    const TimePs now = simNowPs();
    const auto after = [&](TimePs relPs) {
        const TimePs at = ep.startPs + relPs;
        return ns3::PicoSeconds(at > now ? at - now : 0);
    };
    if (!msg.receivedDone) {
        ns3::Simulator::Schedule(after(out.receivedPs), &EpisodeMemo::ReplayReceived, this, m,
                                 msg.generation);
    }
    ns3::Simulator::Schedule(after(out.sentPs), &EpisodeMemo::ReplaySent, this, m, msg.generation);
}

void EpisodeMemo::ReplayReceived(uint32_t m, uint32_t generation) {
    Message& msg = m_messages[m];
    if (msg.generation != generation || msg.state != State::Replayed || msg.receivedDone) {
        return;
    }
    msg.receivedDone = true;
    m_deliveredBytes += msg.input.sizeBytes;
    const RoceNic::Received callback = msg.received;
    callback(msg.id, simNowPs());
    Completed(m, false);
}

void EpisodeMemo::ReplaySent(uint32_t m, uint32_t generation) {
    Message& msg = m_messages[m];
    if (msg.generation != generation || msg.state != State::Replayed || msg.sentDone) {
        return;
    }
    --m_replayedInFlight;
    if (!msg.received) {
        m_deliveredBytes += msg.input.sizeBytes;  // nobody waits for its arrival: counted with its end
    }
    const uint64_t packets = (msg.input.sizeBytes + m_mtuPayloadBytes - 1) / m_mtuPayloadBytes;
    m_stats.replayedPacketHops += std::max<uint64_t>(packets, 1) * msg.pathHops;
    const FlowCompletion c = CompletionOf(msg);
    const RoceNic::Done callback = msg.sent;
    if (callback) {
        callback(c);
    }
    Completed(m, true);
}

FlowCompletion EpisodeMemo::CompletionOf(const Message& msg) const {
    return FlowCompletion{
        msg.id, msg.input.src, msg.input.dst, msg.sport, msg.input.sizeBytes, msg.input.atPs, simNowPs(),
        0,      true};
}

void EpisodeMemo::Completed(uint32_t m, bool sentSide) {
    Message& msg = m_messages[m];
    (sentSide ? msg.sentDone : msg.receivedDone) = true;
    const uint32_t e = msg.episode;
    Episode& episode = m_episodes[e];
    if (episode.mode == Mode::Recording && episode.messages.size() > kMaxRecordedMessages / 10) {
        episode.mode = Mode::Live;  // too large to keep: its records would be memory for nothing
    }
    if (episode.mode == Mode::Live && msg.sentDone && msg.receivedDone) {
        Forget(e, m);  // a simulated episode keeps only what is in flight
    }
    if (--m_episodes[e].open == 0) {
        // Idle cables, but the episode's next step may be about to start: it ends only if none does.
        Episode& ep = m_episodes[e];
        if (ep.mode == Mode::Replaying && ep.matchedCount == ep.matched.size() && !ep.counted) {
            ep.counted = true;  // the record played to its end
            ++m_stats.replayed;
            ++ep.record->score;
            TimePs end = 0;
            for (const Output& o : ep.record->outputs) {
                end = std::max(end, o.sentPs);
            }
            m_stats.replayedPs += end;
            m_stats.spans.push_back(
                {ep.startPs, ep.startPs + end, static_cast<uint32_t>(ep.messages.size())});
        }
        ns3::Simulator::Schedule(ns3::PicoSeconds(kLingerPs), &EpisodeMemo::LingerEnd, this, e, ep.generation,
                                 ++ep.lingerTicket);
    }
}

void EpisodeMemo::LingerEnd(uint32_t e, uint32_t generation, uint32_t ticket) {
    const Episode& ep = m_episodes[e];
    if (ep.generation == generation && ep.lingerTicket == ticket && ep.open == 0) {
        Close(e);
    }
}

void EpisodeMemo::Resume(uint32_t e) {
    Unexpect(e);
    Episode& ep = m_episodes[e];
    ep.mode = Mode::Live;
    ++m_stats.diverged;
    ep.record->score = ep.record->score / 2 - 1;
    m_learn[ep.record] = kNever;
    const TimePs now = simNowPs();
    const std::vector<uint32_t> messages = ep.messages;
    for (uint32_t m : messages) {
        Message& msg = m_messages[m];
        if (msg.state != State::Replayed || msg.sentDone || (msg.received && msg.receivedDone)) {
            continue;  // simulated, done, or only its acknowledgement still to come (replayed as recorded)
        }
        // Recorded progress: the bytes in by now at the rate the record's message took to arrive.
        const Output& out = m_episodes[e].record->outputs[msg.recordIndex];
        const TimePs begin = msg.input.atPs,
                     end = m_episodes[e].startPs + (msg.received ? out.receivedPs : out.sentPs);
        uint64_t done = 0;
        if (end > begin && now > begin) {
            const double fraction = static_cast<double>(now - begin) / static_cast<double>(end - begin);
            done = static_cast<uint64_t>(fraction * static_cast<double>(msg.input.sizeBytes)) /
                   m_mtuPayloadBytes * m_mtuPayloadBytes;
        }
        done = std::min(
            done, msg.input.sizeBytes > m_mtuPayloadBytes ? msg.input.sizeBytes - m_mtuPayloadBytes : 0);
        ++msg.generation;  // the replay's completion events no longer apply
        msg.state = State::Resumed;
        --m_replayedInFlight;
        ++m_stats.resumedMessages;
        m_deliveredBytes += done;
        // The pending completions stay counted in `open`: the packet-level message fires them.
        m_episodes[e].open -= msg.received ? 2 : 1;
        const uint16_t sport = m_fabric.sourcePort(msg.input.src, msg.input.dst);
        Simulate(m, msg.input.sizeBytes - done, sport);
    }
}

void EpisodeMemo::Merge(uint32_t into, uint32_t from) {
    Episode& a = m_episodes[into];
    Episode& b = m_episodes[from];

    if (a.mode == Mode::Recording && b.mode == Mode::Recording) {
        a.startPs = std::min(a.startPs, b.startPs);  // both began on idle cables: so does their union
        a.disturbancesAtStart = std::min(a.disturbancesAtStart, b.disturbancesAtStart);
    } else {
        a.mode = Mode::Live;
    }
    a.open += b.open;
    for (uint32_t m : b.messages) {
        m_messages[m].episode = into;
        m_messages[m].slot = static_cast<uint32_t>(a.messages.size());
        a.messages.push_back(m);
    }
    for (uint32_t c : b.cables) {
        m_owner[c] = into + 1;
        a.cables.push_back(c);
    }
    b.messages.clear();
    b.cables.clear();
    ++b.generation;
    m_episodes.release(from);
}

void EpisodeMemo::Close(uint32_t e) {
    Episode& ep = m_episodes[e];
    ++m_stats.episodes;
    switch (ep.mode) {
        case Mode::Recording:
            if (Disturbances() == ep.disturbancesAtStart) {
                Keep(ep);
            }
            break;
        case Mode::Replaying:
            Unexpect(e);
            if (!ep.counted) {
                ++m_stats.diverged;  // a message of the record never came
                ep.record->score = ep.record->score / 2 - 1;
                m_learn[ep.record] = kNever;
            }
            break;
        case Mode::Live:
            break;
    }
    for (uint32_t c : ep.cables) {
        if (m_owner[c] == e + 1) {
            m_owner[c] = 0;
        }
    }
    for (uint32_t m : ep.messages) {
        Release(m);
    }
    ep.messages.clear();
    ep.cables.clear();
    ++ep.generation;
    m_episodes.release(e);
}

void EpisodeMemo::Keep(const Episode& ep) {
    if (ep.messages.size() > kMaxRecordedMessages / 10 ||
        m_recordedMessages + ep.messages.size() > kMaxRecordedMessages) {
        return;
    }
    std::vector<uint32_t> order = ep.messages;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        const Message &x = m_messages[a], &y = m_messages[b];
        return x.input.atPs != y.input.atPs ? x.input.atPs < y.input.atPs : x.order < y.order;
    });
    auto record = std::make_unique<Record>();
    for (uint32_t m : order) {
        const Message& msg = m_messages[m];
        Input in = msg.input;
        in.atPs -= ep.startPs;
        record->inputs.push_back(in);
        Output out;
        out.receivedPs = msg.received ? msg.receivedAtPs - ep.startPs : 0;
        out.sentPs = msg.sentAtPs - ep.startPs;
        record->outputs.push_back(out);
    }
    for (const Input& in : record->inputs) {
        record->keys.push_back(ContentKey(in));
    }
    uint32_t& count = m_recordsPerFirst[record->keys[0]];
    if (count >= kRecordsPerKey) {
        return;
    }
    ++count;
    ++m_stats.recorded;
    m_recordedMessages += record->inputs.size();
    for (uint32_t i = 0; i < record->inputs.size() && record->inputs[i].atPs <= kTiePs; ++i) {
        std::vector<Record*>& list = m_byFirst[record->keys[i]];
        if (std::find(list.begin(), list.end(), record.get()) == list.end()) {
            list.push_back(record.get());
        }
    }
    m_store.push_back(std::move(record));
}

}  // namespace mlnet::roce
