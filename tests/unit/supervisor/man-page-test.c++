#include "supervisor/cli/man-page.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "supervisor/cli/usage.h"

namespace rea::supervisor {
namespace {

TEST(ManPage, HasEveryCommandWithItsOwnHelpText) {
  std::string page = manPage();
  EXPECT_EQ(page.rfind(".TH REA 1 ", 0), 0u);
  for (const char* command : helpCommands()) {
    EXPECT_NE(page.find(".SS " + roffEscape(command) + "\n"), std::string::npos) << command;
    // The first line of each help text appears, escaped, in the page.
    std::string help = usageFor(command);
    EXPECT_NE(page.find(roffEscape(help.substr(0, help.find('\n')))), std::string::npos) << command;
    // The synopsis has the command's full arguments (its usage line without "usage: rea ").
    std::string synopsis = help.substr(11, help.find('\n') - 11);
    EXPECT_NE(page.find(".B rea\n" + roffEscape(synopsis) + "\n.br\n"), std::string::npos)
        << command;
  }
  EXPECT_NE(page.find("\n.nh\n"), std::string::npos) << "hyphenation is off";
}

TEST(ManPage, EscapesTextThatRoffWouldReadAsARequest) {
  EXPECT_EQ(roffEscape(".TH evil"), "\\&.TH evil");
  EXPECT_EQ(roffEscape("'br"), "\\&'br");
  EXPECT_EQ(roffEscape("a\\b"), "a\\eb");
  EXPECT_EQ(roffEscape("--pretty"), "\\-\\-pretty");
  EXPECT_EQ(roffEscape("plain text"), "plain text");
}

TEST(ManPage, EveryLineIsAKnownRequestOrText) {
  std::string page = manPage();
  size_t at = 0;
  while (at < page.size()) {
    size_t end = page.find('\n', at);
    std::string line = page.substr(at, end - at);
    if (!line.empty() && line[0] == '.') {
      std::string request = line.substr(0, line.find(' '));
      EXPECT_TRUE(request == ".TH" || request == ".SH" || request == ".SS" || request == ".nf" ||
                  request == ".fi" || request == ".B" || request == ".BR" || request == ".br" ||
                  request == ".nh")
          << line;
    }
    at = end + 1;
  }
}

TEST(ManPage, GroffRendersItWithoutWarnings) {
  if (access("/usr/bin/groff", X_OK) != 0) GTEST_SKIP() << "groff is not installed";
  char path[] = "/tmp/rea-man-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::string page = manPage();
  ASSERT_EQ(write(fd, page.data(), page.size()), static_cast<ssize_t>(page.size()));
  close(fd);
  std::string command = "/usr/bin/groff -man -Tutf8 -ww -z " + std::string(path) + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string warnings;
  char buffer[256];
  while (size_t n = fread(buffer, 1, sizeof(buffer), pipe))
    warnings.append(buffer, n);
  int status = pclose(pipe);
  unlink(path);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(warnings, "");
}

}  // namespace
}  // namespace rea::supervisor
