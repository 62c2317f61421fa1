// OpenImageIO's readers loaded from libimghist_oiio.so when the first file needs them (the
// command links this instead of oiio_linked.cpp): a run that reads only files imghist decodes
// itself never loads OpenImageIO. The module is looked for beside the executable (the build
// tree) and then where it is installed, IMGHIST_OIIO_MODULE_FROM_BINDIR from the executable's
// folder.
#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "oiio_readers.hpp"

namespace imghist::io::reading {

namespace {

constexpr const char* kModuleName = "libimghist_oiio.so";

std::filesystem::path executable_folder() {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path() : self.parent_path();
}

}  // namespace

const OiioReaders& find_oiio_readers() {
    const std::filesystem::path folder = executable_folder();
    const std::vector<std::filesystem::path> candidates = {
        folder / kModuleName, folder / IMGHIST_OIIO_MODULE_FROM_BINDIR / kModuleName};
    std::string why;
    for (const std::filesystem::path& path : candidates) {
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) continue;
        // Never closed: its readers serve until the process ends.
        void* module = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!module) {
            why = ::dlerror();
            continue;
        }
        using Entry = const OiioReaders* (*)();
        if (const auto entry = reinterpret_cast<Entry>(::dlsym(module, "imghist_oiio_readers"))) return *entry();
        why = path.string() + " has no entry point imghist_oiio_readers";
    }
    if (why.empty()) why = std::string(kModuleName) + " is found neither beside the executable nor in " +
                           (folder / IMGHIST_OIIO_MODULE_FROM_BINDIR).lexically_normal().string();
    throw ReadError("OpenImageIO's readers cannot be loaded: " + why);
}

}  // namespace imghist::io::reading
