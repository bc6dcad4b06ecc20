// What the trace executor needs from the system layer: run one rank's part of a collective.
#ifndef MLNET_SYSTEM_COLLECTIVE_SERVICE_H
#define MLNET_SYSTEM_COLLECTIVE_SERVICE_H

#include <string>

#include "common/callback.h"
#include "workload/trace-types.h"

namespace mlnet {

class CollectiveService {
public:
    virtual ~CollectiveService() = default;
    // Starts rank's part of the collective described by `node`; `done` fires when that part is complete.
    virtual void issue(Rank rank, const TraceNode& node, Callback done) = 0;
    // What the rank's unfinished collectives are waiting for, one line each (for hang reports).
    virtual std::string describeUnfinished(Rank rank) const = 0;
};

}  // namespace mlnet

#endif
