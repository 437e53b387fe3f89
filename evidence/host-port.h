#pragma once
// Host:port contexts for port normalisation (SPEC A5 (2)). A5 replaces a 2-5 digit number after
// `:` only where the text before the colon names a host, so that `12:30:45` and `rc=127` stay
// as they are. This module decides, from the text that ends right before such a colon, whether
// it is a host. It owns nothing; NormaliseRule::digitTokens uses it.
//
// The text before the colon is a host when it ends with one of (all bounded, so the answer
// depends on at most the last HOST_CONTEXT_WINDOW bytes, which a streaming normaliser keeps):
//   (a) `localhost`, ASCII case-insensitive (hostnames are case-insensitive);
//   (b) an IPv4 literal `a.b.c.d`, each part 1-3 digits with a value <= 255, not preceded by
//       a word character or `.` (so `v1.2.3.4` and `1.2.3.4.5` are not IPv4 literals);
//   (c) a bracketed IPv6 literal `[addr]` or `[addr%zone]`: addr is 2-45 characters of
//       `0-9A-Fa-f:.` containing at least two colons, zone 1-64 characters of
//       `A-Za-z0-9_.~-` (this is the `]:` of A5);
//   (d) a URL authority `X://host` or `X://userinfo@host`: X is any ASCII letter or digit
//       (the last character of the scheme), host is 1-253 characters of `A-Za-z0-9._~-` (a
//       name or an IPv4 literal), userinfo is 0-128 characters of `A-Za-z0-9._~!$&'()*+,;=:%-`.
//
// Errors: none.

#include <cstddef>
#include <string_view>

namespace rea::evidence {

constexpr size_t HOST_CONTEXT_WINDOW = 512;
// No rule above looks further back than this many bytes before the colon.

bool isHostPortContext(std::string_view beforeColon);
// True if `beforeColon` (the text up to, not including, a `:`) ends with a host as listed in
// the header comment. Only its last HOST_CONTEXT_WINDOW bytes are examined.

}  // namespace rea::evidence
