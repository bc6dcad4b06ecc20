// Result files appear whole or not at all, and what is at the path is respected: symbolic links are followed,
// FIFOs and devices written directly, directories refused; a termination signal leaves no temporary file; a
// file set appears together. Also the tools: a killed mlnet-tracegen leaves no trace set, and unwritable
// outputs stop mlnet-flows before its run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "trace-test-util.h"
#include "util/atomic-file.h"

namespace mlnet {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Tolerates entries renamed or removed while it reads (another process may be writing there).
std::set<std::string> listDir(const std::string& dir) {
    std::set<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        names.insert(it->path().filename().string());
    }
    return names;
}

TEST(AtomicFile, FollowsSymbolicLinksAndKeepsThem) {
    const std::string dir = makeTempDir("atomic-link");
    fs::create_directory(dir + "/real");
    writeFileBytes(dir + "/real/target.txt", "old\n");
    fs::create_symlink("real/target.txt", dir + "/link.txt");
    Diagnostics diag;
    ASSERT_TRUE(writeFileAtomically(dir + "/link.txt", "new\n", diag)) << diag.format(Severity::Error);
    EXPECT_TRUE(fs::is_symlink(dir + "/link.txt"));
    EXPECT_EQ(readFileBytes(dir + "/real/target.txt"), "new\n");
    EXPECT_EQ(listDir(dir + "/real"), (std::set<std::string>{"target.txt"}));
    // A dangling link creates the file it names.
    fs::create_symlink("real/fresh.txt", dir + "/dangling.txt");
    ASSERT_TRUE(writeFileAtomically(dir + "/dangling.txt", "x", diag));
    EXPECT_EQ(readFileBytes(dir + "/real/fresh.txt"), "x");
}

TEST(AtomicFile, WritesFifosAndDevicesDirectlyAndRefusesDirectories) {
    const std::string dir = makeTempDir("atomic-special");
    Diagnostics diag;
    EXPECT_TRUE(writeFileAtomically("/dev/null", "discarded\n", diag)) << diag.format(Severity::Error);
    EXPECT_TRUE(fs::is_character_file("/dev/null"));

    const std::string fifo = dir + "/pipe";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string received;
    std::thread reader([&] {
        std::ifstream in(fifo);
        received.assign(std::istreambuf_iterator<char>(in), {});
    });
    EXPECT_TRUE(writeFileAtomically(fifo, "through the pipe\n", diag)) << diag.format(Severity::Error);
    reader.join();
    EXPECT_EQ(received, "through the pipe\n");
    EXPECT_TRUE(fs::is_fifo(fifo)) << "the FIFO is not replaced by a regular file";

    if (fs::exists("/dev/full")) {
        Diagnostics full;
        EXPECT_FALSE(writeFileAtomically("/dev/full", "x", full));
        EXPECT_THAT(full.firstError(), HasSubstr("/dev/full: cannot write"));
        EXPECT_TRUE(fs::is_character_file("/dev/full"));
    }
    Diagnostics refused;
    EXPECT_FALSE(writeFileAtomically(dir, "x", refused));
    EXPECT_THAT(refused.firstError(), HasSubstr(dir + ": is a directory"));
    EXPECT_EQ(listDir(dir), (std::set<std::string>{"pipe"}));
}

TEST(AtomicFile, OutputPathsAreCheckedBeforeARun) {
    const std::string dir = makeTempDir("atomic-check");
    Diagnostics diag;
    EXPECT_TRUE(checkOutputPath(dir + "/fct.txt", "FCT output", diag));
    EXPECT_TRUE(checkOutputPath("/dev/null", "FCT output", diag));
    EXPECT_FALSE(checkOutputPath(dir + "/no/such/fct.txt", "FCT output", diag));
    EXPECT_THAT(diag.firstError(),
                HasSubstr("FCT output: the directory '" + dir + "/no/such' does not exist"));
    Diagnostics d2;
    EXPECT_FALSE(checkOutputPath(dir, "pcap", d2));
    EXPECT_THAT(d2.firstError(), HasSubstr("pcap is a directory"));
    EXPECT_TRUE(listDir(dir).empty()) << "checking creates nothing";
}

TEST(AtomicFile, ATerminationSignalRemovesEveryTemporary) {
    const std::string dir = makeTempDir("atomic-signal");
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        Diagnostics diag;
        AtomicFile a(dir + "/a.txt", diag);
        AtomicFile b(dir + "/b.txt", diag);
        a.write("half");
        b.write("written");
        ::raise(SIGTERM);
        ::_exit(0);  // not reached: the signal ends the process
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "the signal still ends the process";
    EXPECT_TRUE(listDir(dir).empty());
}

TEST(AtomicFileSet, AppearsTogetherOrNotAtAll) {
    const std::string dir = makeTempDir("atomic-set");
    Diagnostics diag;
    {
        AtomicFileSet set(diag);
        ASSERT_TRUE(set.add(dir + "/x.0.et", "zero"));
        ASSERT_TRUE(set.add(dir + "/x.1.et", "one"));
        EXPECT_EQ(listDir(dir).size(), 2u);  // two temporaries, no final names yet
        EXPECT_FALSE(fs::exists(dir + "/x.0.et"));
        ASSERT_TRUE(set.commit()) << diag.format(Severity::Error);
    }
    EXPECT_EQ(listDir(dir), (std::set<std::string>{"x.0.et", "x.1.et"}));
    {
        AtomicFileSet abandoned(diag);
        ASSERT_TRUE(abandoned.add(dir + "/y.0.et", "zero"));
    }
    EXPECT_EQ(listDir(dir), (std::set<std::string>{"x.0.et", "x.1.et"}));
}

TEST(AtomicFileSet, AKilledTracegenLeavesNoTraceSet) {
    const std::string dir = makeTempDir("atomic-tracegen");
    const std::string out = dir + "/set";
    fs::create_directory(out);
    const std::string cmd = std::string(MLNET_BIN_DIR) +
                            "/mlnet-tracegen --pattern all-to-all --npus 65536 --size 1048576 --output " +
                            out + "/a2a > /dev/null 2>&1 & echo $! > " + dir + "/pid";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    // Kill it once its first rank files exist: half way through the set.
    bool started = false;
    for (int i = 0; i < 10000 && !started; ++i) {
        started = !listDir(out).empty();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    std::string pid = readFileBytes(dir + "/pid");
    // The shell wrote "PID\n": with the newline the commands below split in two, and the liveness check named
    // "/proc/PID" and then "/status", found nothing, and let the test read a directory still being cleaned.
    pid.erase(pid.find_last_not_of(" \n") + 1);
    ASSERT_FALSE(pid.empty()) << "no pid recorded";
    // Wait until it has gone (a zombie counts: nobody here reaps it). Its handler unlinks every temporary
    // before it dies, which on a loaded machine's disk can take seconds: allow a minute, and say so if
    // that was not enough, rather than read a directory it is still cleaning.
    const std::string alive = "grep -qs '^State:[[:space:]]*[^Z]' /proc/" + pid + "/status";
    std::system(("kill -TERM " + pid + " 2>/dev/null; for i in $(seq 1200); do " + alive +
                 " || break; sleep 0.05; done")
                    .c_str());
    ASSERT_TRUE(started) << "mlnet-tracegen wrote nothing";
    ASSERT_NE(std::system(alive.c_str()), 0) << "mlnet-tracegen still running 60 s after SIGTERM";
    const std::set<std::string> left = listDir(out);
    // Either the whole set was in place before the signal, or nothing is.
    EXPECT_TRUE(left.empty() || left.size() == 65536u) << left.size() << " files left";
    for (const std::string& name : left) {
        ASSERT_EQ(name.find(".tmp."), std::string::npos) << name;
    }
}

TEST(AtomicFile, MlnetFlowsChecksItsOutputsBeforeRunning) {
    const std::string dir = makeTempDir("atomic-flows");
    const std::string golden = std::string(MLNET_SOURCE_DIR) + "/tests/golden/";
    const std::string base = std::string(MLNET_BIN_DIR) + "/mlnet-flows " + golden +
                             "config-dcqcn.txt --topology=" + golden + "k4.txt --flows=" + golden +
                             "a2a-slice.txt --pfc-output=" + dir + "/pfc.txt";
    for (const auto& [args, message] :
         {std::pair<std::string, std::string>{" --fct=" + dir + "/none/fct.txt", "does not exist"},
          {" --fct=" + dir + "/fct.txt --pcap=" + dir, "pcap is a directory"}}) {
        const int raw = std::system((base + args + " > " + dir + "/out.txt 2> " + dir + "/err.txt").c_str());
        EXPECT_EQ(WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, 2) << args;
        EXPECT_THAT(readFileBytes(dir + "/err.txt"), HasSubstr(message)) << args;
        EXPECT_THAT(readFileBytes(dir + "/out.txt"), ::testing::Not(HasSubstr("cost:")))
            << "stopped before the run";
    }
}

}  // namespace
}  // namespace mlnet
