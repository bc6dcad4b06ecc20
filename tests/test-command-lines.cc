// Every tool answers a bad number, a stray argument or a bad ns-3 attribute on its command line with a usage
// error (exit 1) that names the option, the value and what was expected, before it reads any input: never a
// crash, a hang or a silently different value.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "trace-test-util.h"

namespace mlnet {
namespace {

using ::testing::HasSubstr;

struct ToolRun {
    int status;
    std::string err;
};

ToolRun runTool(const std::string& tool, const std::string& args) {
    static const std::string dir = makeTempDir("command-lines");
    const std::string cmd = "timeout 60 " + std::string(MLNET_BIN_DIR) + "/" + tool + " " + args + " > " +
                            dir + "/out.txt 2> " + dir + "/err.txt";
    const int raw = std::system(cmd.c_str());
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, readFileBytes(dir + "/err.txt")};
}

struct Case {
    const char* tool;
    const char* args;
    const char* message;
};

TEST(CommandLines, BadNumbersAndArgumentsAreUsageErrors) {
    const Case cases[] = {
        {"mlnet-flows", "config.txt --seed=0",
         "--seed=0: is out of range; expected a whole number in 1..4294967086"},
        {"mlnet-flows", "config.txt --seed=-1", "--seed=-1:"},
        {"mlnet-flows", "config.txt --seed=4294967087", "--seed=4294967087: is out of range"},
        {"mlnet-flows", "config.txt --seed=1e99", "--seed=1e99:"},
        {"mlnet-flows", "config.txt --seed=1xyz", "--seed=1xyz:"},
        {"mlnet-flows", "config.txt --rto-us=0", "--rto-us=0: is out of range"},
        {"mlnet-flows", "config.txt --rto-us=1e99", "--rto-us=1e99: is out of range"},
        {"mlnet-flows", "config.txt --rto-us=-1", "--rto-us=-1: is out of range"},
        {"mlnet-flows", "config.txt --compat=hpcc --rto-us=500",
         "--rto-us=500 has no effect with --retransmit=hpcc"},
        {"mlnet-flows", "config.txt --retransmit=hpcc --rto-us=500", "add --retransmit=timeout to keep one"},
        {"mlnet-flows", "config.txt --pfc=1e99", "--pfc=1e99: '1e99' is not a truth value"},
        {"mlnet-flows", "config.txt --pfc=", "--pfc=: '' is not a truth value"},
        {"mlnet-flows", "a.txt b.txt", "unexpected argument 'b.txt'"},
        {"mlnet-flows", "config.txt --mlnet::roce::RoceCcConfig::DcqcnG=abc",
         "'abc' is not a valid value for mlnet::roce::RoceCcConfig::DcqcnG; expected"},
        {"mlnet-flows", "config.txt --mlnet::roce::RoceCcConfig::DcqcnG=-1", "'-1' is not a valid value"},
        {"mlnet-flows", "config.txt --mlnet::roce::RoceCcConfig::NoSuch=1", "no attribute"},
        {"mlnet-flows", "config.txt --mlnet::roce::RoceCcConfig::DcqcnG=0.5",
         "take effect only with --cc-preset=attributes"},
        {"mlnet-ns3", "--seed=1e99", "--seed=1e99:"},
        {"mlnet-ns3", "--num-queues-per-dim=-1", "--num-queues-per-dim=-1:"},
        {"mlnet-ns3", "--num-queues-per-dim=0", "--num-queues-per-dim=0: is out of range"},
        {"mlnet-ns3", "--injection-scale=1e99", "--injection-scale=1e99: is out of range"},
        {"mlnet-ns3", "--comm-scale=2", "--comm-scale=2: is out of range; expected a number in [1, 1]"},
        {"mlnet-ns3", "--quiet=2", "--quiet=2: '2' is not a truth value"},
        {"mlnet-ns3", "--fast-forward --fast-forward-window-us=0",
         "--fast-forward-window-us=0: is out of range"},
        {"mlnet-ns3", "--fast-forward-window-us=20", "--fast-forward-window-us needs --fast-forward"},
        {"mlnet-ns3", "--memoize-episodes --fast-forward",
         "--memoize-episodes and --fast-forward cannot be combined yet"},
        {"mlnet-ns3", "--scale-up=nvlink", "--scale-up=nvlink: expected fluid"},
        {"mlnet-ns3", "--link-delay-offset-ps=1000001", "--link-delay-offset-ps=1000001: is out of range"},
        {"mlnet-ns3", "--link-delay-offset-ps=-1", "--link-delay-offset-ps=-1:"},
        {"mlnet-nccl-tests", "--scale-up=nvlink", "--scale-up 'nvlink': expected fluid or packet"},
        {"mlnet-ns3", "stray", "unexpected argument 'stray'"},
        {"mlnet-incast-study", "--senders=-1", "--senders=-1:"},
        {"mlnet-incast-study", "--senders=0",
         "--senders=0: is out of range; expected a whole number in 1..1024"},
        {"mlnet-incast-study", "--senders=1e99", "--senders=1e99:"},
        {"mlnet-incast-study", "--flowBytes=-1", "--flowBytes=-1:"},
        {"mlnet-incast-study", "--preset=fast", "--preset=fast: expected hpcc-paper or paper"},
        {"mlnet-check", "prefix --npus -1", "--npus=-1:"},
        {"mlnet-check", "prefix --npus 0", "--npus=0: is out of range"},
        {"mlnet-analytical", "--num-queues-per-dim=-1", "--num-queues-per-dim=-1:"},
        {"mlnet-analytical", "--injection-scale=1e99", "--injection-scale=1e99: is out of range"},
        {"mlnet-trafficgen", "--hosts=1e99 --output=x", "--hosts=1e99:"},
        {"mlnet-tracegen", "--pattern all-reduce --npus 4 --size 64 --output ''", "expected a path prefix"},
        {"mlnet-tracegen", "--pattern all-reduce --npus 4 --size 64 --output /tmp/dir/",
         "expected a path prefix"},
    };
    for (const Case& c : cases) {
        const ToolRun r = runTool(c.tool, c.args);
        EXPECT_EQ(r.status, 1) << c.tool << " " << c.args << "\n" << r.err;
        EXPECT_THAT(r.err, HasSubstr(c.message)) << c.tool << " " << c.args;
        EXPECT_THAT(r.err, ::testing::Not(HasSubstr("terminate called"))) << c.tool << " " << c.args;
    }
}

}  // namespace
}  // namespace mlnet
