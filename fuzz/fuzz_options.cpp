// libFuzzer target of the command's options (src/cli/options.cpp, inputs.cpp): the bytes become
// a command line that CLI11 parses with the command's own definitions (add_options, or
// add_merge_options after "merge"), then settle() checks it as `imghist` does (reading
// --edges @FILE and --mask FILE), then expand_inputs() takes the inputs, --files-from FILE and
// "-" (stdin) as the command would. Each step must succeed or throw what the command turns into
// a usage error (CLI::ParseError, UsageError, InvalidArgument) or, for the lists of paths,
// std::runtime_error. Options settle() accepts must give bins that every sample type takes
// (resolve_layout), since they are checked before any file is read. Any other exception, a
// crash, or a sanitizer report is a finding.
//
// Input: up to three parts split at NUL bytes: the arguments, one a line; the bytes of file "a";
// the bytes of file "b", which is also stdin. Every '/' becomes '_', so that no path leaves the
// scratch directory the target works in, which also holds a mask "m.pgm" and a directory "d" of
// image names. scripts/fuzz.sh seeds the corpus from fuzz/seeds/options/.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/inputs.hpp"
#include "cli/options.hpp"
#include "imghist/imghist.hpp"
#include "scratch.hpp"

namespace {

namespace cli = imghist::cli;

struct Parts {
    std::vector<std::string> args;
    std::string a, b;
};

Parts split(std::string bytes) {
    std::replace(bytes.begin(), bytes.end(), '/', '_');
    Parts parts;
    std::string* files[] = {&parts.a, &parts.b};
    const std::size_t first = bytes.find('\0');
    const std::string line = bytes.substr(0, first);
    if (first != std::string::npos) {
        const std::size_t second = bytes.find('\0', first + 1);
        *files[0] = bytes.substr(first + 1, second == std::string::npos ? second : second - first - 1);
        if (second != std::string::npos) *files[1] = bytes.substr(second + 1);
    }
    for (std::size_t start = 0; !line.empty() && start <= line.size();) {
        std::size_t end = line.find('\n', start);
        if (end == std::string::npos) end = line.size();
        parts.args.push_back(line.substr(start, end - start));
        start = end + 1;
    }
    return parts;
}

[[noreturn]] void finding(const std::string& what) {
    std::fprintf(stderr, "fuzz_options: %s\n", what.c_str());
    std::abort();
}

// File "b" as stdin, read from its start; std::cin forgets the end of the previous input's.
void use_as_stdin(const std::string& path) {
    const int fd = open(path.c_str(), O_RDONLY);
    if (fd < 0 || dup2(fd, STDIN_FILENO) < 0) std::abort();
    close(fd);
    std::clearerr(stdin);
    std::cin.clear();
}

// argv as the command gets it: the program's name, then the arguments.
bool parse(CLI::App& app, const std::vector<std::string>& args, std::size_t skip) {
    std::vector<const char*> argv = {"imghist"};
    for (std::size_t k = skip; k < args.size(); ++k) argv.push_back(args[k].c_str());
    try {
        app.parse(int(argv.size()), argv.data());
        return true;
    } catch (const CLI::ParseError&) {
        return false;
    }
}

void merge_options(const std::vector<std::string>& args) {
    CLI::App app{"imghist merge", "imghist merge"};
    cli::MergeLine line;
    cli::add_merge_options(app, line);
    if (!parse(app, args, 1)) return;
    try {
        (void)cli::exposure_settings(line.exposure);
    } catch (const cli::UsageError&) {
    }
}

// What settle() accepts is checked before any file is read: every sample type takes its bins.
void check_layouts(const imghist::Request& request) {
    using imghist::SampleType;
    for (SampleType sample : {SampleType::u8, SampleType::u16, SampleType::f16, SampleType::f32}) try {
            (void)imghist::resolve_layout(sample, request.bins);
        } catch (const imghist::InvalidArgument& e) {
            finding(std::string("settle() accepted bins that a sample type refuses: ") + e.what());
        }
}

void counting_options(const std::vector<std::string>& args) {
    CLI::App app{"imghist", "imghist"};
    cli::CommandLine line;
    cli::add_options(app, line);
    if (!parse(app, args, 0) || line.list) return;
    cli::Settings settings;
    try {
        settings = cli::settle(line);
    } catch (const cli::UsageError&) {
        return;
    } catch (const imghist::InvalidArgument&) {
        return;
    }
    check_layouts(settings.request);
    try {
        (void)cli::expand_inputs(line.inputs, line.files_from, settings.read_options.untrusted_readers, !settings.raw);
    } catch (const std::runtime_error&) {
    }
}

// The scratch directory as the working directory while an input runs; libFuzzer's own relative
// paths (corpus, dictionary, artifacts) keep the directory it was started in between inputs.
// (A crash leaves the scratch directory current: scripts/fuzz.sh gives an absolute
// -artifact_prefix.)
class WorkIn {
public:
    WorkIn() : previous_(std::filesystem::current_path()) { std::filesystem::current_path(imghist::fuzz::scratch_dir()); }
    ~WorkIn() { std::filesystem::current_path(previous_); }
    WorkIn(const WorkIn&) = delete;
    WorkIn& operator=(const WorkIn&) = delete;

private:
    std::filesystem::path previous_;
};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    imghist::io::configure_reader_threads(1);
    imghist::fuzz::remove_scratch_dir_at_exit();
    const WorkIn scratch;
    // A 3 x 2 gray8 mask, and a directory of files with image names (and a hidden one).
    imghist::fuzz::write_file("m.pgm", std::string_view("P5\n3 2\n255\n\x00\x01\x02\x03\xfe\xff", 17));
    std::filesystem::create_directories("d/sub");
    for (const char* name : {"d/x.png", "d/y.JPG", "d/.hidden.png", "d/notes.txt", "d/sub/z.tif"})
        imghist::fuzz::write_file(name, "");
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const WorkIn scratch;
    const Parts parts = split(std::string(reinterpret_cast<const char*>(data), size));
    imghist::fuzz::write_file("a", parts.a);
    imghist::fuzz::write_file("b", parts.b);
    use_as_stdin("b");
    if (!parts.args.empty() && parts.args[0] == "merge") merge_options(parts.args);
    else counting_options(parts.args);
    return 0;
}
