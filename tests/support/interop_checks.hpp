// What every interop API's tests check the same way (tests/opencl, tests/vulkan, tests/cuda).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "imghist/error.hpp"

namespace imghist::testing {

// `call` (an interop call given an engine of backend `given`) throws InvalidArgument naming
// both that backend and interop API `api`.
template <class Call>
void expect_wrong_engine(Call&& call, std::string_view given, std::string_view api) {
    try {
        call();
        ADD_FAILURE() << "imghist::" << api << " accepted a '" << given << "' engine";
    } catch (const InvalidArgument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("imghist::" + std::string(api)), std::string::npos) << what;
        EXPECT_NE(what.find("'" + std::string(given) + "'"), std::string::npos) << what;
    }
}

}  // namespace imghist::testing
