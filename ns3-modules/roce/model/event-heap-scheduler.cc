#include "event-heap-scheduler.h"

#include <algorithm>

namespace mlnet::roce {

NS_OBJECT_ENSURE_REGISTERED(EventHeapScheduler);

namespace {
constexpr std::size_t kArity = 4;  // shallower than binary: fewer cache-missing levels per pop
}

ns3::TypeId EventHeapScheduler::GetTypeId() {
    static ns3::TypeId tid = ns3::TypeId("mlnet::roce::EventHeapScheduler")
                                 .SetParent<ns3::Scheduler>()
                                 .SetGroupName("Roce")
                                 .AddConstructor<EventHeapScheduler>();
    return tid;
}

void EventHeapScheduler::SiftUp(std::size_t i) {
    Event moving = m_heap[i];
    while (i > 0) {
        const std::size_t parent = (i - 1) / kArity;
        if (!(moving.key < m_heap[parent].key)) {
            break;
        }
        m_heap[i] = m_heap[parent];
        i = parent;
    }
    m_heap[i] = moving;
}

void EventHeapScheduler::SiftDown(std::size_t i) {
    const std::size_t n = m_heap.size();
    Event moving = m_heap[i];
    while (true) {
        const std::size_t first = i * kArity + 1;
        if (first >= n) {
            break;
        }
        std::size_t best = first;
        const std::size_t last = std::min(first + kArity, n);
        for (std::size_t c = first + 1; c < last; ++c) {
            if (m_heap[c].key < m_heap[best].key) {
                best = c;
            }
        }
        if (!(m_heap[best].key < moving.key)) {
            break;
        }
        m_heap[i] = m_heap[best];
        i = best;
    }
    m_heap[i] = moving;
}

void EventHeapScheduler::Insert(const Event& ev) {
    m_heap.push_back(ev);
    SiftUp(m_heap.size() - 1);
}

ns3::Scheduler::Event EventHeapScheduler::RemoveNext() {
    Event top = m_heap.front();
    m_heap.front() = m_heap.back();
    m_heap.pop_back();
    if (!m_heap.empty()) {
        SiftDown(0);
    }
    return top;
}

void EventHeapScheduler::Remove(const Event& ev) {
    // Only Simulator::Remove gets here (cancellation is lazy), so a linear search is acceptable.
    auto it = std::find_if(m_heap.begin(), m_heap.end(), [&](const Event& e) { return e.key == ev.key; });
    if (it == m_heap.end()) {
        return;
    }
    const std::size_t i = static_cast<std::size_t>(it - m_heap.begin());
    m_heap[i] = m_heap.back();
    m_heap.pop_back();
    if (i < m_heap.size()) {
        SiftDown(i);
        SiftUp(i);
    }
}

}  // namespace mlnet::roce
