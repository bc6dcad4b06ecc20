// The tunable parameters of every algorithm, one row each: the name (an algorithm's ns-3 attribute is its
// prefix plus this name, and the README's parameter list is printed from these rows), the kind of value
// (which gives its unit), the accepted range and what it does. The default of a parameter is its Params
// struct's member initializer, where its origin is documented; the HPCC config.txt keys that set parameters
// are mapped to these names by the config reader, not here.
#ifndef MLNET_CONGESTION_CC_PARAMETERS_H
#define MLNET_CONGESTION_CC_PARAMETERS_H

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "dcqcn.h"
#include "dctcp.h"
#include "hpcc.h"
#include "timely.h"

namespace mlnet::cc {

enum class ParamKind : uint8_t {
    Real,   // a plain number (gains, factors, fractions)
    Count,  // a whole number
    Nanoseconds,
    BitsPerSecond,
    Bytes,
    Flag,
    Window,  // a WindowMode
};

// "ns", "b/s", "B" or "" for the kinds without a unit.
const char* unitOf(ParamKind kind);

template <typename Params>
struct ParamRow {
    using Field = std::variant<double Params::*, uint64_t Params::*, uint32_t Params::*, bool Params::*,
                               WindowMode Params::*>;
    const char* name;
    ParamKind kind;
    double min, max;  // inclusive; for Flag and Window, unused
    const char* doc;
    Field field;

    // The value as a number (flags 0/1, windows their enum index): exact for every integer below 2^53.
    double get(const Params& p) const;
    // Sets the value, converted to the field's type; false (unchanged) when outside [min, max] or not whole
    // where the field is an integer.
    bool set(Params& p, double value) const;
};

const std::vector<ParamRow<DcqcnParams>>& dcqcnParameters();
const std::vector<ParamRow<DctcpParams>>& dctcpParameters();
const std::vector<ParamRow<TimelyParams>>& timelyParameters();
const std::vector<ParamRow<HpccParams>>& hpccParameters();

// The row called `name`, or null.
template <typename Params>
const ParamRow<Params>* findParameter(const std::vector<ParamRow<Params>>& rows, const std::string& name) {
    for (const ParamRow<Params>& row : rows) {
        if (name == row.name) {
            return &row;
        }
    }
    return nullptr;
}

// A markdown table of every algorithm's parameters (name, default, unit, range, meaning), for the README.
std::string describeParameters();

}  // namespace mlnet::cc

#endif
