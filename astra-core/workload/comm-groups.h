// Communicator groups: the world group (id 0) plus groups from ASTRA-sim's comm-group JSON file and from
// PyTorch process-group METADATA nodes. Members are kept in ascending rank order.
#ifndef MLNET_WORKLOAD_COMM_GROUPS_H
#define MLNET_WORKLOAD_COMM_GROUPS_H

#include <map>
#include <string>
#include <vector>

#include "trace-types.h"
#include "util/diagnostics.h"

namespace mlnet {

class CommGroups {
public:
    explicit CommGroups(uint32_t numRanks = 0);

    // ASTRA-sim's --comm-group-configuration: {"1": [0, 1], "2": [2, 3]}.
    bool loadJson(const std::string& path, Diagnostics& diag);
    // A group declared inside a trace; `where` names the declaring node. A later declaration replaces an
    // earlier one (as in ASTRA-sim); a conflicting replacement is reported as a warning.
    bool declare(const DeclaredGroup& group, const std::string& where, Diagnostics& diag);

    // Members of the group in ascending order, or nullptr if the group is not defined.
    const std::vector<Rank>* members(GroupId id) const;
    std::size_t size() const { return m_groups.size(); }
    const std::map<GroupId, std::vector<Rank>>& all() const { return m_groups; }
    uint32_t numRanks() const { return m_numRanks; }

private:
    bool checkMembers(std::vector<Rank>& ranks, const std::string& where, Diagnostics& diag) const;

    uint32_t m_numRanks;
    std::map<GroupId, std::vector<Rank>> m_groups;
};

}  // namespace mlnet

#endif
