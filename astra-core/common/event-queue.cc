#include "event-queue.h"

#include <algorithm>

namespace mlnet {

void EventQueue::push(TimeNs time, Callback callback) {
    m_heap.push_back({time, m_seq++, callback});
    std::push_heap(m_heap.begin(), m_heap.end(), later);
}

void EventQueue::run() {
    while (!m_heap.empty()) {
        std::pop_heap(m_heap.begin(), m_heap.end(), later);
        Event event = m_heap.back();
        m_heap.pop_back();
        m_now = event.time;
        ++m_executed;
        event.callback();
    }
}

}  // namespace mlnet
