#pragma once
// rea(1), generated from the same help text the commands print (usage.h), so the man page and
// `rea COMMAND --help` never disagree. `rea help --man` prints it; the build installs it as
// build/share/man/man1/rea.1.
//
// Errors: none.

#include <string>

namespace rea::supervisor {

std::string manPage();
// The page in man(7) roff: NAME, SYNOPSIS, DESCRIPTION, one subsection per command with its
// help verbatim, ENVIRONMENT, EXIT STATUS, SEE ALSO.

std::string roffEscape(const std::string& line);
// One line of literal text made safe for roff: backslashes doubled, a leading '.' or '\''
// protected by a zero-width character, so no text line can become a request.

}  // namespace rea::supervisor
