// Full-duplex point-to-point cable between two RoCE devices: propagation delay, optional per-frame random
// loss, and up/down state. Frames are delivered to the far device when their last bit arrives
// (store-and-forward).
#ifndef MLNET_ROCE_CHANNEL_H
#define MLNET_ROCE_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include "roce-packet.h"

namespace mlnet::roce {

class RoceNetDevice;

class RoceChannel : public ns3::Channel {
public:
    static ns3::TypeId GetTypeId();
    RoceChannel();
    ~RoceChannel() override;

    void Attach(ns3::Ptr<RoceNetDevice> device);
    // The "Delay" attribute; the hot path reads it as integer picoseconds.
    void SetDelay(ns3::Time delay) {
        m_delayPs = static_cast<TimePs>(delay.GetPicoSeconds());
        Mirror();
    }
    ns3::Time GetDelay() const { return ns3::PicoSeconds(static_cast<int64_t>(m_delayPs)); }
    // The devices carry frames themselves (RoceNetDevice::Propagate, from what the channel mirrors into
    // them); the channel decides and counts losses. A frame leaving a device is lost on the cable (down, or a
    // draw under the error rate): counted and traced; the caller releases it.
    bool Loses(const RocePacket* packet);
    // A frame on the cable when it failed reached its end: counted and traced; the caller releases it.
    void LostInFlight(const RocePacket* packet);
    ns3::Ptr<RoceNetDevice> Peer(const RoceNetDevice* device) const;

    // Link failure: frames in flight and later frames are lost until SetUp().
    void SetDown();
    void SetUp();
    bool IsUp() const { return m_up; }
    uint64_t Lost() const { return m_lost; }
    // Fixes the stream of the loss draws (ns-3's AssignStreams convention); returns the streams used (1).
    int64_t AssignStreams(int64_t stream);

    // Trace signature.
    typedef void (*DropCallback)(const RocePacket* packet, DropReason reason);

    std::size_t GetNDevices() const override;
    ns3::Ptr<ns3::NetDevice> GetDevice(std::size_t i) const override;

private:
    // Copies what the devices read per frame into both (RoceNetDevice::MirrorCable).
    void Mirror();

    void SetErrorRate(double rate) {
        m_errorRate = rate;
        m_lossy = rate > 0;
        Mirror();
    }
    double GetErrorRate() const { return m_errorRate; }

    RoceNetDevice* m_ends[2] = {nullptr, nullptr};
    TimePs m_delayPs = 1'000'000;
    // Failures so far: frames sent before the last one are lost even if the link came back.
    uint32_t m_epoch = 0;
    bool m_up = true;
    bool m_lossy = false;  // m_errorRate > 0
    double m_errorRate = 0;
    ns3::Ptr<RoceNetDevice> m_keep[2];
    ns3::Ptr<ns3::UniformRandomVariable> m_random;
    uint64_t m_lost = 0;
    ns3::TracedCallback<const RocePacket*, DropReason> m_dropTrace;
};

}  // namespace mlnet::roce

#endif
