// Discrete-event queue of the analytical backends: integer nanoseconds, FIFO among events at the same time,
// and zero-delay events are legal (ASTRA-sim's queue aborts on them).
#ifndef MLNET_COMMON_EVENT_QUEUE_H
#define MLNET_COMMON_EVENT_QUEUE_H

#include <algorithm>
#include <cstdint>
#include <vector>

#include "callback.h"
#include "util/time.h"

namespace mlnet {

class EventQueue {
public:
    TimeNs now() const { return m_now; }
    // Times saturate at kTimeLimitNs (util/time.h): a run driven past it ends there and reports it.
    void schedule(TimeNs delayNs, Callback callback) {
        push(delayNs >= kTimeLimitNs - std::min(m_now, kTimeLimitNs) ? kTimeLimitNs : m_now + delayNs,
             callback);
    }
    void scheduleAt(TimeNs timeNs, Callback callback) { push(timeNs < m_now ? m_now : timeNs, callback); }

    // Runs events until none is left.
    void run();
    bool empty() const { return m_heap.empty(); }
    uint64_t executed() const { return m_executed; }

private:
    struct Event {
        TimeNs time;
        uint64_t seq;
        Callback callback;
    };
    static bool later(const Event& a, const Event& b) {
        return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
    void push(TimeNs time, Callback callback);

    std::vector<Event> m_heap;
    TimeNs m_now = 0;
    uint64_t m_seq = 0;
    uint64_t m_executed = 0;
};

}  // namespace mlnet

#endif
