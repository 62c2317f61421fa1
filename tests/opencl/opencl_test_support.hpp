// What the opencl backend's test files share: a scoped environment variable (the tuning and
// device knobs) and the skip without a usable OpenCL device.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "imghist/imghist.hpp"

namespace imghist::opencl_test {

// Sets an environment variable for one scope.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const std::string& value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (old_) setenv(name_, old_->c_str(), 1);
        else unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

inline bool opencl_available() {
    const Backend* b = find_backend("opencl");
    return b != nullptr && b->available();
}

}  // namespace imghist::opencl_test

#define REQUIRE_OPENCL()                                                                     \
    do {                                                                                     \
        if (!::imghist::opencl_test::opencl_available()) GTEST_SKIP() << "no usable OpenCL device here"; \
    } while (0)
