// An ns-3 TracedCallback that keeps a flag, wherever its owner wants it, saying whether any sink is
// connected. Calling an unconnected TracedCallback still reads its list; a per-frame trace whose list sits in
// a cache line of its own would cost a miss per frame just to find it empty, while the flag shares a line
// the hot path reads anyway. Sinks connect through ns-3's accessors as usual (MakeTraceSourceAccessor calls
// these members by the source's own type).
#ifndef MLNET_ROCE_FLAGGED_TRACED_CALLBACK_H
#define MLNET_ROCE_FLAGGED_TRACED_CALLBACK_H

#include <string>

#include "ns3/traced-callback.h"

namespace mlnet::roce {

template <typename... Ts>
class FlaggedTracedCallback : public ns3::TracedCallback<Ts...> {
    using Base = ns3::TracedCallback<Ts...>;

public:
    // `connected` is kept equal to !IsEmpty(); it must outlive this object.
    explicit FlaggedTracedCallback(bool* connected) : m_connected(connected) { *m_connected = false; }
    FlaggedTracedCallback(const FlaggedTracedCallback&) = delete;
    FlaggedTracedCallback& operator=(const FlaggedTracedCallback&) = delete;

    void ConnectWithoutContext(const ns3::CallbackBase& callback) {
        Base::ConnectWithoutContext(callback);
        *m_connected = !Base::IsEmpty();
    }
    void Connect(const ns3::CallbackBase& callback, std::string path) {
        Base::Connect(callback, path);
        *m_connected = !Base::IsEmpty();
    }
    void DisconnectWithoutContext(const ns3::CallbackBase& callback) {
        Base::DisconnectWithoutContext(callback);
        *m_connected = !Base::IsEmpty();
    }
    void Disconnect(const ns3::CallbackBase& callback, std::string path) {
        Base::Disconnect(callback, path);
        *m_connected = !Base::IsEmpty();
    }

private:
    bool* m_connected;
};

}  // namespace mlnet::roce

#endif
