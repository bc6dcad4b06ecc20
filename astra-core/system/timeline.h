// A timeline of the run in the Chrome trace-event format, which Perfetto (ui.perfetto.dev) and
// chrome://tracing open, as PyTorch users read their Kineto traces: one process per rank, with a thread each
// for compute, the communication nodes (collectives, sends, receives), memory and CPU nodes, and the messages
// the rank sends as slices. Events are streamed to the file as they end (atomically: the file appears when
// the run closes it).
#ifndef MLNET_SYSTEM_TIMELINE_H
#define MLNET_SYSTEM_TIMELINE_H

#include <memory>
#include <string>
#include <vector>

#include "system/trace-executor.h"
#include "util/atomic-file.h"
#include "workload/trace-set.h"

namespace mlnet {

class Timeline : public ExecutionObserver {
public:
    // Message slices beyond maxMessages are counted but not written (a large run has millions).
    Timeline(const std::string& path, const TraceSet& traces, uint64_t maxMessages, Diagnostics& diag);
    ~Timeline() override;

    void nodeStarted(Rank rank, const TraceNode& node, TimeNs atNs) override;
    void nodeFinished(Rank rank, const TraceNode& node, TimeNs atNs) override;
    // A message of sizeBytes from `rank` to `peer` between startNs and endNs (its sender's view).
    void message(Rank rank, Rank peer, uint64_t sizeBytes, TimeNs startNs, TimeNs endNs);
    // A span of the network as a whole (a "network" process after the ranks), e.g. time fast-forward
    // skipped.
    void networkSpan(const std::string& name, TimeNs startNs, TimeNs endNs, const std::string& args = "");

    // Writes the end of the document and moves the file into place; false (reported) on failure.
    bool close();
    uint64_t messagesLeftOut() const { return m_messagesLeftOut; }

private:
    void slice(Rank rank, int thread, const std::string& name, const char* category, TimeNs startNs,
               TimeNs endNs, const std::string& args);
    void emit(const std::string& event);

    const TraceSet& m_traces;
    AtomicFile m_file;
    std::string m_buffer;
    bool m_first = true;
    uint64_t m_maxMessages;
    uint64_t m_messages = 0, m_messagesLeftOut = 0;
    bool m_networkNamed = false;
    std::vector<std::vector<TimeNs>> m_startNs;  // per rank, per node index
};

}  // namespace mlnet

#endif
