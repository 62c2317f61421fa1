// The help text after the options of imghist and imghist merge.
#pragma once

#include <string>

namespace imghist::cli {

// imghist --help: what it counts, inputs, formats, exit status, examples. The lists of trusted
// and raw formats come from the reader, so the help cannot drift from them.
std::string command_help_footer();
// imghist merge --help.
const char* merge_help_footer();

}  // namespace imghist::cli
