// Shared by the HPCC file-format tests (test-hpcc-config.cc, test-hpcc-files.cc): the bench files (made by
// our tools, hpcc-bench-inputs.h), and a fixture whose files live in a temporary directory of their own.
#ifndef MLNET_TESTS_HPCC_CONFIG_TEST_UTIL_H
#define MLNET_TESTS_HPCC_CONFIG_TEST_UTIL_H

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "hpcc-bench-inputs.h"
#include "hpcc-config.h"
#include "trace-test-util.h"

namespace mlnet::roce {

// Files written by one test live in its own temporary directory.
class Files : public ::testing::Test {
protected:
    void SetUp() override { m_dir = makeTempDir("hpcc-config"); }
    void TearDown() override { std::filesystem::remove_all(m_dir); }

    std::string write(const std::string& name, const std::string& text) {
        const std::string path = m_dir + "/" + name;
        writeFileBytes(path, text);
        return path;
    }
    HpccConfig config(const std::string& text, Diagnostics& diag) {
        return loadHpccConfig(write("cfg.txt", text), diag);
    }
    HpccConfig json(const std::string& text, Diagnostics& diag) {
        return loadJsonConfig(write("cfg.json", text), diag);
    }
    // The first error of a config.txt holding `text`.
    std::string configError(const std::string& text) {
        Diagnostics diag;
        config(text, diag);
        EXPECT_TRUE(diag.hasErrors()) << "accepted: " << text;
        return diag.firstError();
    }
    std::string warnings(const Diagnostics& diag) { return diag.format(Severity::Warning); }

    std::string m_dir;
};

}  // namespace mlnet::roce

#endif
