// What the end-to-end tests of the command (test_cli*.cpp, test_report*.cpp) share: the CliTest
// fixture, files written with OpenImageIO or byte for byte, the reference backend as the oracle,
// and finding one file's result in the JSON.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <future>
#include <map>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "imghist/imghist.hpp"

namespace imghist::cli_test {

class CliTest : public ScratchDirTest {
protected:
    // Each run pays OpenImageIO's start-up (~0.3 s), so independent runs go side by side.
    static std::vector<CommandRun> run_all(const std::vector<std::vector<std::string>>& runs) {
        std::vector<std::future<CommandRun>> futures;
        for (const auto& args : runs) futures.push_back(std::async(std::launch::async, [args] { return run(args); }));
        std::vector<CommandRun> out;
        for (auto& f : futures) out.push_back(f.get());
        return out;
    }
};

// Writes `v` with OpenImageIO (the file name's extension picks the writer) in its own sample
// type, alpha unassociated; `attrs` are extra ImageSpec attributes (e.g. compression).
void write_oiio(const std::string& file, const ImageView& v, const std::map<std::string, std::string>& attrs = {});
void write_bytes(const std::string& file, const std::string& bytes);

// What the command must report for these pixels.
Result reference(const ImageView& v, const Request& req = {});

// The entry of doc["results"] for `file`, or nullptr.
const nlohmann::json* find_result(const nlohmann::json& doc, const std::string& file);

// JSON Lines: one JSON value per line; a failure when the text does not end with a newline.
std::vector<nlohmann::json> json_lines(const std::string& text);

}  // namespace imghist::cli_test
