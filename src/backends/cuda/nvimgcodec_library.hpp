// nvImageCodec, loaded at run time (dlopen): a program linked with imghist runs on machines
// without it, and the wheel's library can sit anywhere (IMGHIST_NVIMGCODEC_LIBRARY names it).
// Only the calls the JPEG decoder makes are looked up.
#pragma once

#include <string>

#include <nvimgcodec.h>

namespace imghist::cuda_detail {

struct NvImgCodec {
    // The entry points, named as in nvimgcodec.h without the prefix.
    decltype(&nvimgcodecGetProperties) GetProperties;
    decltype(&nvimgcodecInstanceCreate) InstanceCreate;
    decltype(&nvimgcodecInstanceDestroy) InstanceDestroy;
    decltype(&nvimgcodecDecoderCreate) DecoderCreate;
    decltype(&nvimgcodecDecoderDestroy) DecoderDestroy;
    decltype(&nvimgcodecDecoderDecode) DecoderDecode;
    decltype(&nvimgcodecCodeStreamCreateFromHostMem) CodeStreamCreateFromHostMem;
    decltype(&nvimgcodecCodeStreamDestroy) CodeStreamDestroy;
    decltype(&nvimgcodecCodeStreamGetImageInfo) CodeStreamGetImageInfo;
    decltype(&nvimgcodecImageCreate) ImageCreate;
    decltype(&nvimgcodecImageDestroy) ImageDestroy;
    decltype(&nvimgcodecFutureWaitForAll) FutureWaitForAll;
    decltype(&nvimgcodecFutureGetProcessingStatus) FutureGetProcessingStatus;
    decltype(&nvimgcodecFutureDestroy) FutureDestroy;

    std::string path;            // the library file loaded
    std::string extensions_dir;  // its codec modules (the wheel's extensions/ beside it)
    std::string version;         // "0.9.0"
};

// The library, loaded once per process; throws BackendUnavailable saying what was tried and
// what to install.
const NvImgCodec& nvimgcodec();

// "NVIMGCODEC_STATUS_BAD_CODESTREAM (3)" and the like, for messages.
std::string nvimgcodec_status_text(nvimgcodecStatus_t status);
std::string nvimgcodec_processing_text(nvimgcodecProcessingStatus_t status);

}  // namespace imghist::cuda_detail
