// The opencl backend: the seed's algorithm (partial histograms in local memory with local
// atomics, several pixels per work-item, a merge of the partials) on any OpenCL 1.2 device.
// The kernels are src/backends/opencl/histogram.cl; this file chooses their sizes from the
// device's limits, feeds them pixels (uploaded from the host, or read in place from the
// caller's cl_mem), and keeps the counts exact past 2^32 samples.
#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "backends/opencl/cl_util.hpp"
#include "core/backend_engine.hpp"
#include "core/backend_list.hpp"
#include "core/device_select.hpp"
#include "core/tune.hpp"
#include "core/plan.hpp"
#include "imghist/opencl.hpp"

extern const unsigned char imghist_opencl_kernels[];
extern const unsigned long long imghist_opencl_kernels_size;

namespace imghist {
namespace {

using ocl::check;

// ---- device discovery ------------------------------------------------------------------

std::string device_string(cl_device_id d, cl_device_info what) {
    std::size_t n = 0;
    if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
    std::string s(n, '\0');
    if (clGetDeviceInfo(d, what, n, s.data(), nullptr) != CL_SUCCESS) return {};
    s.resize(std::strlen(s.c_str()));
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    return s;
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
    std::size_t n = 0;
    if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
    std::string s(n, '\0');
    if (clGetPlatformInfo(p, what, n, s.data(), nullptr) != CL_SUCCESS) return {};
    s.resize(std::strlen(s.c_str()));
    return s;
}

template <typename T>
T device_value(cl_device_id d, cl_device_info what) {
    T v{};
    check(clGetDeviceInfo(d, what, sizeof v, &v, nullptr), "clGetDeviceInfo");
    return v;
}

struct ClDevice {
    cl_platform_id platform = nullptr;
    cl_device_id device = nullptr;
    unsigned platform_index = 0, device_index = 0, flat_index = 0;
    std::string name, platform_name;
    bool gpu = false, available = false;
    std::string note;
    std::string id() const { return std::to_string(platform_index) + ":" + std::to_string(device_index); }
};

// OpenCL C version "OpenCL C 1.2 ..." -> 12.
int opencl_c_version(cl_device_id d) {
    const std::string v = device_string(d, CL_DEVICE_OPENCL_C_VERSION);
    int major = 0, minor = 0;
    if (std::sscanf(v.c_str(), "OpenCL C %d.%d", &major, &minor) != 2) return 0;
    return major * 10 + minor;
}

// Every device of every platform, with why it cannot be used. `problem` is set when not even
// the platforms could be listed.
std::vector<ClDevice> enumerate_devices(std::string& problem) {
    std::vector<ClDevice> out;
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, nullptr, &np);
    if (err != CL_SUCCESS || np == 0) {
        problem = err != CL_SUCCESS ? "clGetPlatformIDs: " + ocl::error_name(err) +
                                          " (no OpenCL ICD installed or none loads)"
                                    : "no OpenCL platform";
        return out;
    }
    std::vector<cl_platform_id> platforms(np);
    if ((err = clGetPlatformIDs(np, platforms.data(), nullptr)) != CL_SUCCESS) {
        problem = "clGetPlatformIDs: " + ocl::error_name(err);
        return out;
    }
    unsigned flat = 0;
    for (unsigned pi = 0; pi < np; ++pi) {
        cl_uint nd = 0;
        err = clGetDeviceIDs(platforms[pi], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd);
        if (err != CL_SUCCESS || nd == 0) continue;
        std::vector<cl_device_id> ids(nd);
        if (clGetDeviceIDs(platforms[pi], CL_DEVICE_TYPE_ALL, nd, ids.data(), nullptr) != CL_SUCCESS)
            continue;
        const std::string pname = platform_string(platforms[pi], CL_PLATFORM_NAME);
        for (unsigned di = 0; di < nd; ++di) {
            ClDevice d;
            d.platform = platforms[pi];
            d.device = ids[di];
            d.platform_index = pi;
            d.device_index = di;
            d.flat_index = flat++;
            d.name = device_string(ids[di], CL_DEVICE_NAME);
            d.platform_name = pname;
            cl_device_type type = 0;
            cl_bool avail = CL_FALSE, compiler = CL_FALSE;
            cl_uint cus = 0;
            cl_ulong local = 0;
            clGetDeviceInfo(ids[di], CL_DEVICE_TYPE, sizeof type, &type, nullptr);
            clGetDeviceInfo(ids[di], CL_DEVICE_AVAILABLE, sizeof avail, &avail, nullptr);
            clGetDeviceInfo(ids[di], CL_DEVICE_COMPILER_AVAILABLE, sizeof compiler, &compiler, nullptr);
            clGetDeviceInfo(ids[di], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, nullptr);
            clGetDeviceInfo(ids[di], CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, nullptr);
            d.gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
            const int cver = opencl_c_version(ids[di]);
            d.note = pname + ", " + device_string(ids[di], CL_DEVICE_VERSION) + ", " +
                     std::to_string(cus) + " compute units, " + std::to_string(local / 1024) +
                     " KiB local memory";
            if (!avail) d.note = "device reports CL_DEVICE_AVAILABLE = false; " + d.note;
            else if (!compiler) d.note = "no OpenCL C compiler (CL_DEVICE_COMPILER_AVAILABLE = false); " + d.note;
            else if (cver < 11) d.note = "needs OpenCL C 1.1 or later (local atomics); " + d.note;
            else d.available = true;
            out.push_back(std::move(d));
        }
    }
    if (out.empty()) problem = "no OpenCL device on " + std::to_string(np) + " platform(s)";
    return out;
}

// What devices() lists and select_device() matches.
DeviceInfo device_info(const ClDevice& d) {
    return {d.id(), d.name, d.gpu, d.available, d.note};
}

// EngineOptions::device / IMGHIST_OPENCL_DEVICE, by the shared rule (core/device_select.hpp):
// "P:D", a flat index "N", or a case-insensitive substring of the device name.
ClDevice select_device(const std::string& selector) {
    std::string problem;
    const std::vector<ClDevice> all = enumerate_devices(problem);
    if (all.empty()) throw BackendUnavailable("opencl: " + problem);
    std::vector<DeviceInfo> infos;
    for (const ClDevice& d : all) infos.push_back(device_info(d));
    return all[imghist::select_device("opencl", infos, selector, "IMGHIST_OPENCL_DEVICE")];
}

// ---- tuning ------------------------------------------------------------------------------
// Defaults come from the device; IMGHIST_OPENCL_TUNE="key=value,..." overrides them for
// measurements and tests (docs/performance.md): wg, gpc (work-groups per compute unit),
// groups (work-groups per launch, instead of gpc), layout (copies/lanes/pairs), copies,
// pack (0/1), value (0/1), loads (2/4), merge (atomic/sum), fast (0/1), spec (0/1),
// global (0/1), max_local (bytes), tile_pixels, launch_pixels, reserve (bytes of local memory
// kept for the kernel itself, instead of CL_KERNEL_LOCAL_MEM_SIZE: reserve=0 offers a layout all
// of CL_DEVICE_LOCAL_MEM_SIZE, to see whether the device runs it), swizzle (0/1: value-mode
// slots spread over the banks, histogram.cl ih_value_slot).
enum class LayoutKind { any, copies, lanes, pairs };

struct Tune {
    unsigned wg = 0, gpc = 0, groups = 0, copies = 0, loads = 0;
    LayoutKind layout = LayoutKind::any;
    int pack = -1, value = -1, merge_atomic = -1, fast = -1, spec = -1, swizzle = -1;
    bool force_global = false;
    std::uint64_t max_local = 0, tile_pixels = 0, launch_pixels = 0;
    std::int64_t reserve = -1;
};

Tune parse_tune() {
    Tune t;
    for (const TuneKnob& k : tune_knobs("IMGHIST_OPENCL_TUNE")) {
        const std::string& key = k.key;
        const std::string& val = k.value;
        if (key == "wg") t.wg = unsigned(k.number());
        else if (key == "gpc") t.gpc = unsigned(k.number());
        else if (key == "groups") t.groups = unsigned(k.number());
        else if (key == "copies") t.copies = unsigned(k.number());
        else if (key == "pack") t.pack = k.number() != 0;
        else if (key == "value") t.value = k.number() != 0;
        else if (key == "loads") t.loads = unsigned(k.number());
        else if (key == "layout") {
            if (val == "copies") t.layout = LayoutKind::copies;
            else if (val == "lanes") t.layout = LayoutKind::lanes;
            else if (val == "pairs") t.layout = LayoutKind::pairs;
            else throw InvalidArgument("IMGHIST_OPENCL_TUNE: layout is 'copies', 'lanes' or 'pairs'");
        }
        else if (key == "merge") {
            if (val != "atomic" && val != "sum")
                throw InvalidArgument("IMGHIST_OPENCL_TUNE: merge is 'atomic' or 'sum'");
            t.merge_atomic = val == "atomic";
        } else if (key == "fast") t.fast = k.number() != 0;
        else if (key == "spec") t.spec = k.number() != 0;
        else if (key == "global") t.force_global = k.number() != 0;
        else if (key == "max_local") t.max_local = k.number();
        else if (key == "tile_pixels") t.tile_pixels = k.number();
        else if (key == "launch_pixels") t.launch_pixels = k.number();
        else if (key == "reserve") t.reserve = std::int64_t(k.number());
        else if (key == "swizzle") t.swizzle = k.number() != 0;
        else k.unknown("wg, gpc, groups, copies, pack, value, loads, layout, merge, fast, spec, global, max_local, "
                       "tile_pixels, launch_pixels, reserve, swizzle");
    }
    if (t.copies != 0 && (!std::has_single_bit(t.copies) || t.copies > 32))
        throw InvalidArgument("IMGHIST_OPENCL_TUNE: copies must be a power of two up to 32");
    if (t.wg != 0 && !std::has_single_bit(t.wg))
        throw InvalidArgument("IMGHIST_OPENCL_TUNE: wg must be a power of two");
    if (t.loads != 0 && t.loads != 2 && t.loads != 4)
        throw InvalidArgument("IMGHIST_OPENCL_TUNE: loads is 2 or 4");
    // copies/pack without a layout mean the copies layout (as before layouts had names);
    // layout=pairs takes copies too.
    if (t.layout == LayoutKind::any && (t.copies != 0 || t.pack >= 0)) t.layout = LayoutKind::copies;
    return t;
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

constexpr std::uint32_t kSrcLuma = 15;
// Pixels per launch and per tile: 32-bit counters and the kernels' 32-bit loop indices (which
// step by the global size) stay far from overflow.
constexpr std::uint64_t kMaxLaunchPixels = 1ull << 31;

// A local layout of histogram.cl: `copies` sub-histograms; pack 0 = 32-bit counters, 1 = two
// slots per word, 2 = lane pairs (two work-items per word).
struct Layout {
    unsigned copies, pack;
};

// The work-items of a work-group of `wg` that increment one counter of the layout.
std::uint64_t sharers(Layout layout, std::size_t wg) {
    return ceil_div(wg, layout.pack == 2 ? 2 * layout.copies : layout.copies);
}

// How one channel pass is counted.
struct PassConfig {
    unsigned c0 = 0, nch = 0;     // plan channels [c0, c0 + nch)
    bool global = false;          // no local memory: global atomics
    bool fast = false;            // ih_hist_u8x4
    unsigned copies = 1;
    unsigned pack = 0;
    bool value = false;           // 8-bit value mode: 256 local slots per channel
    bool swizzle = false;         // value mode: slots XOR-swizzled over the banks (ih_value_slot)
    unsigned loads = 2;           // 16-byte loads in flight (ih_hist_u8x4)
    unsigned lspc = 0;            // local slots per channel
    unsigned words = 0;           // local words per copy
    std::size_t wg = 0, max_groups = 0;
    std::uint64_t launch_units = 0;  // most units (pixels, or 4-pixel vectors) per launch
    cl_kernel kernel = nullptr;
    std::string program_key;
};

// Where the pixels of one accumulate() come from.
struct DeviceSource {
    enum Kind { host, buffer, image } kind = host;
    cl_mem mem = nullptr;
    std::size_t offset_bytes = 0;
};

// ---- the engine --------------------------------------------------------------------------

class OpenClEngine final : public BackendEngine<> {
public:
    explicit OpenClEngine(const ClDevice& d) : device_(d.device), name_(d.name) {
        cl_int err = CL_SUCCESS;
        const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                               reinterpret_cast<cl_context_properties>(d.platform), 0};
        context_ = ocl::Context(clCreateContext(props, 1, &device_, nullptr, nullptr, &err));
        check(err, "clCreateContext");
        queue_ = ocl::Queue(clCreateCommandQueue(context_.get(), device_, CL_QUEUE_PROFILING_ENABLE, &err));
        check(err, "clCreateCommandQueue");
        init();
    }

    explicit OpenClEngine(cl_command_queue queue) {
        if (queue == nullptr) throw InvalidArgument("opencl::create_engine: null queue");
        cl_context ctx = nullptr;
        check(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr),
              "clGetCommandQueueInfo(CL_QUEUE_CONTEXT)");
        check(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device_, &device_, nullptr),
              "clGetCommandQueueInfo(CL_QUEUE_DEVICE)");
        cl_command_queue_properties qp = 0;
        check(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof qp, &qp, nullptr),
              "clGetCommandQueueInfo(CL_QUEUE_PROPERTIES)");
        context_ = ocl::Context::retain(ctx);
        name_ = device_string(device_, CL_DEVICE_NAME);
        if (qp & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
            // Our commands depend on each other: drain the caller's queue, then use our own.
            check(clFinish(queue), "clFinish");
            cl_int err = CL_SUCCESS;
            queue_ = ocl::Queue(clCreateCommandQueue(ctx, device_, qp & CL_QUEUE_PROFILING_ENABLE, &err));
            check(err, "clCreateCommandQueue");
        } else {
            queue_ = ocl::Queue::retain(queue);
        }
        init();
    }

    ~OpenClEngine() override {
        if (queue_) clFinish(queue_.get());
    }

    std::string_view backend_name() const override { return "opencl"; }
    std::string device_name() const override { return name_; }

    void accumulate(const ImageView& image, const HistogramPlan& plan,
                    std::span<std::uint64_t> slots) override;

    // Interop (imghist/opencl.hpp).
    Result compute_source(const ImageView& shape, const DeviceSource& src, const Request& request) {
        check_context(src.mem);
        pending_ = src;
        struct Reset {
            OpenClEngine* e;
            ~Reset() { e->pending_ = DeviceSource{}; }
        } reset{this};
        return compute(shape, request);
    }
    cl_context context() const { return context_.get(); }
    std::optional<opencl::DeviceTimes> last_times() const { return last_times_; }

private:
    void init();
    void check_context(cl_mem mem) const;
    cl_program program(const std::string& options);
    cl_kernel kernel(const std::string& options, const char* name);
    void dump_program(cl_program prog, const std::string& dir, const std::string& opts) const;
    PassConfig configure(const HistogramPlan& plan, unsigned c0, unsigned nch, bool fast, bool row_mode,
                         std::uint32_t width);
    std::vector<PassConfig> plan_passes(const HistogramPlan& plan, bool fast, bool row_mode,
                                        std::uint32_t width);
    std::string spec_options(const HistogramPlan& plan, const PassConfig& c) const;
    std::vector<Layout> layout_chain(bool fast, bool value, std::size_t wg) const;
    bool value_swizzle(const HistogramPlan& plan, unsigned c0, unsigned nch) const;
    cl_mem ensure(ocl::Mem& mem, std::size_t& have, std::size_t need);
    cl_event* ev() { return profiling_ ? &pending_event_ : nullptr; }
    // Keeps the event of the command just enqueued (is_kernel: a histogram or merge kernel).
    void take_event(bool is_kernel) {
        if (pending_event_) events_.push_back({ocl::Event(std::exchange(pending_event_, nullptr)), is_kernel});
    }
    void finish_timing();
    void run_pass(const HistogramPlan& plan, const PassConfig& c, cl_mem data, std::uint64_t base_samples,
                  bool packed, std::uint32_t width, std::uint64_t stride_samples, std::uint64_t first,
                  std::uint64_t pixels);

    cl_device_id device_ = nullptr;
    std::string name_;
    ocl::Context context_;
    ocl::Queue queue_;
    Tune tune_;
    bool gpu_ = false, profiling_ = false;
    cl_uint compute_units_ = 1;
    cl_ulong local_mem_ = 0, max_alloc_ = 0;
    std::size_t max_wg_ = 1;
    std::map<std::string, ocl::Program> programs_;
    std::map<std::string, ocl::Kernel> kernels_;
    ocl::Mem staging_, result32_, result64_, partials_;
    std::size_t staging_size_ = 0, result32_size_ = 0, result64_size_ = 0, partials_size_ = 0;
    DeviceSource pending_;
    struct Timed {
        ocl::Event event;
        bool is_kernel;
    };
    std::vector<Timed> events_;
    cl_event pending_event_ = nullptr;
    std::optional<opencl::DeviceTimes> last_times_;
};

void OpenClEngine::init() {
    tune_ = parse_tune();
    cl_device_type type = device_value<cl_device_type>(device_, CL_DEVICE_TYPE);
    gpu_ = (type & CL_DEVICE_TYPE_GPU) != 0;
    compute_units_ = std::max<cl_uint>(1, device_value<cl_uint>(device_, CL_DEVICE_MAX_COMPUTE_UNITS));
    local_mem_ = device_value<cl_ulong>(device_, CL_DEVICE_LOCAL_MEM_SIZE);
    max_alloc_ = device_value<cl_ulong>(device_, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    max_wg_ = device_value<std::size_t>(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    cl_command_queue_properties qp = 0;
    check(clGetCommandQueueInfo(queue_.get(), CL_QUEUE_PROPERTIES, sizeof qp, &qp, nullptr),
          "clGetCommandQueueInfo(CL_QUEUE_PROPERTIES)");
    profiling_ = (qp & CL_QUEUE_PROFILING_ENABLE) != 0;
    if (opencl_c_version(device_) < 11)
        throw BackendUnavailable("opencl: device '" + name_ + "' lacks OpenCL C 1.1 (local atomics)");
}

void OpenClEngine::check_context(cl_mem mem) const {
    if (mem == nullptr) throw InvalidArgument("opencl: null cl_mem");
    cl_context ctx = nullptr;
    check(clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof ctx, &ctx, nullptr), "clGetMemObjectInfo(CL_MEM_CONTEXT)");
    if (ctx != context_.get())
        throw InvalidArgument("opencl: the cl_mem belongs to another context than the engine's "
                              "(create the engine with imghist::opencl::create_engine(queue))");
}

cl_program OpenClEngine::program(const std::string& options) {
    auto it = programs_.find(options);
    if (it != programs_.end()) return it->second.get();
    const char* src = reinterpret_cast<const char*>(imghist_opencl_kernels);
    const std::size_t len = std::size_t(imghist_opencl_kernels_size);
    cl_int err = CL_SUCCESS;
    ocl::Program prog(clCreateProgramWithSource(context_.get(), 1, &src, &len, &err));
    check(err, "clCreateProgramWithSource");
    std::string opts = "-cl-std=CL1.2 " + options;
    if (const char* extra = std::getenv("IMGHIST_OPENCL_BUILD_OPTIONS")) opts += std::string(" ") + extra;
    err = clBuildProgram(prog.get(), 1, &device_, opts.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
        std::size_t n = 0;
        clGetProgramBuildInfo(prog.get(), device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
        std::string log(n, '\0');
        if (n) clGetProgramBuildInfo(prog.get(), device_, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
        log.resize(std::strlen(log.c_str()));
        if (log.size() > 4000) log = log.substr(0, 4000) + "\n[build log truncated]";
        check(err, "clBuildProgram", "histogram.cl with options '" + opts + "' on " + name_ +
                                         (log.empty() ? std::string() : ", build log:\n" + log));
    }
    if (const char* dir = std::getenv("IMGHIST_OPENCL_DUMP_DIR")) dump_program(prog.get(), dir, opts);
    return programs_.emplace(options, std::move(prog)).first->second.get();
}

// IMGHIST_OPENCL_DUMP_DIR: writes every program the engine builds as the device's binary
// (PTX on NVIDIA), with its build options on the first line of a .txt beside it, to see what
// the compiler made of histogram.cl.
void OpenClEngine::dump_program(cl_program prog, const std::string& dir, const std::string& opts) const {
    std::size_t size = 0;
    check(clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr),
          "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)");
    std::string bin(size, '\0');
    unsigned char* ptr = reinterpret_cast<unsigned char*>(bin.data());
    check(clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr), "clGetProgramInfo(CL_PROGRAM_BINARIES)");
    const std::string stem = dir + "/program-" + std::to_string(std::hash<std::string>{}(opts) % 1000000007u);
    std::ofstream(stem + ".txt") << opts << "\n";
    std::ofstream(stem + ".bin", std::ios::binary) << bin;
}

cl_kernel OpenClEngine::kernel(const std::string& options, const char* name) {
    const std::string key = options + "#" + name;
    auto it = kernels_.find(key);
    if (it != kernels_.end()) return it->second.get();
    cl_program prog = program(options);
    cl_int err = CL_SUCCESS;
    ocl::Kernel k(clCreateKernel(prog, name, &err));
    check(err, "clCreateKernel", name);
    return kernels_.emplace(key, std::move(k)).first->second.get();
}

cl_mem OpenClEngine::ensure(ocl::Mem& mem, std::size_t& have, std::size_t need) {
    need = std::max<std::size_t>(need, 64);
    if (mem && have >= need) return mem.get();
    mem = ocl::Mem();
    cl_int err = CL_SUCCESS;
    mem = ocl::Mem(clCreateBuffer(context_.get(), CL_MEM_READ_WRITE, need, nullptr, &err));
    check(err, "clCreateBuffer", std::to_string(need) + " bytes");
    have = need;
    return mem.get();
}

const char* sample_suffix(SampleType t) {
    switch (t) {
        case SampleType::u8: return "u8";
        case SampleType::u16: return "u16";
        case SampleType::f16: return "f16";
        case SampleType::f32: return "f32";
    }
    return "u8";
}

std::uint32_t pass_sources(const HistogramPlan& plan, unsigned c0, unsigned nch) {
    std::uint32_t s = 0;
    for (unsigned c = 0; c < nch; ++c) {
        const int src = plan.sources[c0 + c];
        s |= (src == kLumaSource ? kSrcLuma : std::uint32_t(src)) << (4 * c);
    }
    return s;
}

std::uint32_t rgb_indices(const FormatInfo& fi) {
    auto idx = [](int i) { return std::uint32_t(i < 0 ? 0 : i); };
    return idx(fi.red) | (idx(fi.green) << 4) | (idx(fi.blue) << 8);
}

std::string OpenClEngine::spec_options(const HistogramPlan& plan, const PassConfig& c) const {
    std::string o;
    auto def = [&](const char* k, std::uint64_t v) { o += std::string(" -DIH_C_") + k + "=" + std::to_string(v) + "u"; };
    // Value mode and loads in flight are constants in every build: as arguments, the branches
    // on them made PoCL's generic RGBA8 kernel twice as slow.
    if (!c.global) {
        def("VALUE", c.value ? 1 : 0);
        def("SWIZZLE", c.swizzle ? 1 : 0);
        def("LOADS", c.loads);
    }
    const bool spec = tune_.spec >= 0 ? tune_.spec != 0 : gpu_;
    if (!spec) return o;
    const bool merge_atomic = tune_.merge_atomic >= 0 ? tune_.merge_atomic != 0 : true;
    def("NCH", c.nch);
    def("SOURCES", pass_sources(plan, c.c0, c.nch));
    def("BINS", plan.bins());
    def("INT_MODE", plan.int_mode);
    def("SHIFT", plan.shift);
    def("RGB", rgb_indices(plan.info));
    def("LSPC", c.lspc);
    if (!c.global) {
        def("COPIES", c.copies);
        def("PACK", c.pack);
        def("MERGE", merge_atomic ? 1 : 0);
    }
    return o;
}

// The local layouts to try, best first; the first that fits the local memory wins.
std::vector<Layout> OpenClEngine::layout_chain(bool fast, bool value, std::size_t wg) const {
    std::vector<Layout> chain;
    // Default on GPUs for the RGBA8 kernel in value mode (H200 measurements, docs/performance.md):
    // one copy, with the value swizzle where raw samples are counted (value_swizzle).
    // - R, G, B: 67-70% of the floor on random data, 80-85% on natural, constant and
    //   bank-adversarial. 16 copies of 16-bit counters packed two slots to a word held 61-67%
    //   everywhere; one copy without the swizzle 96-100% on constant data but 30% on
    //   bank-adversarial. Per-lane counters (what makes the CUDA backend reach 95%) need 48 KiB
    //   for R, G, B, which NVIDIA reports but refuses to launch (CL_OUT_OF_RESOURCES).
    // - R, G, B, Y: 50% random, 59% bank-adversarial (lane pairs: 51% and 50%).
    if (tune_.layout == LayoutKind::any && gpu_ && fast && value) chain.push_back({1, 0});
    if (tune_.layout == LayoutKind::lanes) chain.push_back({32, 0});
    if (tune_.layout == LayoutKind::pairs) chain.push_back({tune_.copies ? tune_.copies : 16u, 2});
    // Then copies, halving from the wanted number, packed by slot or not. One unpacked copy
    // was measured best of these on an H200 (docs/performance.md): the hardware merges
    // same-address atomics, which keeps constant images at the memory floor.
    const unsigned want_copies = tune_.copies ? tune_.copies : 1u;
    const bool want_pack = tune_.pack >= 0 ? tune_.pack != 0 : false;
    for (unsigned copies = unsigned(std::min<std::size_t>(want_copies, wg)); copies >= 1; copies /= 2)
        for (const bool pack : {want_pack, !want_pack})
            if (tune_.pack < 0 || pack == (tune_.pack != 0)) chain.push_back({copies, pack ? 1u : 0u});
    // Packed counters may not hold one row of a row-mode launch: one unpacked copy then.
    chain.push_back({1, 0});
    return chain;
}

// Whether a value-mode pass swizzles its slots over the banks (ih_value_slot). On GPUs by default
// when it counts a raw sample: values 32 apart (posterised or bit-shifted data, the
// bank-adversarial test image) would otherwise put a warp on one bank of one copy. Luminance
// alone skips it: its values rarely line up like that, and the swizzle costs it 2% (96 -> 94%).
bool OpenClEngine::value_swizzle(const HistogramPlan& plan, unsigned c0, unsigned nch) const {
    if (tune_.swizzle >= 0) return tune_.swizzle != 0;
    return gpu_ && plan.counts_a_sample(c0, nch);
}

// Chooses the layout, value mode and sizes for channels [c0, c0 + nch) so that the local
// histogram fits the device; nch = 0 in the result means it does not fit even one channel.
PassConfig OpenClEngine::configure(const HistogramPlan& plan, unsigned c0, unsigned nch, bool fast,
                                   bool row_mode, std::uint32_t width) {
    PassConfig c;
    c.c0 = c0;
    c.nch = nch;
    c.fast = fast;
    // Four 16-byte loads in flight measured 2-6% faster than two on the H200 with every layout.
    c.loads = tune_.loads ? tune_.loads : (gpu_ ? 4u : 2u);
    const std::string name = fast ? "ih_hist_u8x4" : std::string("ih_hist_") + sample_suffix(plan.info.sample);
    // The kernel's limits do not depend on the constants, so ask the generic build.
    cl_kernel probe = kernel("", name.c_str());
    std::size_t kwg = 0;
    cl_ulong kernel_local = 0;
    check(clGetKernelWorkGroupInfo(probe, device_, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg, nullptr),
          "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)");
    check(clGetKernelWorkGroupInfo(probe, device_, CL_KERNEL_LOCAL_MEM_SIZE, sizeof kernel_local,
                                   &kernel_local, nullptr),
          "clGetKernelWorkGroupInfo(CL_KERNEL_LOCAL_MEM_SIZE)");
    std::size_t wg = tune_.wg ? tune_.wg : (gpu_ ? 256 : 64);
    wg = std::min({wg, kwg, max_wg_});
    wg = std::bit_floor(std::max<std::size_t>(wg, 1));
    c.wg = wg;
    if (tune_.reserve >= 0) kernel_local = cl_ulong(tune_.reserve);
    std::uint64_t avail = local_mem_ > kernel_local ? local_mem_ - kernel_local : 0;
    if (tune_.max_local) avail = std::min<std::uint64_t>(avail, tune_.max_local);
    // Work-groups per compute unit (the number of partial histograms): 4 was measured with the
    // default copies on the H200; 8 was measured only with 16/32 copies (docs/performance.md).
    c.max_groups = tune_.groups ? tune_.groups : std::size_t(compute_units_) * (tune_.gpc ? tune_.gpc : 4u);
    const unsigned ppu = fast ? 4 : 1;
    // Value mode: every 8-bit request counts raw values (binning happens at the merge).
    const bool value_ok = plan.info.sample == SampleType::u8;
    const bool want_value = value_ok && tune_.value != 0;
    bool found = false;
    for (int attempt = want_value ? 0 : 1; attempt < 2 && !found; ++attempt) {
        const bool value = attempt == 0;  // then classified counting, when values do not fit
        // Integer shift mode never yields nan/below/above: the local copy skips those slots.
        c.lspc = value ? 256u
                       : (!plan.is_float() && plan.int_mode == IH_INT_SHIFT) ? plan.bins() : plan.bins() + IH_EXTRA_SLOTS;
        const std::uint64_t slots = std::uint64_t(nch) * c.lspc;
        for (const Layout layout : layout_chain(fast, value, wg)) {
            // A 16-bit counter takes at most one count per pixel from each of its sharers:
            // bound the units (pixels, or 4-pixel vectors) per work-item and launch.
            const std::uint64_t per_item = layout.pack ? 65535 / (sharers(layout, wg) * ppu) : 0;
            if (layout.pack && per_item == 0) continue;
            const std::uint64_t words = layout.pack == 1 ? ceil_div(slots, 2) : slots;
            if (words * layout.copies * 4 > avail) continue;
            std::uint64_t units = kMaxLaunchPixels / ppu;
            if (layout.pack) units = std::min<std::uint64_t>(units, per_item * c.max_groups * wg);
            if (tune_.launch_pixels) units = std::min<std::uint64_t>(units, std::max<std::uint64_t>(1, tune_.launch_pixels / ppu));
            if (row_mode && units < width) {
                // A launch must hold whole rows.
                if (layout.pack) continue;
                units = width;  // only reachable through launch_pixels
            }
            c.copies = layout.copies;
            c.pack = layout.pack;
            c.value = value;
            c.swizzle = value && value_swizzle(plan, c0, nch);
            c.words = unsigned(words);
            c.launch_units = units;
            found = true;
            break;
        }
    }
    if (!found) {
        c.nch = 0;
        return c;
    }
    c.program_key = spec_options(plan, c);
    c.kernel = kernel(c.program_key, name.c_str());
    return c;
}

std::vector<PassConfig> OpenClEngine::plan_passes(const HistogramPlan& plan, bool fast, bool row_mode,
                                                  std::uint32_t width) {
    const unsigned total = unsigned(plan.channels.size());
    std::vector<PassConfig> passes;
    if (!tune_.force_global) {
        // As many channels per pass as fit the local memory: one pass unless bins x channels
        // is too large, then fewer channels per pass (each pass reads the pixels again).
        for (unsigned per = total; per >= 1; --per) {
            PassConfig first = configure(plan, 0, per, fast, row_mode, width);
            if (first.nch == 0) continue;
            for (unsigned c0 = 0; c0 < total; c0 += per) {
                const unsigned n = std::min(per, total - c0);
                passes.push_back(n == per && c0 == 0 ? first : configure(plan, c0, n, fast, row_mode, width));
            }
            if (per < total)
                add_note("opencl: " + std::to_string(plan.bins()) + " bins x " + std::to_string(total) +
                         " channels do not fit the device's " + std::to_string(local_mem_ / 1024) +
                         " KiB of local memory at once; counted in " + std::to_string(passes.size()) +
                         " passes of " + std::to_string(per) + " channel(s) over the pixels");
            return passes;
        }
    }
    // Not even one channel fits: count with global atomics (all channels in one pass).
    PassConfig g;
    g.c0 = 0;
    g.nch = total;
    g.global = true;
    g.lspc = plan.bins() + IH_EXTRA_SLOTS;
    const std::string name = std::string("ih_hist_global_") + sample_suffix(plan.info.sample);
    g.program_key = spec_options(plan, g);
    g.kernel = kernel(g.program_key, name.c_str());
    std::size_t kwg = 0;
    check(clGetKernelWorkGroupInfo(g.kernel, device_, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg, nullptr),
          "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)");
    g.wg = std::bit_floor(std::max<std::size_t>(1, std::min<std::size_t>(tune_.wg ? tune_.wg : 256, kwg)));
    g.max_groups = std::size_t(compute_units_) * 8;
    g.launch_units = kMaxLaunchPixels;
    if (tune_.launch_pixels) g.launch_units = std::max<std::uint64_t>(1, tune_.launch_pixels);
    if (row_mode) g.launch_units = std::max<std::uint64_t>(g.launch_units, width);
    if (!tune_.force_global)
        add_note("opencl: " + std::to_string(plan.bins()) + " bins do not fit the device's " +
                 std::to_string(local_mem_ / 1024) +
                 " KiB of local memory even for one channel; counted with global atomics (slower)");
    passes.push_back(g);
    return passes;
}

template <typename T>
void set_arg(cl_kernel k, cl_uint i, const T& v) {
    check(clSetKernelArg(k, i, sizeof(T), &v), "clSetKernelArg");
}

// Counts pixels [first, first + pixels) of one tile (packed) or rows [first, first + pixels /
// width) (row mode) for one pass, in launches that keep every counter in range.
void OpenClEngine::run_pass(const HistogramPlan& plan, const PassConfig& c, cl_mem data,
                            std::uint64_t base_samples, bool packed, std::uint32_t width,
                            std::uint64_t stride_samples, std::uint64_t first, std::uint64_t pixels) {
    const FormatInfo& fi = plan.info;
    const bool merge_atomic = c.global || (tune_.merge_atomic >= 0 ? tune_.merge_atomic != 0 : true);
    cl_uint16 p{};
    p.s[0] = width;
    p.s[1] = cl_uint(stride_samples);
    p.s[2] = packed ? 1 : 0;
    p.s[3] = cl_uint(fi.channels);
    p.s[4] = c.nch;
    p.s[5] = pass_sources(plan, c.c0, c.nch);
    p.s[6] = plan.bins();
    p.s[7] = plan.int_mode;
    p.s[8] = plan.shift;
    p.s[9] = plan.lo_key;
    p.s[10] = plan.hi_key;
    p.s[11] = plan.closed_top;
    p.s[12] = plan.clamp;
    p.s[13] = std::bit_cast<cl_uint>(plan.lo_float);
    p.s[14] = std::bit_cast<cl_uint>(plan.scale_float);
    p.s[15] = rgb_indices(fi);
    cl_uint8 q{};
    for (int i = 0; i < 3; ++i) {
        q.s[i] = plan.weight_int[i];
        q.s[3 + i] = std::bit_cast<cl_uint>(plan.weight_float[i]);
    }
    q.s[6] = c.lspc;
    q.s[7] = c.c0 * plan.slots_per_channel();
    cl_uint8 l{};
    l.s[0] = c.copies;
    l.s[1] = c.pack;
    l.s[2] = merge_atomic ? 1 : 0;
    l.s[3] = c.words;
    l.s[4] = c.value ? 1 : 0;
    l.s[5] = c.loads;
    l.s[6] = c.swizzle ? 1 : 0;
    cl_long2 range{};
    range.s[0] = plan.lo_int;
    range.s[1] = plan.hi_int;
    if (!packed && stride_samples > 0xFFFFFFFFull)
        throw InvalidArgument("opencl: row stride above 2^32 samples is not supported");

    const unsigned ppu = c.fast ? 4 : 1;
    const std::uint64_t nslots = std::uint64_t(c.nch) * c.lspc;
    std::uint64_t done = 0;
    while (done < pixels) {
        std::uint64_t n = std::min<std::uint64_t>(pixels - done, c.launch_units * ppu);
        if (!packed) n = std::max<std::uint64_t>(width, n / width * width);  // whole rows
        else if (c.fast && n < pixels - done) n &= ~std::uint64_t(3);        // vectors stay aligned
        const std::uint64_t launch_first = packed ? first + done : first + done / width;
        const std::uint64_t units = ceil_div(n, ppu);
        const std::size_t groups = std::size_t(std::max<std::uint64_t>(1, std::min<std::uint64_t>(c.max_groups, ceil_div(units, c.wg))));
        cl_uint ai = 0;
        set_arg(c.kernel, ai++, data);
        set_arg(c.kernel, ai++, cl_ulong(c.fast ? base_samples / 16 : base_samples));
        set_arg(c.kernel, ai++, cl_ulong(launch_first));
        set_arg(c.kernel, ai++, cl_uint(n));
        set_arg(c.kernel, ai++, p);
        set_arg(c.kernel, ai++, q);
        set_arg(c.kernel, ai++, l);
        set_arg(c.kernel, ai++, range);
        cl_mem out = result32_.get();
        if (!c.global) {
            check(clSetKernelArg(c.kernel, ai++, std::size_t(c.words) * c.copies * 4, nullptr), "clSetKernelArg(local)");
            if (!merge_atomic) out = ensure(partials_, partials_size_, groups * nslots * 4);
        }
        set_arg(c.kernel, ai++, out);
        const std::size_t global = groups * c.wg, local = c.wg;
        check(clEnqueueNDRangeKernel(queue_.get(), c.kernel, 1, nullptr, &global, &local, 0, nullptr, ev()),
              "clEnqueueNDRangeKernel", c.global ? "global-atomic histogram kernel" : "histogram kernel");
        take_event(true);
        if (!merge_atomic) {
            cl_kernel sum = kernel(c.program_key, "ih_sum_partials");
            set_arg(sum, 0, partials_.get());
            set_arg(sum, 1, cl_uint(groups));
            set_arg(sum, 2, p);
            set_arg(sum, 3, q);
            set_arg(sum, 4, l);
            set_arg(sum, 5, range);
            set_arg(sum, 6, result32_.get());
            const std::size_t sl = 64, sg = ceil_div(nslots, sl) * sl;
            check(clEnqueueNDRangeKernel(queue_.get(), sum, 1, nullptr, &sg, &sl, 0, nullptr, ev()),
                  "clEnqueueNDRangeKernel", "ih_sum_partials");
            take_event(true);
        }
        done += n;
    }
}

void OpenClEngine::accumulate(const ImageView& image, const HistogramPlan& plan,
                              std::span<std::uint64_t> slots) {
    events_.clear();
    last_times_.reset();
    const DeviceSource src = pending_;
    const FormatInfo& fi = plan.info;
    const std::size_t bps = std::size_t(fi.bytes_per_sample);
    const std::size_t row_bytes = image.row_bytes();
    const std::size_t total_slots = plan.total_slots();
    try {
        // Tiles: every 32-bit result counter stays below 2^32, and a staged tile fits one
        // buffer. Staged tiles and strided device buffers go by whole rows; a packed device
        // buffer by pixel ranges (multiples of 4 pixels, so 16-byte loads stay aligned).
        std::uint64_t tile_pixels = kMaxLaunchPixels;
        if (tune_.tile_pixels) tile_pixels = std::min<std::uint64_t>(tile_pixels, std::max<std::uint64_t>(4, tune_.tile_pixels));
        const bool staged = src.kind != DeviceSource::buffer;
        bool packed;
        std::uint64_t stride_samples, base0 = 0;
        if (staged) {
            packed = true;
            stride_samples = row_bytes / bps;
        } else {
            if (src.offset_bytes % bps != 0)
                throw InvalidArgument("opencl: buffer offset must be a multiple of the sample size");
            stride_samples = image.stride_bytes / bps;
            packed = image.stride_bytes == row_bytes || image.height == 1;
            base0 = src.offset_bytes / bps;
        }
        const bool by_pixels = !staged && packed;
        std::uint64_t tile_rows = std::max<std::uint64_t>(1, tile_pixels / image.width);
        if (staged) {
            const std::uint64_t cap = std::min<std::uint64_t>(max_alloc_, gpu_ ? (1ull << 30) : (256ull << 20));
            if (row_bytes > cap)
                throw DeviceError("opencl: one row of " + std::to_string(row_bytes) +
                                  " bytes is larger than the largest buffer used on " + name_ + " (" +
                                  std::to_string(cap) + " bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE " +
                                  std::to_string(max_alloc_) + ")");
            tile_rows = std::min<std::uint64_t>(tile_rows, cap / row_bytes);
        }
        tile_rows = std::min<std::uint64_t>(tile_rows, image.height);
        const std::uint64_t total_pixels = image.pixel_count();
        const std::uint64_t tile_px = tile_pixels & ~std::uint64_t(3);
        const std::uint64_t ntiles = by_pixels ? ceil_div(total_pixels, tile_px) : ceil_div(image.height, tile_rows);

        const bool fast_ok = tune_.fast != 0 && fi.sample == SampleType::u8 && fi.channels == 4 && packed &&
                             (staged || src.offset_bytes % 16 == 0);
        const std::vector<PassConfig> passes = plan_passes(plan, fast_ok, !packed, image.width);

        ensure(result32_, result32_size_, total_slots * 4);
        const cl_uint zero = 0;
        check(clEnqueueFillBuffer(queue_.get(), result32_.get(), &zero, sizeof zero, 0, total_slots * 4, 0,
                                  nullptr, ev()),
              "clEnqueueFillBuffer");
        take_event(false);
        if (ntiles > 1) {
            ensure(result64_, result64_size_, total_slots * 8);
            const cl_ulong zero64 = 0;
            check(clEnqueueFillBuffer(queue_.get(), result64_.get(), &zero64, sizeof zero64, 0, total_slots * 8,
                                      0, nullptr, nullptr),
                  "clEnqueueFillBuffer");
        }
        for (std::uint64_t t = 0; t < ntiles; ++t) {
            if (by_pixels) {
                const std::uint64_t first = t * tile_px;
                const std::uint64_t n = std::min<std::uint64_t>(tile_px, total_pixels - first);
                for (const PassConfig& c : passes)
                    run_pass(plan, c, src.mem, base0, true, image.width, stride_samples, first, n);
            } else {
                const std::uint64_t y0 = t * tile_rows;
                const std::uint64_t rows = std::min<std::uint64_t>(tile_rows, image.height - y0);
                cl_mem data;
                std::uint64_t base = 0;
                if (src.kind == DeviceSource::host) {
                    data = ensure(staging_, staging_size_, rows * row_bytes);
                    const std::byte* host = image.row(std::uint32_t(y0));
                    if (image.stride_bytes == row_bytes || rows == 1) {
                        check(clEnqueueWriteBuffer(queue_.get(), data, CL_FALSE, 0, rows * row_bytes, host, 0,
                                                   nullptr, ev()),
                              "clEnqueueWriteBuffer");
                    } else {
                        const std::size_t origin[3] = {0, 0, 0};
                        const std::size_t region[3] = {row_bytes, std::size_t(rows), 1};
                        check(clEnqueueWriteBufferRect(queue_.get(), data, CL_FALSE, origin, origin, region,
                                                       row_bytes, 0, image.stride_bytes, 0, host, 0, nullptr, ev()),
                              "clEnqueueWriteBufferRect");
                    }
                    take_event(false);
                } else if (src.kind == DeviceSource::image) {
                    data = ensure(staging_, staging_size_, rows * row_bytes);
                    const std::size_t origin[3] = {0, std::size_t(y0), 0};
                    const std::size_t region[3] = {image.width, std::size_t(rows), 1};
                    check(clEnqueueCopyImageToBuffer(queue_.get(), src.mem, data, origin, region, 0, 0, nullptr, ev()),
                          "clEnqueueCopyImageToBuffer");
                    take_event(false);
                } else {
                    data = src.mem;
                    base = base0 + y0 * stride_samples;
                }
                for (const PassConfig& c : passes)
                    run_pass(plan, c, data, base, packed, image.width, stride_samples, 0, rows * image.width);
            }
            if (ntiles > 1) {
                cl_kernel acc = kernel(passes.front().program_key, "ih_accumulate64");
                set_arg(acc, 0, result32_.get());
                set_arg(acc, 1, result64_.get());
                set_arg(acc, 2, cl_uint(total_slots));
                const std::size_t al = 64, ag = ceil_div(total_slots, al) * al;
                check(clEnqueueNDRangeKernel(queue_.get(), acc, 1, nullptr, &ag, &al, 0, nullptr, ev()),
                      "clEnqueueNDRangeKernel", "ih_accumulate64");
                take_event(true);
            }
        }
        if (ntiles > 1) {
            std::vector<cl_ulong> totals(total_slots);
            check(clEnqueueReadBuffer(queue_.get(), result64_.get(), CL_TRUE, 0, total_slots * 8, totals.data(), 0,
                                      nullptr, ev()),
                  "clEnqueueReadBuffer");
            take_event(false);
            for (std::size_t i = 0; i < total_slots; ++i) slots[i] += totals[i];
        } else {
            std::vector<cl_uint> counts(total_slots);
            check(clEnqueueReadBuffer(queue_.get(), result32_.get(), CL_TRUE, 0, total_slots * 4, counts.data(), 0,
                                      nullptr, ev()),
                  "clEnqueueReadBuffer");
            take_event(false);
            for (std::size_t i = 0; i < total_slots; ++i) slots[i] += counts[i];
        }
    } catch (...) {
        // Never leave commands behind that read the caller's memory.
        if (pending_event_) {
            clReleaseEvent(pending_event_);
            pending_event_ = nullptr;
        }
        clFinish(queue_.get());
        events_.clear();
        throw;
    }
    finish_timing();
}

void OpenClEngine::finish_timing() {
    if (!profiling_ || events_.empty()) return;
    cl_ulong first = std::numeric_limits<cl_ulong>::max(), last = 0;
    cl_ulong kfirst = std::numeric_limits<cl_ulong>::max(), klast = 0;
    for (const Timed& t : events_) {
        cl_ulong s = 0, f = 0;
        if (clGetEventProfilingInfo(t.event.get(), CL_PROFILING_COMMAND_START, sizeof s, &s, nullptr) != CL_SUCCESS ||
            clGetEventProfilingInfo(t.event.get(), CL_PROFILING_COMMAND_END, sizeof f, &f, nullptr) != CL_SUCCESS) {
            events_.clear();
            return;
        }
        first = std::min(first, s);
        last = std::max(last, f);
        if (t.is_kernel) {
            kfirst = std::min(kfirst, s);
            klast = std::max(klast, f);
        }
    }
    events_.clear();
    if (last < first) return;
    opencl::DeviceTimes times;
    times.total_seconds = double(last - first) * 1e-9;
    times.kernel_seconds = klast >= kfirst ? double(klast - kfirst) * 1e-9 : 0.0;
    last_times_ = times;
}

class OpenClBackend final : public Backend {
public:
    std::string_view name() const override { return "opencl"; }
    std::string_view summary() const override {
        return "OpenCL 1.2 kernels: local-memory partial histograms (GPUs; PoCL on CPUs)";
    }
    std::vector<DeviceInfo> devices() const override {
        std::vector<DeviceInfo> out;
        try {
            std::string problem;
            for (const ClDevice& d : enumerate_devices(problem))
                out.push_back(device_info(d));
            if (out.empty()) out.push_back({"", "no OpenCL device", false, false, problem});
        } catch (const std::exception& e) {
            out.push_back({"", "no OpenCL device", false, false, e.what()});
        }
        return out;
    }
    std::unique_ptr<Engine> create_engine(const EngineOptions& options) const override {
        const ClDevice d = select_device(options.device);
        try {
            return std::make_unique<OpenClEngine>(d);
        } catch (const DeviceError& e) {
            throw BackendUnavailable(std::string("opencl: cannot use ") + d.name + ": " + e.what());
        }
    }
};

OpenClEngine& as_opencl(Engine& engine) {
    auto* e = dynamic_cast<OpenClEngine*>(&engine);
    if (e == nullptr)
        throw InvalidArgument("imghist::opencl: the engine is a '" + std::string(engine.backend_name()) +
                              "' engine, not an opencl one");
    return *e;
}

// A view with the shape of a device image: compute() validates it like any other, and the
// engine reads the pixels from the pending device source, never through this pointer.
ImageView shape_view(std::uint32_t width, std::uint32_t height, std::size_t stride, PixelFormat format) {
    alignas(16) static const std::byte marker[16] = {};
    ImageView v;
    v.data = marker;
    v.width = width;
    v.height = height;
    v.format = format;
    v.stride_bytes = stride ? stride : std::size_t(width) * format_info(format).pixel_bytes();
    return v;
}

}  // namespace

const Backend& opencl_backend() {
    static const OpenClBackend backend;
    return backend;
}

namespace opencl {

std::unique_ptr<Engine> create_engine(cl_command_queue queue) {
    return std::make_unique<OpenClEngine>(queue);
}

Result compute(Engine& engine, const DeviceBuffer& image, const Request& request) {
    OpenClEngine& e = as_opencl(engine);
    const ImageView shape = shape_view(image.width, image.height, image.stride_bytes, image.format);
    shape.validate();
    std::size_t size = 0;
    if (image.buffer == nullptr) throw InvalidArgument("imghist::opencl::compute: null buffer");
    check(clGetMemObjectInfo(image.buffer, CL_MEM_SIZE, sizeof size, &size, nullptr), "clGetMemObjectInfo(CL_MEM_SIZE)");
    const std::uint64_t extent = image.offset_bytes + std::uint64_t(shape.stride_bytes) * (image.height - 1) + shape.row_bytes();
    if (extent > size)
        throw InvalidArgument("imghist::opencl::compute: the image needs " + std::to_string(extent) +
                              " bytes but the buffer holds " + std::to_string(size));
    DeviceSource src;
    src.kind = DeviceSource::buffer;
    src.mem = image.buffer;
    src.offset_bytes = image.offset_bytes;
    return e.compute_source(shape, src, request);
}

std::optional<PixelFormat> pixel_format_of(const cl_image_format& f) {
    int bits;
    bool is_float = false, half = false;
    switch (f.image_channel_data_type) {
        case CL_UNORM_INT8: case CL_UNSIGNED_INT8: bits = 8; break;
        case CL_UNORM_INT16: case CL_UNSIGNED_INT16: bits = 16; break;
        case CL_HALF_FLOAT: bits = 16; is_float = half = true; break;
        case CL_FLOAT: bits = 32; is_float = true; break;
        default: return std::nullopt;
    }
    switch (f.image_channel_order) {
        case CL_R:
        case CL_LUMINANCE:
            if (is_float) return half ? PixelFormat::gray_f16 : PixelFormat::gray_f32;
            return bits == 8 ? PixelFormat::gray8 : PixelFormat::gray16;
        case CL_RGBA:
            if (is_float) return half ? PixelFormat::rgba_f16 : PixelFormat::rgba_f32;
            return bits == 8 ? PixelFormat::rgba8 : PixelFormat::rgba16;
        case CL_BGRA:
            if (bits == 8 && !is_float) return PixelFormat::bgra8;
            return std::nullopt;
        default: return std::nullopt;
    }
}

Result compute_image(Engine& engine, cl_mem image, const Request& request) {
    OpenClEngine& e = as_opencl(engine);
    if (image == nullptr) throw InvalidArgument("imghist::opencl::compute_image: null image");
    cl_mem_object_type type = 0;
    check(clGetMemObjectInfo(image, CL_MEM_TYPE, sizeof type, &type, nullptr), "clGetMemObjectInfo(CL_MEM_TYPE)");
    if (type != CL_MEM_OBJECT_IMAGE2D)
        throw InvalidArgument("imghist::opencl::compute_image: not a 2D image (use compute() for buffers)");
    cl_image_format fmt{};
    std::size_t w = 0, h = 0;
    check(clGetImageInfo(image, CL_IMAGE_FORMAT, sizeof fmt, &fmt, nullptr), "clGetImageInfo(CL_IMAGE_FORMAT)");
    check(clGetImageInfo(image, CL_IMAGE_WIDTH, sizeof w, &w, nullptr), "clGetImageInfo(CL_IMAGE_WIDTH)");
    check(clGetImageInfo(image, CL_IMAGE_HEIGHT, sizeof h, &h, nullptr), "clGetImageInfo(CL_IMAGE_HEIGHT)");
    const auto format = pixel_format_of(fmt);
    if (!format)
        throw InvalidArgument("imghist::opencl::compute_image: unsupported image format (channel order 0x" +
                              [&] { char b[16]; std::snprintf(b, sizeof b, "%X", fmt.image_channel_order); return std::string(b); }() +
                              ", channel type 0x" +
                              [&] { char b[16]; std::snprintf(b, sizeof b, "%X", fmt.image_channel_data_type); return std::string(b); }() +
                              ")");
    DeviceSource src;
    src.kind = DeviceSource::image;
    src.mem = image;
    return e.compute_source(shape_view(std::uint32_t(w), std::uint32_t(h), 0, *format), src, request);
}

std::optional<DeviceTimes> last_device_times(const Engine& engine) {
    const auto* e = dynamic_cast<const OpenClEngine*>(&engine);
    if (e == nullptr) return std::nullopt;
    return e->last_times();
}

}  // namespace opencl
}  // namespace imghist
