#pragma once
// ISO-8601 UTC timestamps of the manifest (`started_at`, `completed_at`, SPEC B §4.5, §5.1):
// writing them from a clock reading and reading them back on import. Times are integer
// milliseconds since the Unix epoch, like the baseline's `Date.now()`.
//
// Errors: parseIsoTimestamp returns nullopt for text it does not accept; formatIsoTimestamp
// throws std::out_of_range for a time outside the years 0000–9999 (only a broken clock gives one).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rea::evidence {

std::optional<int64_t> parseIsoTimestamp(std::string_view text);
// Milliseconds since the epoch for a timestamp in the syntax accepted on import (SPEC B §5.1):
// `YYYY-MM-DDTHH:MM`, optionally `:SS`, optionally (after the seconds) `.` and a fraction of any
// length, then `Z`. The calendar is checked (month lengths and the leap years of the proleptic
// Gregorian calendar: 2024-02-29 and 2000-02-29 exist, 2023-02-29 and 1900-02-29 do not); hours
// are 00–23, minutes and seconds 00–59. Offsets (`+01:00`), lowercase `t`/`z`, a space instead of
// `T` and leap second 60 are rejected. Digits beyond milliseconds are truncated, as JavaScript's
// Date.parse does: the completed-after-started rule (§5.4 rule 3) compares those values.

std::string formatIsoTimestamp(int64_t epochMs);
// `YYYY-MM-DDTHH:MM:SS.mmmZ`, exactly JavaScript's Date.prototype.toISOString() for years
// 0000–9999: the form every manifest timestamp is written in.

}  // namespace rea::evidence
