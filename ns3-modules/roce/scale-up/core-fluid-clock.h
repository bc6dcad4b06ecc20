// FluidLinks on the packet model's clock: the fluid models' events are core light events
// (RoceSimulatorImpl::ScheduleCoreCall, ns-3 events under another simulator), on the simulator's clock, which
// fast-forward does not shift; a fluid event falls on the first whole picosecond not before its exact time.
#ifndef MLNET_ROCE_CORE_FLUID_CLOCK_H
#define MLNET_ROCE_CORE_FLUID_CLOCK_H

#include <cmath>

#include "network/fluid-links.h"
#include "roce-simulator-impl.h"
#include "roce-timing.h"

namespace mlnet::roce {

class CoreFluidClock : public FluidLinks::Clock {
public:
    double nowNs() const override { return static_cast<double>(simNowPs()) / 1000.0; }
    void soon(Callback callback) override { Later(0, callback); }
    void atDeparture(double timeNs, Callback callback) override { At(timeNs, callback); }
    void atArrival(double timeNs, Callback callback) override { At(timeNs, callback); }

    static void Later(TimePs delayPs, Callback callback) {
        ScheduleCoreCall(delayPs, callback.fn, callback.object, callback.arg);
    }
    static void At(double timeNs, Callback callback) {
        const double atPs = std::ceil(timeNs * 1000.0);
        const TimePs now = simNowPs();
        Later(atPs > static_cast<double>(now) ? static_cast<TimePs>(atPs) - now : 0, callback);
    }
};

}  // namespace mlnet::roce

#endif
