#include "roce-simulator-impl.h"

#include <algorithm>

#include "ns3/abort.h"
#include "ns3/event-impl.h"
#include "ns3/simulator.h"

namespace mlnet::roce {

NS_OBJECT_ENSURE_REGISTERED(RoceSimulatorImpl);

RoceSimulatorImpl* RoceSimulatorImpl::s_current = nullptr;

namespace {

void InvokeCall(RoceSimulatorImpl::Call call, void* object, uint64_t arg) {
    call(object, arg);
}

}  // namespace

ns3::TypeId RoceSimulatorImpl::GetTypeId() {
    static ns3::TypeId tid = ns3::TypeId("mlnet::roce::RoceSimulatorImpl")
                                 .SetParent<ns3::SimulatorImpl>()
                                 .SetGroupName("Roce")
                                 .AddConstructor<RoceSimulatorImpl>();
    return tid;
}

RoceSimulatorImpl::RoceSimulatorImpl()
    : m_nextUid(ns3::EventId::UID::VALID),
      m_currentUid(ns3::EventId::UID::INVALID),
      m_context(ns3::Simulator::NO_CONTEXT) {
    // The light-event clock is in picoseconds: it serves the model only when ns-3's time steps are
    // picoseconds.
    if (ns3::Time::GetResolution() == ns3::Time::PS) {
        s_current = this;
    }
}

RoceSimulatorImpl::~RoceSimulatorImpl() {
    if (s_current == this) {
        s_current = nullptr;
    }
}

void RoceSimulatorImpl::DoDispose() {
    m_queue.ForEach([](const RoceEventQueue::Entry& e) {
        if (e.call == &RunNs3Event) {
            static_cast<ns3::EventImpl*>(e.object)->Unref();
        }
    });
    m_queue.Clear();
    m_removed.clear();
    if (s_current == this) {
        s_current = nullptr;
    }
    ns3::SimulatorImpl::DoDispose();
}

void RoceSimulatorImpl::SetScheduler(ns3::ObjectFactory) {}

void RoceSimulatorImpl::RunNs3Event(void* event, uint64_t) {
    ns3::EventImpl* e = static_cast<ns3::EventImpl*>(event);
    e->Invoke();  // a cancelled event does nothing, but is counted, as in ns-3's implementation
    e->Unref();
}

uint64_t RoceSimulatorImpl::InsertNs3Event(uint64_t ts, ns3::EventImpl* event, uint32_t context) {
    const uint64_t uid = m_nextUid++;
    m_queue.PushNewest(ts, uid, &RunNs3Event, event, context);
    return uid;
}

void RoceSimulatorImpl::Run() {
    m_stop = false;
    while (!m_queue.Empty() && !m_stop) {
        const RoceEventQueue::Entry e = m_queue.Pop();  // also starts fetching a coming event's state
        const bool ns3Event = e.call == &RunNs3Event;
        if (ns3Event && !m_removed.empty() && m_removed.erase(static_cast<ns3::EventImpl*>(e.object))) {
            static_cast<ns3::EventImpl*>(e.object)->Unref();
            continue;
        }
        ++m_executed;
        m_now = e.ts;
        m_netNow = e.ts - m_lagPs;
        m_currentUid = e.uid;
        // Light events carry no context (they are the model's own); ns-3 events run in theirs.
        m_context = ns3Event ? static_cast<uint32_t>(e.arg) : ns3::Simulator::NO_CONTEXT;
        e.call(e.object, e.arg);
    }
}

void RoceSimulatorImpl::NoteCoreCall(Call call) {
    m_lastCoreCall = call;
    if (!IsCoreCall(call)) {
        m_coreCalls.push_back(call);
    }
}

bool RoceSimulatorImpl::IsCoreCall(Call call) const {
    return std::find(m_coreCalls.begin(), m_coreCalls.end(), call) != m_coreCalls.end();
}

void RoceSimulatorImpl::ShiftNetwork(int64_t deltaPs) {
    NS_ABORT_MSG_IF(deltaPs < 0 && static_cast<uint64_t>(-deltaPs) > m_lagPs,
                    "RoceSimulatorImpl::ShiftNetwork: the network cannot fall behind the simulator");
    m_shiftScratch.clear();
    m_queue.Drain(m_shiftScratch);
    for (RoceEventQueue::Entry& e : m_shiftScratch) {
        if (e.call != &RunNs3Event && !IsCoreCall(e.call)) {
            NS_ABORT_MSG_IF(deltaPs < 0 && e.ts < m_now + static_cast<uint64_t>(-deltaPs),
                            "RoceSimulatorImpl::ShiftNetwork: a light event would be due before now");
            e.ts += static_cast<uint64_t>(deltaPs);
        }
    }
    m_queue.Refill(m_shiftScratch, m_now);
    m_lagPs += static_cast<uint64_t>(deltaPs);
    m_netNow = m_now - m_lagPs;
}

void RoceSimulatorImpl::Destroy() {
    while (!m_destroyEvents.empty()) {
        ns3::Ptr<ns3::EventImpl> event = m_destroyEvents.front().PeekEventImpl();
        m_destroyEvents.pop_front();
        if (!event->IsCancelled()) {
            event->Invoke();
        }
    }
}

bool RoceSimulatorImpl::IsFinished() const {
    return m_queue.Empty() || m_stop;
}

void RoceSimulatorImpl::Stop() {
    m_stop = true;
}

void RoceSimulatorImpl::Stop(const ns3::Time& delay) {
    ns3::Simulator::Schedule(delay, &ns3::Simulator::Stop);
}

ns3::EventId RoceSimulatorImpl::Schedule(const ns3::Time& delay, ns3::EventImpl* event) {
    NS_ABORT_MSG_IF(delay.IsStrictlyNegative(), "RoceSimulatorImpl::Schedule: negative delay");
    const uint64_t ts = m_now + static_cast<uint64_t>(delay.GetTimeStep());
    const uint64_t uid = InsertNs3Event(ts, event, m_context);
    return ns3::EventId(event, ts, m_context, static_cast<uint32_t>(uid));
}

void RoceSimulatorImpl::ScheduleWithContext(uint32_t context, const ns3::Time& delay, ns3::EventImpl* event) {
    // Single-threaded: events from other threads are not supported (ns-3's default implementation queues
    // them).
    NS_ABORT_MSG_IF(delay.IsStrictlyNegative(), "RoceSimulatorImpl::ScheduleWithContext: negative delay");
    InsertNs3Event(m_now + static_cast<uint64_t>(delay.GetTimeStep()), event, context);
}

ns3::EventId RoceSimulatorImpl::ScheduleNow(ns3::EventImpl* event) {
    return Schedule(ns3::Time(0), event);
}

ns3::EventId RoceSimulatorImpl::ScheduleDestroy(ns3::EventImpl* event) {
    ns3::EventId id(ns3::Ptr<ns3::EventImpl>(event, false), m_now, 0xffffffff, ns3::EventId::UID::DESTROY);
    m_destroyEvents.push_back(id);
    ++m_nextUid;  // ns-3's default implementation spends a uid on destroy events too
    return id;
}

ns3::Time RoceSimulatorImpl::Now() const {
    return ns3::TimeStep(m_now);
}

ns3::Time RoceSimulatorImpl::GetDelayLeft(const ns3::EventId& id) const {
    return IsExpired(id) ? ns3::TimeStep(0) : ns3::TimeStep(id.GetTs() - m_now);
}

void RoceSimulatorImpl::Remove(const ns3::EventId& id) {
    if (id.GetUid() == ns3::EventId::UID::DESTROY) {
        m_destroyEvents.remove(id);
        return;
    }
    if (IsExpired(id)) {
        return;
    }
    // Rare (cancellation is lazy): the entry stays queued, marked, until its time.
    id.PeekEventImpl()->Cancel();
    m_removed.insert(id.PeekEventImpl());
}

void RoceSimulatorImpl::Cancel(const ns3::EventId& id) {
    if (!IsExpired(id)) {
        id.PeekEventImpl()->Cancel();
    }
}

bool RoceSimulatorImpl::IsExpired(const ns3::EventId& id) const {
    if (id.GetUid() == ns3::EventId::UID::DESTROY) {
        if (!id.PeekEventImpl() || id.PeekEventImpl()->IsCancelled()) {
            return true;
        }
        return std::find(m_destroyEvents.begin(), m_destroyEvents.end(), id) == m_destroyEvents.end();
    }
    return !id.PeekEventImpl() || id.GetTs() < m_now ||
           (id.GetTs() == m_now && id.GetUid() <= static_cast<uint32_t>(m_currentUid)) ||
           id.PeekEventImpl()->IsCancelled();
}

ns3::Time RoceSimulatorImpl::GetMaximumSimulationTime() const {
    return ns3::TimeStep(0x7fffffffffffffffLL);
}

TimePs nowPsThroughNs3() {
    return static_cast<TimePs>(ns3::Simulator::Now().GetPicoSeconds());
}

void ScheduleCallThroughNs3(TimePs delayPs, RoceSimulatorImpl::Call call, void* object, uint64_t arg) {
    ns3::Simulator::Schedule(ns3::PicoSeconds(delayPs), &InvokeCall, call, object, arg);
}

}  // namespace mlnet::roce
