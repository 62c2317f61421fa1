// Every error imghist throws derives from imghist::Error.
#pragma once

#include <stdexcept>
#include <string>

namespace imghist {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The caller asked for something impossible: a bad image view, request or option.
class InvalidArgument : public Error {
public:
    using Error::Error;
};

// A backend that does not exist, is not compiled in, or has no usable device.
class BackendUnavailable : public Error {
public:
    using Error::Error;
};

// A device or runtime call failed (names the call and the runtime's error).
class DeviceError : public Error {
public:
    using Error::Error;
};

// Two results whose bin layouts or channels differ cannot be merged.
class MergeError : public Error {
public:
    using Error::Error;
};

}  // namespace imghist
