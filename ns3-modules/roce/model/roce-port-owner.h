// What a RoCE device needs from the node it belongs to: packets to send when the link is free (the pull model
// lets the NIC build packets at the last moment, with current rates, and the switch apply ECN/INT at
// dequeue), and a place to deliver what arrives.
#ifndef MLNET_ROCE_PORT_OWNER_H
#define MLNET_ROCE_PORT_OWNER_H

#include <cstdint>

#include "roce-packet.h"

namespace mlnet::roce {

class RocePortOwner {
public:
    virtual ~RocePortOwner() = default;
    // Next packet for `port`, skipping priorities set in `pausedMask`; null when nothing may be sent now.
    virtual RocePacket* Dequeue(uint32_t port, uint8_t pausedMask) = 0;
    // True when Dequeue(port, any mask) would now return null and change nothing, and only a call to the
    // device's Kick() can change that: the device may then skip its poll at the end of the frame on the wire.
    virtual bool NothingToSend(uint32_t /*port*/) const { return false; }
    // A frame arrived on `port` (PFC frames are consumed by the device and never get here).
    virtual void Receive(uint32_t port, RocePacket* packet) = 0;
};

}  // namespace mlnet::roce

#endif
