// Every congestion-control parameter as an ns-3 attribute, made from the parameter tables of congestion/
// (cc-parameters.h), so scripts set them with Config::SetDefault or on the command line, e.g.
// --mlnet::roce::RoceCcConfig::DcqcnG=0.01 or --mlnet::roce::RoceCcConfig::DcqcnAlphaInterval=55us. Each
// attribute is the algorithm's prefix (Dcqcn, Dctcp, Timely, Hpcc) plus the row's name; times are ns-3 Time
// values, rates DataRate values, windows the enum None / Bdp / FollowsRate. Defaults are the Params structs'.
// `mlnet-flows --cc-preset=attributes` takes its parameters from here.
#ifndef MLNET_ROCE_CC_CONFIG_H
#define MLNET_ROCE_CC_CONFIG_H

#include "ns3/object.h"

#include "cc-parameters.h"

namespace mlnet::roce {

class RoceCcConfig : public ns3::Object {
public:
    static ns3::TypeId GetTypeId();

    // The structs' defaults with every attribute applied.
    const cc::DcqcnParams& Dcqcn() const { return m_dcqcn; }
    const cc::DctcpParams& Dctcp() const { return m_dctcp; }
    const cc::TimelyParams& Timely() const { return m_timely; }
    const cc::HpccParams& Hpcc() const { return m_hpcc; }

private:
    template <typename Params>
    friend class CcParameterAccessor;

    cc::DcqcnParams m_dcqcn;
    cc::DctcpParams m_dctcp;
    cc::TimelyParams m_timely;
    cc::HpccParams m_hpcc;
};

}  // namespace mlnet::roce

#endif
