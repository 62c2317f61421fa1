// The OpenImageIO type of an imghist sample type, for the CLI tests that write files with it.
#pragma once

#include <OpenImageIO/typedesc.h>

#include "imghist/imghist.hpp"

namespace imghist::cli_test {

inline OIIO_NAMESPACE::TypeDesc oiio_type(imghist::SampleType s) {
    using OIIO_NAMESPACE::TypeDesc;
    switch (s) {
        case imghist::SampleType::u8: return TypeDesc::UINT8;
        case imghist::SampleType::u16: return TypeDesc::UINT16;
        case imghist::SampleType::f16: return TypeDesc::HALF;
        case imghist::SampleType::f32: return TypeDesc::FLOAT;
    }
    return TypeDesc::UNKNOWN;
}

}  // namespace imghist::cli_test
