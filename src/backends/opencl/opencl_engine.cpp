// The opencl engine (opencl_engine.hpp): contexts, programs, buffers and launches. What to
// launch is the planner's (opencl_planner.cpp); this file only enqueues it and keeps the
// counts exact past 2^32 samples (32-bit results per tile, added into 64-bit totals).
#include "backends/opencl/opencl_engine.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>

#include "core/plan.hpp"

// histogram.cl and opencl_launch.h, embedded at build time (src/backends/opencl/CMakeLists.txt).
extern const unsigned char imghist_opencl_kernels[];
extern const unsigned long long imghist_opencl_kernels_size;
extern const unsigned char imghist_opencl_stats_kernels[];
extern const unsigned long long imghist_opencl_stats_kernels_size;
extern const unsigned char imghist_opencl_launch[];
extern const unsigned long long imghist_opencl_launch_size;

namespace imghist::ocl {
namespace {

std::string build_log(cl_program prog, cl_device_id device) {
    std::size_t n = 0;
    clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    if (n) clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    log.resize(std::strlen(log.c_str()));
    if (log.size() > 4000) log = log.substr(0, 4000) + "\n[build log truncated]";
    return log;
}

}  // namespace

OpenClEngine::OpenClEngine(const ClDevice& d) : device_(d.device) {
    cl_int err = CL_SUCCESS;
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(d.platform),
                                           0};
    context_ = Context(clCreateContext(props, 1, &device_, nullptr, nullptr, &err));
    check(err, "clCreateContext");
    queue_ = Queue(clCreateCommandQueue(context_.get(), device_, CL_QUEUE_PROFILING_ENABLE, &err));
    check(err, "clCreateCommandQueue");
    init();
}

OpenClEngine::OpenClEngine(cl_command_queue queue) {
    if (queue == nullptr) throw InvalidArgument("opencl::create_engine: null queue");
    cl_context ctx = nullptr;
    check(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr),
          "clGetCommandQueueInfo(CL_QUEUE_CONTEXT)");
    check(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device_, &device_, nullptr),
          "clGetCommandQueueInfo(CL_QUEUE_DEVICE)");
    cl_command_queue_properties qp = 0;
    check(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof qp, &qp, nullptr),
          "clGetCommandQueueInfo(CL_QUEUE_PROPERTIES)");
    context_ = Context::retain(ctx);
    if (qp & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
        // Our commands depend on each other: drain the caller's queue, then use our own.
        check(clFinish(queue), "clFinish");
        cl_int err = CL_SUCCESS;
        queue_ = Queue(clCreateCommandQueue(ctx, device_, qp & CL_QUEUE_PROFILING_ENABLE, &err));
        check(err, "clCreateCommandQueue");
    } else {
        queue_ = Queue::retain(queue);
    }
    init();
}

OpenClEngine::~OpenClEngine() {
    if (queue_) clFinish(queue_.get());
}

void OpenClEngine::init() {
    limits_.name = device_string(device_, CL_DEVICE_NAME);
    limits_.gpu = (device_value<cl_device_type>(device_, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU) != 0;
    tune_ = tune_for({device_string(device_, CL_DEVICE_VENDOR), limits_.name, limits_.gpu});
    limits_.compute_units = std::max<cl_uint>(1, device_value<cl_uint>(device_, CL_DEVICE_MAX_COMPUTE_UNITS));
    limits_.local_mem = device_value<cl_ulong>(device_, CL_DEVICE_LOCAL_MEM_SIZE);
    limits_.max_alloc = device_value<cl_ulong>(device_, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    limits_.max_work_group = device_value<std::size_t>(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    cl_command_queue_properties qp = 0;
    check(clGetCommandQueueInfo(queue_.get(), CL_QUEUE_PROPERTIES, sizeof qp, &qp, nullptr),
          "clGetCommandQueueInfo(CL_QUEUE_PROPERTIES)");
    profiling_ = (qp & CL_QUEUE_PROFILING_ENABLE) != 0;
    if (opencl_c_version(device_) < 11)
        throw BackendUnavailable("opencl: device '" + limits_.name + "' lacks OpenCL C 1.1 (local atomics)");
}

void OpenClEngine::check_context(cl_mem mem) const {
    if (mem == nullptr) throw InvalidArgument("opencl: null cl_mem");
    cl_context ctx = nullptr;
    check(clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof ctx, &ctx, nullptr), "clGetMemObjectInfo(CL_MEM_CONTEXT)");
    if (ctx != context_.get())
        throw InvalidArgument("opencl: the cl_mem belongs to another context than the engine's "
                              "(create the engine with imghist::opencl::create_engine(queue))");
}

// The program of histogram.cl (or sample_stats.cl) built with `options` (the -D IH_C_* of a
// pass; "" is generic).
cl_program OpenClEngine::program(const std::string& options, KernelSource source) {
    const bool stats = source == KernelSource::sample_stats;
    const std::string key = stats ? "stats#" + options : options;
    auto it = programs_.find(key);
    if (it != programs_.end()) return it->second.get();
    // opencl_launch.h declares ih_cl_launch for the kernels, which follow it.
    const char* sources[] = {reinterpret_cast<const char*>(imghist_opencl_launch),
                             reinterpret_cast<const char*>(stats ? imghist_opencl_stats_kernels : imghist_opencl_kernels)};
    const std::size_t lengths[] = {std::size_t(imghist_opencl_launch_size),
                                   std::size_t(stats ? imghist_opencl_stats_kernels_size : imghist_opencl_kernels_size)};
    cl_int err = CL_SUCCESS;
    Program prog(clCreateProgramWithSource(context_.get(), 2, sources, lengths, &err));
    check(err, "clCreateProgramWithSource");
    std::string opts = "-cl-std=CL1.2 " + options;
    if (const char* extra = std::getenv("IMGHIST_OPENCL_BUILD_OPTIONS")) opts += std::string(" ") + extra;
    err = clBuildProgram(prog.get(), 1, &device_, opts.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
        const std::string log = build_log(prog.get(), device_);
        check(err, "clBuildProgram", std::string(stats ? "sample_stats.cl" : "histogram.cl") + " with options '" + opts + "' on " + limits_.name +
                                         (log.empty() ? std::string() : ", build log:\n" + log));
    }
    if (const char* dir = std::getenv("IMGHIST_OPENCL_DUMP_DIR")) dump_program(prog.get(), dir, opts);
    return programs_.emplace(key, std::move(prog)).first->second.get();
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

cl_kernel OpenClEngine::kernel(const std::string& options, const std::string& name, KernelSource source) {
    const std::string key = options + "#" + name;
    auto it = kernels_.find(key);
    if (it != kernels_.end()) return it->second.get();
    cl_program prog = program(options, source);
    cl_int err = CL_SUCCESS;
    Kernel k(clCreateKernel(prog, name.c_str(), &err));
    check(err, "clCreateKernel", name);
    return kernels_.emplace(key, std::move(k)).first->second.get();
}

// The limits of every histogram kernel, from the generic build (with the selection variant's
// local counts where `selects`): they do not depend on the compile-time constants.
const KernelLimitsByName& OpenClEngine::kernel_limits(bool selects) {
    if (const auto it = kernel_limits_.find(selects); it != kernel_limits_.end()) return it->second;
    KernelLimitsByName all;
    for (const std::string& name : histogram_kernel_names()) {
        const cl_kernel k = kernel(selects ? kSelectOption : "", name);
        KernelLimits& l = all[name];
        check(clGetKernelWorkGroupInfo(k, device_, CL_KERNEL_WORK_GROUP_SIZE, sizeof l.work_group, &l.work_group,
                                       nullptr),
              "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)");
        cl_ulong local = 0;
        check(clGetKernelWorkGroupInfo(k, device_, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local, &local, nullptr),
              "clGetKernelWorkGroupInfo(CL_KERNEL_LOCAL_MEM_SIZE)");
        l.local_bytes = local;
    }
    return kernel_limits_[selects] = std::move(all);
}

cl_mem MemTraits::allocate(std::size_t bytes) const {
    cl_int err = CL_SUCCESS;
    const cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &err);
    check(err, "clCreateBuffer", std::to_string(bytes) + " bytes");
    return mem;
}

cl_mem OpenClEngine::ensure(GrowingBuffer& buffer, std::size_t need) {
    buffer.ensure(std::max<std::size_t>(need, 64), MemTraits{context_.get()});
    return buffer.get();
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

}  // namespace imghist::ocl
