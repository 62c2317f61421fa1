// cuda::JpegDecoder (include/imghist/cuda_decode.hpp): a batch of JPEGs parsed on the host,
// decoded by nvImageCodec into one device buffer, and counted in one batched launch of the
// engine on the decoder's stream, behind the decode. Only the counters come back.
#include "imghist/cuda_decode.hpp"

#ifdef IMGHIST_HAVE_NVIMGCODEC

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>

#include "core/interop.hpp"
#include "cuda_engine.hpp"
#include "nvimgcodec_library.hpp"

namespace imghist::cuda_detail {

namespace {

// Rows start on this many bytes: the engine reads rows as whole words.
constexpr std::size_t kRowAlign = 64;

template <class T>
T nv_struct(nvimgcodecStructureType_t type) {
    T s{};
    s.struct_type = type;
    s.struct_size = sizeof(T);
    s.struct_next = nullptr;
    return s;
}

void check_nv(nvimgcodecStatus_t status, const char* call) {
    if (status != NVIMGCODEC_STATUS_SUCCESS)
        throw DeviceError(std::string("nvImageCodec ") + call + " failed: " + nvimgcodec_status_text(status));
}

// What the decoder writes for one file, or why it will not decode it.
struct Layout {
    PixelFormat format = PixelFormat::rgb8;
    std::uint32_t width = 0, height = 0;
    std::size_t pitch = 0;
    std::string not_decoded;
};

Layout layout_of(const nvimgcodecImageInfo_t& info, std::uint64_t max_pixels) {
    Layout l;
    if (std::strcmp(info.codec_name, "jpeg") != 0) {
        l.not_decoded = std::string("not a JPEG (nvImageCodec sees ") + (info.codec_name[0] ? info.codec_name : "no codec") + ")";
        return l;
    }
    const nvimgcodecImagePlaneInfo_t& plane = info.plane_info[0];
    l.width = plane.width;
    l.height = plane.height;
    const unsigned bits = plane.precision ? plane.precision : 8;
    if (plane.sample_type != NVIMGCODEC_SAMPLE_DATA_TYPE_UINT8 || bits != 8) {
        l.not_decoded = "a " + std::to_string(bits) + "-bit JPEG (the GPU path decodes 8-bit ones)";
        return l;
    }
    // Components: the planes of a JPEG's frame (3 for YCbCr or RGB, 1 for gray, 4 for CMYK).
    const std::uint32_t components = info.num_planes;
    if (components == 1 || info.color_spec == NVIMGCODEC_COLORSPEC_GRAY) l.format = PixelFormat::gray8;
    else if (components == 3 && info.color_spec != NVIMGCODEC_COLORSPEC_CMYK && info.color_spec != NVIMGCODEC_COLORSPEC_YCCK)
        l.format = PixelFormat::rgb8;
    else {
        l.not_decoded = "a JPEG of " + std::to_string(components) + " components (CMYK or YCCK): the CPU reader converts those";
        return l;
    }
    if (l.width == 0 || l.height == 0) {
        l.not_decoded = "a JPEG of zero size";
        return l;
    }
    if (max_pixels && std::uint64_t(l.width) * l.height > max_pixels) {
        l.not_decoded = "larger than max_pixels";
        return l;
    }
    const std::size_t row = std::size_t(l.width) * (l.format == PixelFormat::gray8 ? 1 : 3);
    l.pitch = (row + kRowAlign - 1) / kRowAlign * kRowAlign;
    return l;
}

class NvJpegDecoder final : public cuda::JpegDecoder {
public:
    NvJpegDecoder(CudaEngine& engine, const cuda::JpegDecoderOptions& options)
        : lib_(nvimgcodec()), engine_(engine) {
        const auto made_at = std::chrono::steady_clock::now();
        // Which of nvImageCodec's backends decode, in order: the hardware decoder for baseline
        // JPEGs, then the hybrid (CPU Huffman, GPU IDCT) for the rest. Each is a decoder of
        // its own, and a file goes to the first that takes it. One decoder holding both would
        // share a batch between them by the size of the first batch it saw (its "assigned batch
        // size", seen on the H200: after a batch of 3, most of a batch of 128 went to the hybrid),
        // so a file's decoder, and by the IDCTs' rounding a few of its samples, would depend on
        // the files decoded before it. IMGHIST_JPEG_BACKENDS=hw,gpu,hybrid picks others (for
        // the benchmark's comparisons).
        const char* list = std::getenv("IMGHIST_JPEG_BACKENDS");
        const std::string chosen = list && *list ? list : "hw,hybrid";
        const std::tuple<const char*, const char*, nvimgcodecBackendKind_t> kinds[] = {
            {"hw", "hardware decoder", NVIMGCODEC_BACKEND_KIND_HW_GPU_ONLY},
            {"gpu", "CUDA decoder", NVIMGCODEC_BACKEND_KIND_GPU_ONLY},
            {"hybrid", "hybrid CPU+CUDA decoder", NVIMGCODEC_BACKEND_KIND_HYBRID_CPU_GPU}};
        for (const auto& [key, name, kind] : kinds)
            if (chosen.find(key) != std::string::npos) stages_.push_back(Stage{name, kind});
        if (stages_.empty())
            throw InvalidArgument("IMGHIST_JPEG_BACKENDS='" + chosen + "' names none of hw, gpu, hybrid");
        DeviceScope scope(engine_.device());
        auto create = nv_struct<nvimgcodecInstanceCreateInfo_t>(NVIMGCODEC_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
        create.load_builtin_modules = 1;
        create.load_extension_modules = 1;
        create.extension_modules_path = lib_.extensions_dir.c_str();
        check_nv(lib_.InstanceCreate(&instance_, &create), "InstanceCreate");
        exec_ = nv_struct<nvimgcodecExecutionParams_t>(NVIMGCODEC_STRUCTURE_TYPE_EXECUTION_PARAMS);
        exec_.device_id = engine_.device();
        exec_.max_num_cpu_threads = int(options.cpu_threads);
        exec_.pre_init = 1;
        timing_ = std::getenv("IMGHIST_JPEG_TIMING") != nullptr;
        try {
            (void)stage_decoder(stages_.front());  // the first now, so that a failure shows at once
        } catch (...) {
            lib_.InstanceDestroy(instance_);
            throw;
        }
        if (cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking) != cudaSuccess) {
            destroy_decoders();
            lib_.InstanceDestroy(instance_);
            throw DeviceError("cannot create a CUDA stream for the JPEG decoder");
        }
        if (timing_)
            std::fprintf(stderr, "jpeg decoder: made in %.3f s\n",
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - made_at).count());
    }

    ~NvJpegDecoder() override {
        if (timing_)
            std::fprintf(stderr, "jpeg decoder: %zu files in %zu calls; parse %.3f s, decode %.3f s, count %.3f s\n",
                         files_, calls_, seconds_[0], seconds_[1], seconds_[2]);
        for (nvimgcodecCodeStream_t s : streams_)
            if (s) lib_.CodeStreamDestroy(s);
        for (nvimgcodecImage_t i : images_)
            if (i) lib_.ImageDestroy(i);
        if (stream_) cudaStreamDestroy(stream_);
        destroy_decoders();
        lib_.InstanceDestroy(instance_);
    }

    std::string decoder_name() const override { return "nvImageCodec " + lib_.version; }

    std::vector<cuda::GpuDecoded> histograms(std::span<const std::span<const std::byte>> files, const Request& request,
                                             std::uint64_t max_pixels) override {
        return run(files, request, max_pixels, nullptr);
    }
    std::vector<cuda::GpuDecoded> histograms(std::span<const std::span<const std::byte>> files, const Request& request,
                                             std::uint64_t max_pixels,
                                             std::vector<std::vector<std::byte>>& pixels) override {
        return run(files, request, max_pixels, &pixels);
    }

private:
    std::vector<cuda::GpuDecoded> run(std::span<const std::span<const std::byte>> files, const Request& request,
                                      std::uint64_t max_pixels, std::vector<std::vector<std::byte>>* pixels) {
        request.weights.validate();
        DeviceScope scope(engine_.device());
        const std::size_t n = files.size();
        Clock clock(timing_);
        ++calls_;
        files_ += n;
        std::vector<cuda::GpuDecoded> out(n);
        if (pixels) pixels->assign(n, {});
        if (streams_.size() < n) {
            streams_.resize(n, nullptr);
            images_.resize(n, nullptr);
        }
        // 1. Headers, on the host: which files the GPU takes, and where each one goes.
        Batch batch = read_headers(files, max_pixels, out);
        seconds_[0] += clock.lap();
        if (batch.chosen.empty()) return out;
        pixels_.reserve(batch.bytes);

        // 2. Decode into the buffer, on our stream.
        create_images(batch);
        decode_by_stages(batch);
        if (timing_) IH_CHECK(cudaStreamSynchronize(stream_));
        seconds_[1] += clock.lap();

        // 3. Count what was decoded: one batched launch per pixel format, behind the decode.
        for (const PixelFormat format : {PixelFormat::rgb8, PixelFormat::gray8})
            count_decoded(batch, format, request, out, pixels);
        seconds_[2] += clock.lap();
        return out;
    }

    // One of nvImageCodec's backends, as a decoder of its own, made when first needed.
    struct Stage {
        const char* name;
        nvimgcodecBackendKind_t kind;
        nvimgcodecDecoder_t decoder = nullptr;
    };

    nvimgcodecDecoder_t stage_decoder(Stage& stage) {
        if (stage.decoder) return stage.decoder;
        auto backend = nv_struct<nvimgcodecBackend_t>(NVIMGCODEC_STRUCTURE_TYPE_BACKEND);
        backend.kind = stage.kind;
        backend.params = nv_struct<nvimgcodecBackendParams_t>(NVIMGCODEC_STRUCTURE_TYPE_BACKEND_PARAMS);
        backend.params.load_hint = 1.0f;
        backend.params.load_hint_policy = NVIMGCODEC_LOAD_HINT_POLICY_FIXED;
        nvimgcodecExecutionParams_t exec = exec_;
        exec.num_backends = 1;
        exec.backends = &backend;
        const auto made_at = std::chrono::steady_clock::now();
        const nvimgcodecStatus_t made = lib_.DecoderCreate(instance_, &stage.decoder, &exec, nullptr);
        if (made != NVIMGCODEC_STATUS_SUCCESS) {
            stage.decoder = nullptr;
            throw BackendUnavailable("nvImageCodec made no " + std::string(stage.name) + " (" +
                                     nvimgcodec_status_text(made) + "): are its codec modules in " +
                                     lib_.extensions_dir + "?");
        }
        if (timing_)
            std::fprintf(stderr, "jpeg decoder: %s made in %.3f s\n", stage.name,
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - made_at).count());
        return stage.decoder;
    }

    void destroy_decoders() {
        for (Stage& stage : stages_)
            if (stage.decoder) lib_.DecoderDestroy(stage.decoder);
    }

    // A batch as its steps see it: each file's layout and place in the buffer, the files the GPU
    // takes, and for each the decoder's status and the stage that decoded it (null: none did).
    struct Batch {
        std::vector<Layout> layouts;
        std::vector<std::size_t> offsets, chosen;
        std::size_t bytes = 0;
        std::vector<nvimgcodecProcessingStatus_t> status;
        std::vector<const Stage*> decoded_by;
    };

    // The headers, parsed on the host; a file the GPU does not take gets its reason in `out`.
    Batch read_headers(std::span<const std::span<const std::byte>> files, std::uint64_t max_pixels,
                       std::vector<cuda::GpuDecoded>& out) {
        const std::size_t n = files.size();
        Batch batch;
        batch.layouts.resize(n);
        batch.offsets.assign(n, 0);
        for (std::size_t i = 0; i < n; ++i) {
            const auto* data = reinterpret_cast<const unsigned char*>(files[i].data());
            // nvJPEG decodes a truncated file without a word, the missing part as zeros (seen
            // on the H200: a file cut in half was counted, and its pixels changed with the
            // batch). A JPEG that does not end with its end-of-image marker goes to the CPU
            // reader, which decodes it or says what is wrong; so does one with data after it.
            const std::size_t size = files[i].size();
            if (size < 4 || data[size - 2] != 0xFF || data[size - 1] != 0xD9) {
                out[i].not_decoded = "it does not end with a JPEG end-of-image marker (truncated, or data after it)";
                continue;
            }
            const nvimgcodecStatus_t parsed =
                lib_.CodeStreamCreateFromHostMem(instance_, &streams_[i], data, files[i].size(), nullptr);
            auto info = nv_struct<nvimgcodecImageInfo_t>(NVIMGCODEC_STRUCTURE_TYPE_IMAGE_INFO);
            if (parsed != NVIMGCODEC_STATUS_SUCCESS || lib_.CodeStreamGetImageInfo(streams_[i], &info) != NVIMGCODEC_STATUS_SUCCESS) {
                out[i].not_decoded = "nvImageCodec cannot parse it";
                continue;
            }
            batch.layouts[i] = layout_of(info, max_pixels);
            out[i].format = batch.layouts[i].format;
            out[i].width = batch.layouts[i].width;
            out[i].height = batch.layouts[i].height;
            if (!batch.layouts[i].not_decoded.empty()) {
                out[i].not_decoded = batch.layouts[i].not_decoded;
                continue;
            }
            batch.offsets[i] = batch.bytes;
            batch.bytes += batch.layouts[i].pitch * batch.layouts[i].height;
            batch.chosen.push_back(i);
        }
        return batch;
    }

    // The image each chosen file is decoded into: its rows in the buffer, on our stream.
    void create_images(const Batch& batch) {
        for (const std::size_t i : batch.chosen) {
            const Layout& l = batch.layouts[i];
            auto info = nv_struct<nvimgcodecImageInfo_t>(NVIMGCODEC_STRUCTURE_TYPE_IMAGE_INFO);
            const bool gray = l.format == PixelFormat::gray8;
            info.sample_format = gray ? NVIMGCODEC_SAMPLEFORMAT_P_Y : NVIMGCODEC_SAMPLEFORMAT_I_RGB;
            info.color_spec = gray ? NVIMGCODEC_COLORSPEC_GRAY : NVIMGCODEC_COLORSPEC_SRGB;
            info.chroma_subsampling = gray ? NVIMGCODEC_SAMPLING_GRAY : NVIMGCODEC_SAMPLING_NONE;
            info.orientation = nv_struct<nvimgcodecOrientation_t>(NVIMGCODEC_STRUCTURE_TYPE_ORIENTATION);
            info.num_planes = 1;
            info.plane_info[0] = nv_struct<nvimgcodecImagePlaneInfo_t>(NVIMGCODEC_STRUCTURE_TYPE_IMAGE_PLANE_INFO);
            info.plane_info[0].width = l.width;
            info.plane_info[0].height = l.height;
            info.plane_info[0].row_stride = l.pitch;
            info.plane_info[0].num_channels = gray ? 1 : 3;
            info.plane_info[0].sample_type = NVIMGCODEC_SAMPLE_DATA_TYPE_UINT8;
            info.plane_info[0].precision = 8;
            info.buffer = pixels_.ptr + batch.offsets[i];
            info.buffer_kind = NVIMGCODEC_IMAGE_BUFFER_KIND_STRIDED_DEVICE;
            info.cuda_stream = stream_;
            check_nv(lib_.ImageCreate(instance_, &images_[i], &info), "ImageCreate");
        }
    }

    // Each stage decodes what the stages before it did not take, one pixel format per call:
    // nvImageCodec's hardware decoder fails a whole batch whose images differ in format
    // (seen on the H200: one gray JPEG among RGB ones sent all of them to the next stage).
    void decode_by_stages(Batch& batch) {
        batch.status.assign(batch.layouts.size(), NVIMGCODEC_PROCESSING_STATUS_UNKNOWN);
        batch.decoded_by.assign(batch.layouts.size(), nullptr);
        std::vector<nvimgcodecCodeStream_t> batch_streams;
        std::vector<nvimgcodecImage_t> batch_images;
        for (const PixelFormat format : {PixelFormat::rgb8, PixelFormat::gray8}) {
            std::vector<std::size_t> pending;
            for (const std::size_t i : batch.chosen)
                if (batch.layouts[i].format == format) pending.push_back(i);
            for (Stage& stage : stages_) {
                if (pending.empty()) break;
                const nvimgcodecDecoder_t decoder = stage_decoder(stage);
                batch_streams.clear();
                batch_images.clear();
                for (const std::size_t i : pending) {
                    batch_streams.push_back(streams_[i]);
                    batch_images.push_back(images_[i]);
                }
                const std::vector<nvimgcodecProcessingStatus_t> got = decode(decoder, batch_streams, batch_images);
                std::vector<std::size_t> left;
                for (std::size_t k = 0; k < pending.size(); ++k) {
                    batch.status[pending[k]] = got[k];
                    if (got[k] == NVIMGCODEC_PROCESSING_STATUS_SUCCESS) batch.decoded_by[pending[k]] = &stage;
                    else left.push_back(pending[k]);
                }
                pending = std::move(left);
            }
        }
    }

    // Counts the decoded files of one pixel format in one batched launch; a chosen file no stage
    // decoded gets the decoder's reason in `out`.
    void count_decoded(const Batch& batch, PixelFormat format, const Request& request, std::vector<cuda::GpuDecoded>& out,
                       std::vector<std::vector<std::byte>>* pixels) {
        std::vector<DeviceImage> images;
        std::vector<std::size_t> owners;
        for (const std::size_t i : batch.chosen) {
            if (batch.layouts[i].format != format) continue;
            if (!batch.decoded_by[i]) {
                out[i].not_decoded = "the GPU decoder could not: " + nvimgcodec_processing_text(batch.status[i]);
                continue;
            }
            images.push_back(cuda::device_image(pixels_.ptr + batch.offsets[i], batch.layouts[i].width, batch.layouts[i].height,
                                                batch.layouts[i].pitch, format));
            owners.push_back(i);
        }
        if (images.empty()) return;
        // A roi or tiles: image by image (the batched launch counts whole images).
        std::vector<Result> results;
        if (request.roi || request.tiles.count() != 1) {
            for (const DeviceImage& image : images) results.push_back(engine_.compute_device(image, request, stream_));
        } else {
            results = engine_.compute_batch(std::span<const DeviceImage>(images), request, stream_);
        }
        for (std::size_t k = 0; k < owners.size(); ++k) {
            Result& r = results[k];
            r.notes.push_back("decoded on the GPU by " + decoder_name() + "'s " + batch.decoded_by[owners[k]]->name);
            out[owners[k]].result = std::move(r);
        }
        if (pixels)
            for (const std::size_t i : owners) copy_back(batch.layouts[i], batch.offsets[i], (*pixels)[i]);
    }

    // Decodes a batch on our stream; one status per file.
    std::vector<nvimgcodecProcessingStatus_t> decode(nvimgcodecDecoder_t decoder,
                                                     std::vector<nvimgcodecCodeStream_t>& streams,
                                                     std::vector<nvimgcodecImage_t>& images) {
        // The stored pixels, as the CPU reader reads them: EXIF orientation is not applied.
        auto params = nv_struct<nvimgcodecDecodeParams_t>(NVIMGCODEC_STRUCTURE_TYPE_DECODE_PARAMS);
        params.apply_exif_orientation = 0;
        nvimgcodecFuture_t future = nullptr;
        check_nv(lib_.DecoderDecode(decoder, streams.data(), images.data(), int(streams.size()), &params, &future),
                 "DecoderDecode");
        std::vector<nvimgcodecProcessingStatus_t> status(streams.size(), NVIMGCODEC_PROCESSING_STATUS_UNKNOWN);
        std::size_t got = status.size();
        const nvimgcodecStatus_t waited = lib_.FutureWaitForAll(future);
        const nvimgcodecStatus_t read = lib_.FutureGetProcessingStatus(future, status.data(), &got);
        lib_.FutureDestroy(future);
        check_nv(waited, "FutureWaitForAll");
        check_nv(read, "FutureGetProcessingStatus");
        return status;
    }

    void copy_back(const Layout& l, std::size_t offset, std::vector<std::byte>& host) {
        const std::size_t row = std::size_t(l.width) * (l.format == PixelFormat::gray8 ? 1 : 3);
        host.resize(row * l.height);
        IH_CHECK(cudaMemcpy2DAsync(host.data(), row, pixels_.ptr + offset, l.pitch, row, l.height,
                                   cudaMemcpyDeviceToHost, stream_));
        IH_CHECK(cudaStreamSynchronize(stream_));
    }

    // IMGHIST_JPEG_TIMING: seconds in parsing, decoding and counting, printed at the end.
    struct Clock {
        bool on;
        std::chrono::steady_clock::time_point t = std::chrono::steady_clock::now();
        double lap() {
            if (!on) return 0;
            const auto now = std::chrono::steady_clock::now();
            const double s = std::chrono::duration<double>(now - t).count();
            t = now;
            return s;
        }
    };
    bool timing_ = false;
    double seconds_[3] = {};
    std::size_t calls_ = 0, files_ = 0;

    const NvImgCodec& lib_;
    CudaEngine& engine_;
    nvimgcodecInstance_t instance_ = nullptr;
    nvimgcodecExecutionParams_t exec_{};
    std::vector<Stage> stages_;
    cudaStream_t stream_ = nullptr;
    std::vector<nvimgcodecCodeStream_t> streams_;  // reused from batch to batch
    std::vector<nvimgcodecImage_t> images_;
    GrowingBuffer<unsigned char, BufferKind::device> pixels_;
};

}  // namespace

}  // namespace imghist::cuda_detail

namespace imghist::cuda {

std::unique_ptr<JpegDecoder> make_jpeg_decoder(imghist::Engine& engine, const JpegDecoderOptions& options) {
    auto& cuda_engine = interop_engine<cuda_detail::CudaEngine>(engine, "cuda");
    return std::make_unique<cuda_detail::NvJpegDecoder>(cuda_engine, options);
}

JpegDecoder& jpeg_decoder(imghist::Engine& engine) {
    auto& cuda_engine = interop_engine<cuda_detail::CudaEngine>(engine, "cuda");
    std::unique_ptr<JpegDecoder>& own = cuda_engine.own_jpeg_decoder();
    if (!own) own = std::make_unique<cuda_detail::NvJpegDecoder>(cuda_engine, JpegDecoderOptions{});
    return *own;
}

bool jpeg_decode_available(std::string* why) {
    try {
        (void)cuda_detail::nvimgcodec();
        return true;
    } catch (const std::exception& e) {
        if (why) *why = e.what();
        return false;
    }
}

}  // namespace imghist::cuda

#else  // built without nvImageCodec's headers

namespace imghist::cuda {

namespace {
constexpr const char* kNotBuilt =
    "this imghist was built without GPU JPEG decoding: nvImageCodec's headers were not found when it was "
    "configured (bash scripts/install-nvimgcodec.sh fetches them; then configure with -DIMGHIST_NVIMGCODEC=ON)";
}

std::unique_ptr<JpegDecoder> make_jpeg_decoder(imghist::Engine&, const JpegDecoderOptions&) {
    throw BackendUnavailable(kNotBuilt);
}

JpegDecoder& jpeg_decoder(imghist::Engine&) { throw BackendUnavailable(kNotBuilt); }

bool jpeg_decode_available(std::string* why) {
    if (why) *why = kNotBuilt;
    return false;
}

}  // namespace imghist::cuda

#endif
