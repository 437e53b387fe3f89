#include "evidence/timestamp.h"

#include <stdexcept>

namespace rea::evidence {
namespace {

constexpr int64_t MS_PER_DAY = 86'400'000;

bool isLeapYear(int64_t year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int64_t daysInMonth(int64_t year, int64_t month) {
  static const int64_t DAYS[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && isLeapYear(year) ? 29 : DAYS[month - 1];
}

// Days from 1970-01-01 to the given civil date (H. Hinnant's days_from_civil), valid for any
// proleptic Gregorian date, including those before 1970.
int64_t daysFromCivil(int64_t year, int64_t month, int64_t day) {
  year -= month <= 2;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t yearOfEra = year - era * 400;
  const int64_t dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int64_t dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

void civilFromDays(int64_t days, int64_t& year, int64_t& month, int64_t& day) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t dayOfEra = days - era * 146097;
  const int64_t yearOfEra =
      (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365;
  const int64_t dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
  const int64_t monthPrime = (5 * dayOfYear + 2) / 153;
  day = dayOfYear - (153 * monthPrime + 2) / 5 + 1;
  month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9;
  year = yearOfEra + era * 400 + (month <= 2);
}

// Reads exactly `count` ASCII digits at `pos`; false if any is missing.
bool readDigits(std::string_view text, size_t& pos, size_t count, int64_t& value) {
  if (text.size() - pos < count) return false;
  value = 0;
  for (size_t i = 0; i < count; ++i) {
    char c = text[pos + i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  pos += count;
  return true;
}

bool expect(std::string_view text, size_t& pos, char c) {
  if (pos >= text.size() || text[pos] != c) return false;
  ++pos;
  return true;
}

void appendPadded(std::string& out, int64_t value, int width) {
  std::string digits = std::to_string(value);
  out.append(width > static_cast<int>(digits.size()) ? width - digits.size() : 0, '0');
  out += digits;
}

}  // namespace

std::optional<int64_t> parseIsoTimestamp(std::string_view text) {
  size_t pos = 0;
  int64_t year, month, day, hour, minute, second = 0, millis = 0;
  if (!readDigits(text, pos, 4, year) || !expect(text, pos, '-') ||
      !readDigits(text, pos, 2, month) || !expect(text, pos, '-') ||
      !readDigits(text, pos, 2, day) || !expect(text, pos, 'T') ||
      !readDigits(text, pos, 2, hour) || !expect(text, pos, ':') ||
      !readDigits(text, pos, 2, minute)) {
    return std::nullopt;
  }
  if (pos < text.size() && text[pos] == ':') {
    ++pos;
    if (!readDigits(text, pos, 2, second)) return std::nullopt;
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      size_t digits = 0;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        // Only the first three digits count (Date.parse truncates to milliseconds).
        if (digits < 3) millis = millis * 10 + (text[pos] - '0');
        ++digits;
        ++pos;
      }
      if (digits == 0) return std::nullopt;
      for (size_t i = digits; i < 3; ++i)
        millis *= 10;
    }
  }
  if (!expect(text, pos, 'Z') || pos != text.size()) return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return std::nullopt;
  if (hour > 23 || minute > 59 || second > 59) return std::nullopt;
  return daysFromCivil(year, month, day) * MS_PER_DAY +
         ((hour * 60 + minute) * 60 + second) * 1000 + millis;
}

std::string formatIsoTimestamp(int64_t epochMs) {
  static const int64_t FIRST = daysFromCivil(0, 1, 1) * MS_PER_DAY;
  static const int64_t END = daysFromCivil(10000, 1, 1) * MS_PER_DAY;
  if (epochMs < FIRST || epochMs >= END) {
    throw std::out_of_range("timestamp outside the years 0000-9999: " + std::to_string(epochMs));
  }
  int64_t days = epochMs >= 0 ? epochMs / MS_PER_DAY : -((-epochMs + MS_PER_DAY - 1) / MS_PER_DAY);
  int64_t msOfDay = epochMs - days * MS_PER_DAY;
  int64_t year, month, day;
  civilFromDays(days, year, month, day);
  std::string out;
  out.reserve(24);
  appendPadded(out, year, 4);
  out += '-';
  appendPadded(out, month, 2);
  out += '-';
  appendPadded(out, day, 2);
  out += 'T';
  appendPadded(out, msOfDay / 3'600'000, 2);
  out += ':';
  appendPadded(out, msOfDay / 60'000 % 60, 2);
  out += ':';
  appendPadded(out, msOfDay / 1000 % 60, 2);
  out += '.';
  appendPadded(out, msOfDay % 1000, 3);
  out += 'Z';
  return out;
}

}  // namespace rea::evidence
