// An ns-3 scheduler on a flat 4-ary min-heap. Packet runs keep a few thousand pending events, nearly all due
// within microseconds; ns-3's std::map scheduler pays a node allocation per event and its calendar queue
// degrades when a few timers sit far in the future. Selected by RoceNetwork unless NS_GLOBAL_VALUE chooses
// another SchedulerType.
#ifndef MLNET_ROCE_EVENT_HEAP_SCHEDULER_H
#define MLNET_ROCE_EVENT_HEAP_SCHEDULER_H

#include <vector>

#include "ns3/scheduler.h"

namespace mlnet::roce {

class EventHeapScheduler : public ns3::Scheduler {
public:
    static ns3::TypeId GetTypeId();

    void Insert(const Event& ev) override;
    bool IsEmpty() const override { return m_heap.empty(); }
    Event PeekNext() const override { return m_heap.front(); }
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

private:
    void SiftUp(std::size_t i);
    void SiftDown(std::size_t i);

    std::vector<Event> m_heap;
};

}  // namespace mlnet::roce

#endif
