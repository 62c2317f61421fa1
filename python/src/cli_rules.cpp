// The command line's own rules, compiled from its sources into the package so that each is
// written once: its directory walk (src/cli/inputs.cpp, walk_rule.cpp), which
// imghist.histogram_files applies to the directories it is given, and its progress line
// (src/cli/progress.cpp), which histogram_files(progress=True) shows where tqdm is not
// installed. Both need the file reader (the walk takes the reader's extensions).
#include "bindings.hpp"

#if defined(IMGHIST_PYTHON_IO)
#include <string>
#include <vector>

#include "cli/inputs.hpp"
#include "cli/progress.hpp"
#endif

namespace imghist::python {

#if defined(IMGHIST_PYTHON_IO)
namespace {

nb::bytes bytes_of(const std::string& s) { return nb::bytes(s.data(), s.size()); }

std::string string_of(const nb::bytes& b) { return std::string(b.c_str(), b.size()); }

// (files, failures) of `paths` (file system bytes, os.fsencode): each directory replaced by the
// image files the command's walk reads under it, in its order; failures [(path, reason)] are
// the directories that cannot be read or hold no image and the files a walk does not read.
// "-" is a file name here (the command reads a list of paths from stdin for it).
nb::tuple expand_paths(const std::vector<nb::bytes>& paths, bool untrusted_readers) {
    nb::list files, failures;
    for (const nb::bytes& path : paths) {
        const std::string name = string_of(path);
        if (name == "-") {
            files.append(path);
            continue;
        }
        cli::Inputs in;
        {
            nb::gil_scoped_release unlocked;  // a large tree takes a while
            in = cli::expand_inputs({name}, "", untrusted_readers);
        }
        for (const std::string& file : in.files) files.append(bytes_of(file));
        for (const cli::FileOutcome& failed : in.failed)
            failures.append(nb::make_tuple(bytes_of(failed.file), nb::str(failed.error.c_str())));
    }
    return nb::make_tuple(files, failures);
}

cli::ProgressState progress_state(std::size_t done, std::optional<std::size_t> total, std::uint64_t bytes,
                                  std::size_t errors, const nb::bytes& file) {
    return {done, total, bytes, errors, string_of(file)};
}

}  // namespace
#endif

void bind_cli_rules(nb::module_& m) {
#if defined(IMGHIST_PYTHON_IO)
    using namespace nb::literals;
    m.def("_expand_paths", &expand_paths, "paths"_a, "untrusted_readers"_a,
          "(files, failures): directories walked as the imghist command walks them (bytes paths).");
    m.def("_progress_line", [](std::size_t done, std::optional<std::size_t> total, std::uint64_t bytes,
                               std::size_t errors, const nb::bytes& file, double elapsed_s, std::size_t width) {
        return cli::progress_line(progress_state(done, total, bytes, errors, file), elapsed_s, width);
    }, "done"_a, "total"_a.none(), "bytes"_a, "errors"_a, "file"_a, "elapsed_s"_a, "width"_a,
          "The command line's progress line (docs/cli.md, \"Progress\").");
    m.def("_progress_summary", [](std::size_t done, std::uint64_t bytes, std::size_t errors, double elapsed_s) {
        return cli::progress_summary(progress_state(done, std::nullopt, bytes, errors, nb::bytes("", 0)), elapsed_s);
    }, "done"_a, "bytes"_a, "errors"_a, "elapsed_s"_a, "The command line's last progress line of a log.");
#else
    (void)m;
#endif
}

}  // namespace imghist::python
