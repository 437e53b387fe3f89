#include "evidence/host-port.h"

#include <gtest/gtest.h>

#include <string>

namespace rea::evidence {
namespace {

TEST(HostPortContext, AcceptsLocalhostInAnyCase) {
  EXPECT_TRUE(isHostPortContext("localhost"));
  EXPECT_TRUE(isHostPortContext("connect to LocalHost"));
  EXPECT_TRUE(isHostPortContext("web.localhost"));
  EXPECT_FALSE(isHostPortContext("localhos"));
  EXPECT_FALSE(isHostPortContext("localhost "));
}

TEST(HostPortContext, AcceptsIpv4LiteralsOnly) {
  EXPECT_TRUE(isHostPortContext("127.0.0.1"));
  EXPECT_TRUE(isHostPortContext("listening on 0.0.0.0"));
  EXPECT_TRUE(isHostPortContext("(10.1.255.3"));
  EXPECT_FALSE(isHostPortContext("1.2.3.256"));
  EXPECT_FALSE(isHostPortContext("1.2.3"));
  EXPECT_FALSE(isHostPortContext("1.2.3.4.5"));
  EXPECT_FALSE(isHostPortContext("v1.2.3.4"));
  EXPECT_FALSE(isHostPortContext("1.2.3.1234"));
  EXPECT_FALSE(isHostPortContext("12"));
  EXPECT_FALSE(isHostPortContext("12:30"));
  EXPECT_FALSE(isHostPortContext("rc=127"));
}

TEST(HostPortContext, AcceptsBracketedIpv6Literals) {
  EXPECT_TRUE(isHostPortContext("[::1]"));
  EXPECT_TRUE(isHostPortContext("at [2001:db8::8a2e:370:7334]"));
  EXPECT_TRUE(isHostPortContext("[::ffff:192.0.2.1]"));
  EXPECT_TRUE(isHostPortContext("[fe80::1%eth0]"));
  EXPECT_FALSE(isHostPortContext("[a:b]"));
  EXPECT_FALSE(isHostPortContext("::1]"));
  EXPECT_FALSE(isHostPortContext("[::1"));
  EXPECT_FALSE(isHostPortContext("[item]"));
  EXPECT_FALSE(isHostPortContext("[::g]"));
}

TEST(HostPortContext, AcceptsUrlAuthorities) {
  EXPECT_TRUE(isHostPortContext("http://example.com"));
  EXPECT_TRUE(isHostPortContext("see ws://my-host"));
  EXPECT_TRUE(isHostPortContext("https://user:secret@example.com"));
  EXPECT_TRUE(isHostPortContext("postgres://db"));
  EXPECT_FALSE(isHostPortContext("://example.com"));
  EXPECT_FALSE(isHostPortContext("http:/example.com"));
  EXPECT_FALSE(isHostPortContext("http://"));
  EXPECT_FALSE(isHostPortContext("http://example.com/path"));
  EXPECT_FALSE(isHostPortContext("example.com"));
  EXPECT_FALSE(isHostPortContext("time 12"));
}

TEST(HostPortContext, RejectsOverlongHostNames) {
  EXPECT_TRUE(isHostPortContext("http://" + std::string(253, 'a')));
  EXPECT_FALSE(isHostPortContext("http://" + std::string(254, 'a')));
}

TEST(HostPortContext, LooksOnlyAtTheWindowBeforeTheColon) {
  std::string padding(2 * HOST_CONTEXT_WINDOW, 'x');
  EXPECT_TRUE(isHostPortContext(padding + " localhost"));
  EXPECT_TRUE(isHostPortContext(padding + " http://user@host"));
}

}  // namespace
}  // namespace rea::evidence
