#include "comm-groups.h"
#include "util/decimal.h"
#include "util/json-text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <numeric>

namespace mlnet {

CommGroups::CommGroups(uint32_t numRanks) : m_numRanks(numRanks) {
    std::vector<Rank> world(numRanks);
    std::iota(world.begin(), world.end(), 0);
    m_groups[kWorldGroup] = std::move(world);
}

const std::vector<Rank>* CommGroups::members(GroupId id) const {
    auto it = m_groups.find(id);
    return it == m_groups.end() ? nullptr : &it->second;
}

bool CommGroups::checkMembers(std::vector<Rank>& ranks, const std::string& where, Diagnostics& diag) const {
    if (ranks.empty()) {
        diag.error(where + ": empty member list; expected at least one rank");
        return false;
    }
    std::sort(ranks.begin(), ranks.end());
    if (ranks.back() >= m_numRanks) {
        diag.error(where + ": member rank " + std::to_string(ranks.back()) + " does not exist; expected 0.." +
                   std::to_string(m_numRanks - 1));
        return false;
    }
    if (auto dup = std::adjacent_find(ranks.begin(), ranks.end()); dup != ranks.end()) {
        diag.error(where + ": rank " + std::to_string(*dup) + " is listed twice");
        return false;
    }
    return true;
}

bool CommGroups::loadJson(const std::string& path, Diagnostics& diag) {
    std::string text;
    nlohmann::json doc;
    if (!readTextFile(path, text, diag, "comm-group configuration") ||
        !parseJsonObject(text, path, "a JSON object mapping group ids to rank lists, e.g. {\"1\": [0, 1]}",
                         doc, diag)) {
        return false;
    }
    bool ok = true;
    for (auto& [key, value] : doc.items()) {
        const std::string where = path + ": group \"" + key + "\"";
        GroupId id = 0;
        if (!parseDecimal(key, id)) {
            diag.error(where + ": key is not a decimal group id");
            ok = false;
            continue;
        }
        if (id == kWorldGroup) {
            diag.error(where + ": id 0 is reserved for the world group (pg_name \"\" or \"0\")");
            ok = false;
            continue;
        }
        if (!value.is_array()) {
            diag.error(where + ": expected an array of ranks, found " + std::string(value.type_name()));
            ok = false;
            continue;
        }
        std::vector<Rank> ranks;
        bool entriesOk = true;
        for (const auto& r : value) {
            if (!r.is_number_unsigned() || r.get<uint64_t>() > UINT32_MAX) {
                diag.error(where + ": member " + briefJson(r) + " is not a non-negative integer rank");
                entriesOk = false;
                break;
            }
            ranks.push_back(r.get<Rank>());
        }
        if (!entriesOk || !checkMembers(ranks, where, diag)) {
            ok = false;
            continue;
        }
        m_groups[id] = std::move(ranks);
    }
    return ok;
}

bool CommGroups::declare(const DeclaredGroup& group, const std::string& where, Diagnostics& diag) {
    std::vector<Rank> ranks = group.ranks;
    if (ranks.empty()) {
        ranks.resize(m_numRanks);
        std::iota(ranks.begin(), ranks.end(), 0);  // "ranks": [] means every rank
    } else if (!checkMembers(ranks, where, diag)) {
        return false;
    }
    auto it = m_groups.find(group.id);
    if (it != m_groups.end() && it->second != ranks) {
        if (group.id == kWorldGroup) {
            diag.error(where + ": redefines the world group 0 with a subset of the ranks");
            return false;
        }
        diag.warning(where + ": redefines communicator " + std::to_string(group.id) +
                     " with different members; the later definition is used");
    }
    m_groups[group.id] = std::move(ranks);
    return true;
}

}  // namespace mlnet
