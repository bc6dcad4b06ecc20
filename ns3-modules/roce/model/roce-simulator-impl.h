// The packet model's simulator implementation, selected through ns-3's SimulatorImplementationType. It runs
// ordinary ns-3 events exactly as ns-3's default implementation does (one order by time, then by the order of
// scheduling; the same event ids, Stop, Cancel, Remove and destroy events; the count leaves out the polls
// idle RoCE ports skip, which ns-3's implementation would run), and also light events: a
// function pointer, an object and one integer, pooled, with no EventImpl allocation, reference counting,
// virtual dispatch or logging check. The RoCE model's per-packet events (transmit complete, delivery,
// wake-ups, CC timers) are light; the rest of ns-3 works unchanged. Light events cannot be cancelled: their
// owners tell stale ones apart (generations).
//
// Two clocks: the simulator's (ns-3's Now, what the run reports) and the network's (NowPs, what the packet
// model reads and stores). They are one and the same until fast-forward skips network time (ShiftNetwork):
// from then on the network's clock lags by the time skipped, every light event is due that much later than
// the network's own clock says, and ns-3 events keep their times.
#ifndef MLNET_ROCE_SIMULATOR_IMPL_H
#define MLNET_ROCE_SIMULATOR_IMPL_H

#include <cstdint>
#include <list>
#include <unordered_set>
#include <vector>

#include "ns3/event-id.h"
#include "ns3/simulator-impl.h"

#include "roce-event-queue.h"
#include "util/time.h"

namespace mlnet::roce {

class RoceSimulatorImpl : public ns3::SimulatorImpl {
public:
    using Call = void (*)(void* object, uint64_t arg);

    static ns3::TypeId GetTypeId();
    RoceSimulatorImpl();
    ~RoceSimulatorImpl() override;

    // The implementation running now, or null when ns-3 runs another one.
    static RoceSimulatorImpl* Current() { return s_current; }
    // Runs call(object, arg) after delayPs (picoseconds: the model sets ns-3's resolution to them).
    void ScheduleCall(TimePs delayPs, Call call, void* object, uint64_t arg) {
        m_queue.PushNewest(m_now + delayPs, m_nextUid++, call, object, arg);
    }
    // The same on the simulator's clock, for the rest of the run (the training loop's events, the scale-up
    // fluid): ShiftNetwork leaves them where they are. `call` must never be scheduled with ScheduleCall too:
    // a shift tells the two kinds apart by it.
    void ScheduleCoreCall(TimePs delayPs, Call call, void* object, uint64_t arg) {
        if (call != m_lastCoreCall) {
            NoteCoreCall(call);
        }
        m_queue.PushNewest(m_now + delayPs, m_nextUid++, call, object, arg);
    }
    // The network's clock (the simulator's minus the lag).
    TimePs NowPs() const { return m_netNow; }
    // The simulator's clock: ns-3's Now, in picoseconds.
    TimePs SimNowPs() const { return m_now; }
    TimePs NetworkLagPs() const { return m_lagPs; }
    // Fast-forward: every pending light event of the network becomes due deltaPs later (earlier when
    // negative) and the network's clock falls behind the simulator's by as much more; ns-3 events and core
    // light events keep their times. Called
    // from an event, never from inside the queue; a negative shift must leave every light event due at or
    // after now. O(pending events).
    void ShiftNetwork(int64_t deltaPs);
    // An event that may never be needed keeps its place in the order: take its uid now, when it would have
    // been scheduled, and schedule it later (if at all) at the time fixed now with ScheduleCallAt. HasPassed
    // tells whether its moment has gone by, i.e. it orders before the event running now.
    uint64_t ReserveUid() { return m_nextUid++; }
    // atPs on the network's clock.
    void ScheduleCallAt(TimePs atPs, uint64_t uid, Call call, void* object, uint64_t arg) {
        m_queue.PushEarlierUid(atPs + m_lagPs, uid, call, object, arg);
    }
    bool HasPassed(TimePs atPs, uint64_t uid) const {
        return atPs < m_netNow || (atPs == m_netNow && uid < m_currentUid);
    }

    // ns3::SimulatorImpl.
    void Destroy() override;
    bool IsFinished() const override;
    void Stop() override;
    void Stop(const ns3::Time& delay) override;
    ns3::EventId Schedule(const ns3::Time& delay, ns3::EventImpl* event) override;
    void ScheduleWithContext(uint32_t context, const ns3::Time& delay, ns3::EventImpl* event) override;
    ns3::EventId ScheduleNow(ns3::EventImpl* event) override;
    ns3::EventId ScheduleDestroy(ns3::EventImpl* event) override;
    void Remove(const ns3::EventId& id) override;
    void Cancel(const ns3::EventId& id) override;
    bool IsExpired(const ns3::EventId& id) const override;
    void Run() override;
    ns3::Time Now() const override;
    ns3::Time GetDelayLeft(const ns3::EventId& id) const override;
    ns3::Time GetMaximumSimulationTime() const override;
    // The queue is this class's own (light events need it); a SchedulerType given to ns-3 is accepted and
    // unused.
    void SetScheduler(ns3::ObjectFactory schedulerFactory) override;
    uint32_t GetSystemId() const override { return 0; }
    uint32_t GetContext() const override { return m_context; }
    uint64_t GetEventCount() const override { return m_executed; }

protected:
    void DoDispose() override;

private:
    // An ns-3 event in the queue: call is RunNs3Event, object its EventImpl (one reference held), arg its
    // context.
    static void RunNs3Event(void* event, uint64_t context);
    uint64_t InsertNs3Event(uint64_t ts, ns3::EventImpl* event, uint32_t context);
    void NoteCoreCall(Call call);
    bool IsCoreCall(Call call) const;

    static RoceSimulatorImpl* s_current;
    RoceEventQueue m_queue;
    std::unordered_set<ns3::EventImpl*> m_removed;  // Simulator::Remove: skipped when due, not counted
    std::list<ns3::EventId> m_destroyEvents;
    uint64_t m_now = 0;
    uint64_t m_netNow = 0;  // m_now - m_lagPs
    uint64_t m_lagPs = 0;
    uint64_t m_nextUid;
    uint64_t m_currentUid;
    uint64_t m_executed = 0;
    uint32_t m_context;
    bool m_stop = false;
    std::vector<RoceEventQueue::Entry>
        m_shiftScratch;  // ShiftNetwork's, kept apart from the fields every event reads
    // The functions core light events call (a handful), and the last one scheduled: a schedule only looks
    // at the list when the function changes.
    std::vector<Call> m_coreCalls;
    Call m_lastCoreCall = nullptr;
};

// Light events and the clock, through RoceSimulatorImpl when it runs and through ns3::Simulator otherwise
// (nowPs() in roce-timing.h); the ns-3 paths out of line, so that the fast ones inline.
TimePs nowPsThroughNs3();
void ScheduleCallThroughNs3(TimePs delayPs, RoceSimulatorImpl::Call call, void* object, uint64_t arg);
inline void ScheduleCall(TimePs delayPs, RoceSimulatorImpl::Call call, void* object, uint64_t arg) {
    if (RoceSimulatorImpl* impl = RoceSimulatorImpl::Current()) {
        impl->ScheduleCall(delayPs, call, object, arg);
    } else {
        ScheduleCallThroughNs3(delayPs, call, object, arg);
    }
}
// Without RoceSimulatorImpl nothing shifts the network: both kinds are ns-3 events.
inline void ScheduleCoreCall(TimePs delayPs, RoceSimulatorImpl::Call call, void* object, uint64_t arg) {
    if (RoceSimulatorImpl* impl = RoceSimulatorImpl::Current()) {
        impl->ScheduleCoreCall(delayPs, call, object, arg);
    } else {
        ScheduleCallThroughNs3(delayPs, call, object, arg);
    }
}
// A member function void(uint64_t) of `object`: ScheduleMember<&Class::Method>(delayPs, object, arg).
template <auto Method, typename T>
void CallMember(void* object, uint64_t arg) {
    (static_cast<T*>(object)->*Method)(arg);
}
template <auto Method, typename T>
void ScheduleMember(TimePs delayPs, T* object, uint64_t arg = 0) {
    ScheduleCall(delayPs, &CallMember<Method, T>, object, arg);
}

}  // namespace mlnet::roce

#endif
