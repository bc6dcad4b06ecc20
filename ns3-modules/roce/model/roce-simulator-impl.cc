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
    m_queue.ForEach([this](const RoceEventQueue::Entry& e) {
        if (ns3::EventImpl* event = m_slots[e.slot].event) {
            event->Unref();
        }
    });
    m_queue.Clear();
    m_slots.clear();
    m_freeSlots.clear();
    if (s_current == this) {
        s_current = nullptr;
    }
    ns3::SimulatorImpl::DoDispose();
}

void RoceSimulatorImpl::SetScheduler(ns3::ObjectFactory) {}

uint64_t RoceSimulatorImpl::Insert(uint64_t ts, ns3::EventImpl* event, Call call, void* object, uint64_t arg,
                                   uint32_t context) {
    uint32_t slot;
    if (!m_freeSlots.empty()) {
        slot = m_freeSlots.back();
        m_freeSlots.pop_back();
        m_slots[slot] = {event, call, object, arg, context, false};
    } else {
        slot = static_cast<uint32_t>(m_slots.size());
        m_slots.push_back({event, call, object, arg, context, false});
    }
    const uint64_t uid = m_nextUid++;
    m_queue.Push({ts, uid, slot});
    return uid;
}

void RoceSimulatorImpl::Run() {
    m_stop = false;
    while (!m_queue.Empty() && !m_stop) {
        const RoceEventQueue::Entry next = m_queue.Pop();
        const Payload p = m_slots[next.slot];
        m_slots[next.slot].event = nullptr;  // Remove's search must not find a finished event
        m_freeSlots.push_back(next.slot);
        if (p.removed) {
            p.event->Unref();
            continue;
        }
        ++m_executed;
        m_now = next.ts;
        m_currentUid = next.uid;
        m_context = p.context;
        if (p.event) {
            p.event->Invoke();  // a cancelled event does nothing, but is counted, as in ns-3's implementation
            p.event->Unref();
        } else {
            p.call(p.object, p.arg);
        }
    }
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
    const uint64_t uid = Insert(ts, event, nullptr, nullptr, 0, m_context);
    return ns3::EventId(event, ts, m_context, static_cast<uint32_t>(uid));
}

void RoceSimulatorImpl::ScheduleWithContext(uint32_t context, const ns3::Time& delay, ns3::EventImpl* event) {
    // Single-threaded: events from other threads are not supported (ns-3's default implementation queues
    // them).
    NS_ABORT_MSG_IF(delay.IsStrictlyNegative(), "RoceSimulatorImpl::ScheduleWithContext: negative delay");
    Insert(m_now + static_cast<uint64_t>(delay.GetTimeStep()), event, nullptr, nullptr, 0, context);
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
    // Rare (cancellation is lazy): a linear search, and the entry stays queued, marked, until its time.
    for (Payload& p : m_slots) {
        if (p.event == id.PeekEventImpl() && !p.removed) {
            p.event->Cancel();
            p.removed = true;
            return;
        }
    }
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

void ScheduleCall(TimePs delayPs, RoceSimulatorImpl::Call call, void* object, uint64_t arg) {
    if (RoceSimulatorImpl* impl = RoceSimulatorImpl::Current()) {
        impl->ScheduleCall(delayPs, call, object, arg);
    } else {
        ns3::Simulator::Schedule(ns3::PicoSeconds(delayPs), &InvokeCall, call, object, arg);
    }
}

}  // namespace mlnet::roce
