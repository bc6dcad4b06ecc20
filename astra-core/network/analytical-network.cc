#include "analytical-network.h"

#include "network/congestion-aware-network.h"
#include "network/congestion-unaware-network.h"

namespace mlnet {

std::unique_ptr<AnalyticalNetwork> makeAnalyticalNetwork(const Topology& topology, NetworkModel model,
                                                         EventQueue& queue, UnawareRouting routing) {
    if (model == NetworkModel::CongestionAware) {
        return std::make_unique<CongestionAwareNetwork>(topology, queue);
    }
    return std::make_unique<CongestionUnawareNetwork>(topology, queue, routing);
}

}  // namespace mlnet
