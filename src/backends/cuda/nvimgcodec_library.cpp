#include "nvimgcodec_library.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <mutex>
#include <optional>
#include <type_traits>
#include <vector>

#include "imghist/error.hpp"

namespace imghist::cuda_detail {

namespace {

// Where the library is looked for, in order: the user's choice, the copy found when imghist
// was configured (CMake's IMGHIST_NVIMGCODEC_ROOT), then the loader's own search path.
std::vector<std::string> candidates() {
    std::vector<std::string> out;
    if (const char* env = std::getenv("IMGHIST_NVIMGCODEC_LIBRARY"); env && *env) out.emplace_back(env);
#ifdef IMGHIST_NVIMGCODEC_BUILD_LIBRARY
    out.emplace_back(IMGHIST_NVIMGCODEC_BUILD_LIBRARY);
#endif
    out.emplace_back("libnvimgcodec.so.0");
    return out;
}

NvImgCodec load() {
    std::string tried;
    void* handle = nullptr;
    std::string path;
    for (const std::string& candidate : candidates()) {
        handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle) {
            path = candidate;
            break;
        }
        const char* why = ::dlerror();
        tried += "\n  " + candidate + ": " + (why ? why : "not found");
    }
    if (!handle)
        throw BackendUnavailable(
            "GPU JPEG decoding needs nvImageCodec (pip install nvidia-nvimgcodec-cu13 nvidia-nvjpeg, then set "
            "IMGHIST_NVIMGCODEC_LIBRARY to the wheel's nvidia/nvimgcodec/libnvimgcodec.so.0); tried:" + tried);
    NvImgCodec lib{};
    const auto find = [&](auto& fn, const char* name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(handle, name));
        if (!fn) throw BackendUnavailable("nvImageCodec at " + path + " has no " + name + ": an older version than 0.9?");
    };
    find(lib.GetProperties, "nvimgcodecGetProperties");
    find(lib.InstanceCreate, "nvimgcodecInstanceCreate");
    find(lib.InstanceDestroy, "nvimgcodecInstanceDestroy");
    find(lib.DecoderCreate, "nvimgcodecDecoderCreate");
    find(lib.DecoderDestroy, "nvimgcodecDecoderDestroy");
    find(lib.DecoderDecode, "nvimgcodecDecoderDecode");
    find(lib.CodeStreamCreateFromHostMem, "nvimgcodecCodeStreamCreateFromHostMem");
    find(lib.CodeStreamDestroy, "nvimgcodecCodeStreamDestroy");
    find(lib.CodeStreamGetImageInfo, "nvimgcodecCodeStreamGetImageInfo");
    find(lib.ImageCreate, "nvimgcodecImageCreate");
    find(lib.ImageDestroy, "nvimgcodecImageDestroy");
    find(lib.FutureWaitForAll, "nvimgcodecFutureWaitForAll");
    find(lib.FutureGetProcessingStatus, "nvimgcodecFutureGetProcessingStatus");
    find(lib.FutureDestroy, "nvimgcodecFutureDestroy");
    // The codec modules (libnvjpeg_ext.so, ...) sit in extensions/ beside the library in the wheel.
    link_map* map = nullptr;
    if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name) lib.path = map->l_name;
    else lib.path = path;
    const std::size_t slash = lib.path.rfind('/');
    lib.extensions_dir = (slash == std::string::npos ? std::string(".") : lib.path.substr(0, slash)) + "/extensions";
    nvimgcodecProperties_t props{NVIMGCODEC_STRUCTURE_TYPE_PROPERTIES, sizeof(nvimgcodecProperties_t), nullptr, 0, 0};
    if (lib.GetProperties(&props) == NVIMGCODEC_STATUS_SUCCESS)
        lib.version = std::to_string(NVIMGCODEC_MAJOR_FROM_SEMVER(props.version)) + "." +
                      std::to_string(NVIMGCODEC_MINOR_FROM_SEMVER(props.version)) + "." +
                      std::to_string(NVIMGCODEC_PATCH_FROM_SEMVER(props.version));
    return lib;  // the handle stays open for the life of the process
}

}  // namespace

const NvImgCodec& nvimgcodec() {
    // A failure is not cached: a later call (after the user set the variable) tries again.
    static std::mutex mutex;
    static std::optional<NvImgCodec> lib;
    std::lock_guard lock(mutex);
    if (!lib) lib = load();
    return *lib;
}

std::string nvimgcodec_status_text(nvimgcodecStatus_t status) {
    const char* name = "status";
    switch (status) {
        case NVIMGCODEC_STATUS_SUCCESS: name = "SUCCESS"; break;
        case NVIMGCODEC_STATUS_NOT_INITIALIZED: name = "NOT_INITIALIZED"; break;
        case NVIMGCODEC_STATUS_INVALID_PARAMETER: name = "INVALID_PARAMETER"; break;
        case NVIMGCODEC_STATUS_BAD_CODESTREAM: name = "BAD_CODESTREAM"; break;
        case NVIMGCODEC_STATUS_CODESTREAM_UNSUPPORTED: name = "CODESTREAM_UNSUPPORTED"; break;
        case NVIMGCODEC_STATUS_ALLOCATOR_FAILURE: name = "ALLOCATOR_FAILURE"; break;
        case NVIMGCODEC_STATUS_EXECUTION_FAILED: name = "EXECUTION_FAILED"; break;
        case NVIMGCODEC_STATUS_ARCH_MISMATCH: name = "ARCH_MISMATCH"; break;
        case NVIMGCODEC_STATUS_INTERNAL_ERROR: name = "INTERNAL_ERROR"; break;
        case NVIMGCODEC_STATUS_IMPLEMENTATION_UNSUPPORTED: name = "IMPLEMENTATION_UNSUPPORTED"; break;
        case NVIMGCODEC_STATUS_MISSED_DEPENDENCIES: name = "MISSED_DEPENDENCIES"; break;
        default: break;
    }
    return std::string("NVIMGCODEC_STATUS_") + name + " (" + std::to_string(int(status)) + ")";
}

std::string nvimgcodec_processing_text(nvimgcodecProcessingStatus_t status) {
    switch (status) {
        case NVIMGCODEC_PROCESSING_STATUS_IMAGE_CORRUPTED: return "the image data is corrupt";
        case NVIMGCODEC_PROCESSING_STATUS_CODEC_UNSUPPORTED: return "no GPU codec for it";
        case NVIMGCODEC_PROCESSING_STATUS_BACKEND_UNSUPPORTED: return "no backend takes it";
        case NVIMGCODEC_PROCESSING_STATUS_ENCODING_UNSUPPORTED: return "its JPEG encoding is not supported";
        case NVIMGCODEC_PROCESSING_STATUS_RESOLUTION_UNSUPPORTED: return "its size is not supported";
        case NVIMGCODEC_PROCESSING_STATUS_COLOR_SPEC_UNSUPPORTED: return "its colour space is not supported";
        case NVIMGCODEC_PROCESSING_STATUS_SAMPLING_UNSUPPORTED: return "its chroma subsampling is not supported";
        default: return "nvImageCodec processing status " + std::to_string(status);
    }
}

}  // namespace imghist::cuda_detail
