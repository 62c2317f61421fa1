// End-to-end tests of what the imghist command reports and how: names that are not UTF-8 or
// hold control characters, write and directory errors. Sums and CSV: test_report_sums.cpp; plot
// names, device ids, help text, install-deps.sh: test_report_options.cpp.
// The binary is run with fork/exec (so it can run under a dropped uid when the tests run as
// root), and every count is checked against the reference backend.
#include <gtest/gtest.h>

#include <OpenImageIO/imageio.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "imghist/imghist.hpp"
#include "cli_files.hpp"
#include "cli_support.hpp"
#include "report_support.hpp"
#include "test_images.hpp"

namespace fs = std::filesystem;
namespace OIIO = OIIO_NAMESPACE;
using json = nlohmann::json;
using imghist::PixelFormat;
using imghist::testing::Pattern;

namespace {

using Ran = imghist::cli_test::CommandRun;
using imghist::cli_test::expect_histograms;
using imghist::cli_test::lines_of;
using imghist::cli_test::reference;
using imghist::cli_test::ReportTest;
using imghist::cli_test::slurp;
using imghist::cli_test::write_png;


std::string to_hex(const std::string& bytes) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (unsigned char c : bytes) {
        s += digits[c >> 4];
        s += digits[c & 15];
    }
    return s;
}

// Undoes the escaping docs/cli.md specifies for names in the table, on stderr and in messages:
// \\, \n, \r, \t, \xHH (one byte), \uHHHH (a code point, written as UTF-8).
std::string unescape(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\') {
            out += s[i];
            continue;
        }
        const char k = s.at(++i);
        if (k == '\\') out += '\\';
        else if (k == 'n') out += '\n';
        else if (k == 'r') out += '\r';
        else if (k == 't') out += '\t';
        else if (k == 'x') {
            out += char(std::stoi(s.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else if (k == 'u') {
            const unsigned cp = unsigned(std::stoul(s.substr(i + 1, 4), nullptr, 16));
            i += 4;
            if (cp < 0x800) {
                out += char(0xC0 | (cp >> 6));
                out += char(0x80 | (cp & 0x3F));
            } else {
                out += char(0xE0 | (cp >> 12));
                out += char(0x80 | ((cp >> 6) & 0x3F));
                out += char(0x80 | (cp & 0x3F));
            }
        } else {
            ADD_FAILURE() << "unknown escape \\" << k << " in " << s;
        }
    }
    return out;
}

// Strict UTF-8 check (no overlongs, surrogates or code points above U+10FFFF).
bool valid_utf8(const std::string& s) {
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = s[i];
        int n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
        if (n < 0 || i + n >= s.size() + (n == 0)) return false;
        unsigned cp = n == 0 ? c : c & (0x3F >> n);
        for (int k = 1; k <= n; ++k) {
            const unsigned char d = s[i + k];
            if ((d >> 6) != 2) return false;
            cp = (cp << 6) | (d & 0x3F);
        }
        if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += n + 1;
    }
    return true;
}

// Nothing a terminal would act on: no C0 control but the line ends, no DEL, no C1 control.
void expect_terminal_safe(const std::string& text, const std::string& what) {
    EXPECT_TRUE(valid_utf8(text)) << what << ": not UTF-8";
    for (std::size_t i = 0; i < text.size(); ++i) {
        const unsigned char c = text[i];
        EXPECT_FALSE((c < 0x20 && c != '\n') || c == 0x7F) << what << ": raw byte " << int(c) << " at " << i;
        if (c == 0xC2 && i + 1 < text.size())
            EXPECT_FALSE((unsigned char)text[i + 1] < 0xA0) << what << ": raw C1 control at " << i;
    }
}


const std::string kRepro = IMGHIST_REPRO_DIR;

// --- item 2: names that are not UTF-8 -----------------------------------------------------------

TEST_F(ReportTest, NonUtf8NamesKeepEveryResultInJson) {
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 13, 7, Pattern::random, 21);
    const std::string latin1 = path("caf\xe9.png");
    write_png(latin1, img.view);
    write_png(path("plain.png"), img.view);
    const std::string four = kRepro + "/json_kill_4ch_latin1_channel.exr";
    const std::string five = kRepro + "/json_kill_5ch_latin1_channel.exr";
    const Ran r = run({"--format", "json", "--sum", latin1, path("plain.png"), four, five});
    const json doc = r.doc();
    ASSERT_TRUE(doc.contains("results")) << r.err;
    // Both EXRs are read by their R,G,B(,A) channel names; the Latin-1 channel is left out
    // with a note (the reader's channel policy).
    EXPECT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(doc["results"].size(), 4u) << doc.dump().substr(0, 400);

    // The Latin-1 name: a valid UTF-8 display form and the exact bytes in hex.
    const json& cafe = doc["results"][0];
    EXPECT_EQ(cafe["file"], path("caf") + "\xEF\xBF\xBD.png");
    EXPECT_EQ(cafe["file_hex"], to_hex(latin1));
    expect_histograms(cafe["histograms"], reference(img.view), "caf\\xe9.png");
    const json& plain = doc["results"][1];
    EXPECT_EQ(plain["file"], path("plain.png"));
    EXPECT_FALSE(plain.contains("file_hex")) << "only names that are not UTF-8 carry the bytes";

    // The channel name read from the file reaches the note escaped, and unescapes to its bytes.
    auto in = OIIO::ImageInput::open(four);
    ASSERT_TRUE(in);
    const std::string raw_channel = in->spec().channelnames.at(3);
    ASSERT_FALSE(valid_utf8(raw_channel)) << "the reproducer's channel name is Latin-1";
    for (const auto& [index, file] : {std::pair{2, four}, std::pair{3, five}}) {
        const json& exr = doc["results"][index];
        EXPECT_EQ(exr["file"], file);
        bool seen = false;
        for (const auto& n : exr["notes"]) seen = seen || unescape(n.get<std::string>()).find(raw_channel) != std::string::npos;
        EXPECT_TRUE(seen) << exr["notes"].dump();
    }
    EXPECT_TRUE(doc["errors"].empty()) << doc["errors"].dump();
    // The sum names its files the way results do.
    ASSERT_TRUE(doc.contains("sums"));
    std::set<std::string> summed;
    for (const auto& g : doc["sums"])
        for (const auto& f : g["files"]) summed.insert(f.get<std::string>());
    EXPECT_TRUE(summed.count(cafe["file"].get<std::string>())) << doc["sums"].dump().substr(0, 300);
}

TEST_F(ReportTest, ControlCharactersInNamesAreEscapedOnTheTerminal) {
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 9, 5, Pattern::natural, 22);
    // Newline, ESC sequence, a backslash, a C1 control (U+009B, CSI) and a Latin-1 byte.
    const std::string good = path("two\nlines \x1b[31mred\\ \xC2\x9B caf\xe9.png");
    const std::string bad = path("bad\nname\x1b]0;title\x07.png");
    write_png(good, img.view);
    { std::ofstream(bad) << "not an image"; }
    const Ran table = run({good, bad});
    EXPECT_EQ(table.status, 1);
    expect_terminal_safe(table.out, "table");
    expect_terminal_safe(table.err, "stderr");
    const auto err_lines = lines_of(table.err);
    ASSERT_EQ(err_lines.size(), 1u) << table.err;  // one error, one line
    const std::string prefix = "imghist: ";
    ASSERT_EQ(err_lines[0].rfind(prefix, 0), 0u) << err_lines[0];
    const std::string shown = err_lines[0].substr(prefix.size(), err_lines[0].find(": ", prefix.size()) - prefix.size());
    EXPECT_EQ(unescape(shown), bad) << shown;
    // The table's heading names the good file, escaped and reversible.
    const auto out_lines = lines_of(table.out);
    ASSERT_FALSE(out_lines.empty());
    const std::string heading = out_lines[0].substr(0, out_lines[0].find("  "));
    EXPECT_EQ(unescape(heading), good) << heading;

    // JSON carries valid UTF-8 names exactly (JSON escapes control characters itself).
    const Ran j = run({"--format", "json", good, bad});
    const json doc = j.doc();
    ASSERT_EQ(doc["results"].size(), 1u);
    EXPECT_NE(doc["results"][0]["file"].get<std::string>(), good) << "the Latin-1 byte is not UTF-8";
    EXPECT_EQ(doc["results"][0]["file_hex"], to_hex(good));
    EXPECT_EQ(doc["errors"][0]["file"], bad);
    EXPECT_FALSE(doc["errors"][0].contains("file_hex"));
}

TEST_F(ReportTest, PlotTitleOfANonUtf8Name) {
    if (!IMGHIST_CLI_HAS_PLOT) GTEST_FAIL() << "built without cairo: the plot tests cannot run";
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 9, 5, Pattern::natural, 23);
    const std::string file = path("na\xefve\x1b[1m.png");
    write_png(file, img.view);
    const Ran r = run({"--plot", path("latin1_title.svg"), file});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(slurp(path("latin1_title.svg")).find("<svg"), std::string::npos);
}

// --- item 5: write errors and unreadable directories --------------------------------------------

TEST_F(ReportTest, WriteErrorsOnStdoutFail) {
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 9, 5, Pattern::natural, 24);
    write_png(path("full.png"), img.view);
    const std::vector<std::vector<std::string>> cases = {
        {path("full.png")},
        {"--format", "json", path("full.png")},
        {"--format", "csv", path("full.png")},
        {"--list-backends"},
        {"--help"},
    };
    for (const auto& args : cases) {
        const Ran r = run(args, {.stdout_path = "/dev/full"});
        EXPECT_EQ(r.status, 1) << args.front() << "\n" << r.err;
        EXPECT_NE(r.err.find("stdout"), std::string::npos) << args.front() << "\n" << r.err;
        EXPECT_NE(r.err.find(std::strerror(ENOSPC)), std::string::npos) << args.front() << "\n" << r.err;
    }
}

TEST_F(ReportTest, UnreadableDirectoriesAreErrors) {
    // Root reads every directory, so the command runs under an unprivileged uid (setpriv).
    const fs::path tree = dir_ / "walk";
    fs::create_directories(tree / "locked");
    fs::create_directories(tree / "open");
    const auto img = imghist::testing::make_image(PixelFormat::rgb8, 9, 5, Pattern::natural, 25);
    write_png((tree / "open" / "a.png").string(), img.view);
    write_png((tree / "locked" / "b.png").string(), img.view);
    for (const fs::path& d : {tree, tree / "open"}) fs::permissions(d, fs::perms(0755));
    fs::permissions(tree / "open" / "a.png", fs::perms(0644));
    fs::permissions(tree / "locked", fs::perms::none);

    const Ran walk = run({"--format", "json", tree.string()}, {.as_unprivileged = true});
    ASSERT_NE(walk.status, 127) << walk.err;  // setpriv (util-linux) must be there when run as root
    EXPECT_EQ(walk.status, 1) << walk.err;
    const json doc = walk.doc();
    ASSERT_EQ(doc["results"].size(), 1u) << walk.out;
    EXPECT_EQ(doc["results"][0]["file"], (tree / "open" / "a.png").string());
    expect_histograms(doc["results"][0]["histograms"], reference(img.view), "a.png");
    ASSERT_EQ(doc["errors"].size(), 1u) << doc["errors"].dump();
    EXPECT_EQ(doc["errors"][0]["file"], (tree / "locked").string());
    EXPECT_NE(doc["errors"][0]["error"].get<std::string>().find(std::strerror(EACCES)), std::string::npos)
        << doc["errors"][0].dump();

    const Ran direct = run({(tree / "locked").string()}, {.as_unprivileged = true});
    EXPECT_EQ(direct.status, 1);
    EXPECT_NE(direct.err.find((tree / "locked").string() + ": cannot read directory: " + std::strerror(EACCES)),
              std::string::npos)
        << direct.err;
    EXPECT_EQ(direct.err.find("holds no image"), std::string::npos) << direct.err;
    fs::permissions(tree / "locked", fs::perms::owner_all);
}


}  // namespace
