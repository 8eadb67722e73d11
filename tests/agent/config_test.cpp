#include "agent/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "tests/test_paths.h"

namespace kopt {
namespace {

std::string write_temp(const std::string& text) {
  std::string path = "/tmp/kopt_config_" + std::to_string(getpid()) + ".toml";
  std::ofstream(path) << text;
  return path;
}

TEST(ConfigTest, TheShippedDefaultFileParses) {
  Config c;
  Status s = load_config(test::source_dir() + "/config/kopt.toml", true, &c);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(c.budget, 100);
  EXPECT_EQ(c.database, "kopt.db");
  EXPECT_EQ(c.transfers, 3);
  EXPECT_TRUE(c.models.empty());
}

TEST(ConfigTest, ReadsModelsAndDurations) {
  Config c;
  ASSERT_TRUE(load_config(write_temp("[run]\nbudget = 7\ntime = \"30m\"\n[[models]]\nname = \"a\"\n"
                                     "base_url = \"http://x/v1\"\nweight = 2.5\n"),
                          true, &c)
                  .ok());
  EXPECT_EQ(c.budget, 7);
  EXPECT_DOUBLE_EQ(c.time_s, 1800);
  ASSERT_EQ(c.models.size(), 1u);
  EXPECT_EQ(c.models[0].model, "a");
  EXPECT_DOUBLE_EQ(c.models[0].weight, 2.5);
}

TEST(ConfigTest, CorruptOrInvalidConfigsAreClearErrors) {
  Config c;
  Status s = load_config(write_temp("[run\nbudget = "), true, &c);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("line"), std::string::npos);
  EXPECT_FALSE(load_config(write_temp("[run]\nbudget = 0\n"), true, &c).ok());
  EXPECT_FALSE(load_config(write_temp("[run]\ntime = \"soon\"\n"), true, &c).ok());
  s = load_config(write_temp("[run]\ntransfers = -1\n"), true, &c);
  EXPECT_NE(s.message().find("run.transfers must be between 0 and 64"), std::string::npos)
      << s.message();
  EXPECT_FALSE(load_config(write_temp("[[models]]\nname = \"no url\"\n"), true, &c).ok());
  EXPECT_FALSE(load_config("/nonexistent/kopt.toml", true, &c).ok());
  EXPECT_TRUE(load_config("/nonexistent/kopt.toml", false, &c).ok());
}

TEST(ConfigTest, EnvironmentSetsTheEndpoint) {
  Config c;
  setenv("KOPT_MODEL_BASE_URL", "http://localhost:9/v1", 1);
  setenv("KOPT_MODEL", "coder", 1);
  apply_environment(&c);
  unsetenv("KOPT_MODEL_BASE_URL");
  unsetenv("KOPT_MODEL");
  ASSERT_EQ(c.models.size(), 1u);
  EXPECT_EQ(c.models[0].name, "coder");
  EXPECT_EQ(c.models[0].base_url, "http://localhost:9/v1");
}

TEST(ConfigTest, Durations) {
  double s;
  ASSERT_TRUE(parse_duration("90", &s).ok());
  EXPECT_DOUBLE_EQ(s, 90);
  ASSERT_TRUE(parse_duration("2h", &s).ok());
  EXPECT_DOUBLE_EQ(s, 7200);
  EXPECT_FALSE(parse_duration("-3m", &s).ok());
  EXPECT_FALSE(parse_duration("3 weeks", &s).ok());
}

}  // namespace
}  // namespace kopt
