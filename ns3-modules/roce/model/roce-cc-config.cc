#include "roce-cc-config.h"

#include <cmath>
#include <string>

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

namespace mlnet::roce {

NS_OBJECT_ENSURE_REGISTERED(RoceCcConfig);

// Reads and writes one row's field of one of RoceCcConfig's parameter structs, converting between the row's
// number and the ns-3 value type of its kind.
template <typename Params>
class CcParameterAccessor : public ns3::AttributeAccessor {
public:
    CcParameterAccessor(Params RoceCcConfig::*params, const cc::ParamRow<Params>* row)
        : m_params(params), m_row(row) {}

    bool Set(ns3::ObjectBase* object, const ns3::AttributeValue& value) const override {
        auto* config = dynamic_cast<RoceCcConfig*>(object);
        double number = 0;
        return config && ToNumber(value, number) && m_row->set(config->*m_params, number);
    }
    bool Get(const ns3::ObjectBase* object, ns3::AttributeValue& value) const override {
        const auto* config = dynamic_cast<const RoceCcConfig*>(object);
        return config && FromNumber(m_row->get(config->*m_params), value);
    }
    bool HasGetter() const override { return true; }
    bool HasSetter() const override { return true; }

private:
    bool ToNumber(const ns3::AttributeValue& value, double& out) const {
        switch (m_row->kind) {
            case cc::ParamKind::Real:
                if (const auto* v = dynamic_cast<const ns3::DoubleValue*>(&value)) {
                    out = v->Get();
                    return true;
                }
                return false;
            case cc::ParamKind::Count:
            case cc::ParamKind::Bytes:
                if (const auto* v = dynamic_cast<const ns3::UintegerValue*>(&value)) {
                    out = static_cast<double>(v->Get());
                    return true;
                }
                return false;
            case cc::ParamKind::Nanoseconds:
                if (const auto* v = dynamic_cast<const ns3::TimeValue*>(&value)) {
                    const int64_t ps = v->Get().GetPicoSeconds();  // whole ns only
                    out = static_cast<double>(ps / 1000);
                    return ps >= 0 && ps % 1000 == 0;
                }
                return false;
            case cc::ParamKind::BitsPerSecond:
                if (const auto* v = dynamic_cast<const ns3::DataRateValue*>(&value)) {
                    out = static_cast<double>(v->Get().GetBitRate());
                    return true;
                }
                return false;
            case cc::ParamKind::Flag:
                if (const auto* v = dynamic_cast<const ns3::BooleanValue*>(&value)) {
                    out = v->Get() ? 1 : 0;
                    return true;
                }
                return false;
            case cc::ParamKind::Window:
                if (const auto* v = dynamic_cast<const ns3::EnumValue*>(&value)) {
                    out = v->Get();
                    return true;
                }
                return false;
        }
        return false;
    }
    bool FromNumber(double number, ns3::AttributeValue& value) const {
        if (auto* v = dynamic_cast<ns3::DoubleValue*>(&value)) {
            v->Set(number);
        } else if (auto* u = dynamic_cast<ns3::UintegerValue*>(&value)) {
            u->Set(static_cast<uint64_t>(number));
        } else if (auto* t = dynamic_cast<ns3::TimeValue*>(&value)) {
            t->Set(ns3::NanoSeconds(static_cast<int64_t>(number)));
        } else if (auto* r = dynamic_cast<ns3::DataRateValue*>(&value)) {
            r->Set(ns3::DataRate(static_cast<uint64_t>(number)));
        } else if (auto* b = dynamic_cast<ns3::BooleanValue*>(&value)) {
            b->Set(number != 0);
        } else if (auto* e = dynamic_cast<ns3::EnumValue*>(&value)) {
            e->Set(static_cast<int>(number));
        } else {
            return false;
        }
        return true;
    }

    Params RoceCcConfig::*m_params;
    const cc::ParamRow<Params>* m_row;
};

namespace {

template <typename Params>
void addAttributes(ns3::TypeId& tid, const char* prefix, Params RoceCcConfig::*params,
                   const std::vector<cc::ParamRow<Params>>& rows) {
    const Params defaults{};
    for (const cc::ParamRow<Params>& row : rows) {
        const std::string name = std::string(prefix) + row.name;
        const double value = row.get(defaults);
        // Times and rates carry their units in their ns-3 types; bytes are plain integers.
        const std::string unit = row.kind == cc::ParamKind::Bytes ? cc::unitOf(row.kind) : "";
        const std::string help = std::string(row.doc) + (unit.empty() ? "" : " (" + unit + ")") + ".";
        ns3::Ptr<const ns3::AttributeAccessor> accessor =
            ns3::Create<CcParameterAccessor<Params>>(params, &row);
        switch (row.kind) {
            case cc::ParamKind::Real:
                tid.AddAttribute(name, help, ns3::DoubleValue(value), accessor,
                                 ns3::MakeDoubleChecker<double>(row.min, row.max));
                break;
            case cc::ParamKind::Count:
            case cc::ParamKind::Bytes:
                tid.AddAttribute(name, help, ns3::UintegerValue(static_cast<uint64_t>(value)), accessor,
                                 ns3::MakeUintegerChecker<uint64_t>(static_cast<uint64_t>(row.min),
                                                                    static_cast<uint64_t>(row.max)));
                break;
            case cc::ParamKind::Nanoseconds:
                tid.AddAttribute(name, help, ns3::TimeValue(ns3::NanoSeconds(static_cast<int64_t>(value))),
                                 accessor, ns3::MakeTimeChecker());
                break;
            case cc::ParamKind::BitsPerSecond:
                tid.AddAttribute(name, help, ns3::DataRateValue(ns3::DataRate(static_cast<uint64_t>(value))),
                                 accessor, ns3::MakeDataRateChecker());
                break;
            case cc::ParamKind::Flag:
                tid.AddAttribute(name, help, ns3::BooleanValue(value != 0), accessor,
                                 ns3::MakeBooleanChecker());
                break;
            case cc::ParamKind::Window:
                tid.AddAttribute(name, help, ns3::EnumValue(static_cast<int>(value)), accessor,
                                 ns3::MakeEnumChecker(0, "None", 1, "Bdp", 2, "FollowsRate"));
                break;
        }
    }
}

}  // namespace

ns3::TypeId RoceCcConfig::GetTypeId() {
    static ns3::TypeId tid = [] {
        ns3::TypeId t = ns3::TypeId("mlnet::roce::RoceCcConfig")
                            .SetParent<ns3::Object>()
                            .SetGroupName("Roce")
                            .AddConstructor<RoceCcConfig>();
        addAttributes(t, "Dcqcn", &RoceCcConfig::m_dcqcn, cc::dcqcnParameters());
        addAttributes(t, "Dctcp", &RoceCcConfig::m_dctcp, cc::dctcpParameters());
        addAttributes(t, "Timely", &RoceCcConfig::m_timely, cc::timelyParameters());
        addAttributes(t, "Hpcc", &RoceCcConfig::m_hpcc, cc::hpccParameters());
        return t;
    }();
    return tid;
}

}  // namespace mlnet::roce
