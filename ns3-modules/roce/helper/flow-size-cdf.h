// A flow-size distribution in the HPCC traffic generator's CDF files: lines "<size bytes> <cumulative
// percent>", sizes and percentages not decreasing, from 0 to 100 percent, linearly interpolated between the
// points (the reference's custom_rand). Shared by the flow-file generator and the background traffic of
// training runs.
#ifndef MLNET_ROCE_FLOW_SIZE_CDF_H
#define MLNET_ROCE_FLOW_SIZE_CDF_H

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/diagnostics.h"

namespace mlnet::roce {

class FlowSizeCdf {
public:
    // Errors name the file and the line.
    static std::optional<FlowSizeCdf> Load(const std::string& path, Diagnostics& diag);
    // The size at cumulative probability u in [0, 1), at least 1 byte.
    uint64_t SizeAt(double u) const;
    // The mean of the interpolated distribution (each segment's midpoint times its probability).
    double MeanBytes() const;

private:
    std::vector<std::pair<double, double>> m_points;  // (size bytes, cumulative fraction)
};

}  // namespace mlnet::roce

#endif
