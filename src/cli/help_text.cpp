#include "help_text.hpp"

#include "imghist/io.hpp"
#include "io/reader_raw.hpp"

namespace imghist::cli {

namespace {

// The help text after the options, in three parts around the lists that come from the code
// (the reader's trusted formats, the library's pixel formats), so the help cannot drift from them.
const char* kFooterCounting = R"HELP(
What it counts:
  Pixels as the file stores them: 8-bit stays 8-bit (256 bins, bin = value), 16-bit stays
  16-bit (256 bins, bin = value >> 8), half/float use 257 bins over [0, 1] (bin 256 holds 1.0
  and above; NaN, values below 0 and above 1 are also reported as nan/below/above). Colour is
  not premultiplied by alpha and not colour-converted (CMYK is refused). Channels are taken by
  name: R,G,B (and A), or Y for gray; others (Z, AOVs) are left out with a note. Indexed
  images are expanded to RGB. --bins/--range replace the default bins; values outside the
  range are counted as below/above and binned only with --clamp.

Edge bins, EV bins and exposure:
  --edges E0,E1,...,EN counts N bins [E_k, E_k+1) (1 to 4096 bins, strictly increasing;
  @FILE reads the edges from FILE, separated by commas, spaces or newlines). Float samples
  are compared with the edges rounded to fp32, integers exactly (v >= ceil(E_k)).
  --ev LO:HI:BINS_PER_STOP makes log2 edges 2^(LO + k / BINS_PER_STOP) from 2^LO to 2^HI,
  each rounded once to fp32: zero and negative values count as below (they have no EV).
  --exposure adds the auto-exposure of the luminance (Y, or a gray image's channel) to the
  table and JSON: the mean EV of the samples between two percentiles (--exposure-percentiles,
  default 50:95) and the exposure log2(--key) - mean that brings it to the key value (default
  0.18). Without --edges or --ev it counts --ev -16:16:8. docs/semantics.md has the formula.
  Values are taken as linear light: 8- and 16-bit files usually hold display-encoded (sRGB)
  values (a note says so); linearise them first, e.g.
  oiiotool in.jpg --colorconvert sRGB linear -d float -o in.exr

Inputs:
  Regular files whose content is a trusted format (the reader is picked by the content,
  not the name): )HELP";

const char* kFooterInputs = R"HELP(.
  Other formats need --untrusted-readers (less safe readers). FIFOs, devices and sockets
  are refused. Directories are searched recursively for files with those formats'
  extensions (hidden files skipped).
  -- ends the options, so a file name that starts with '-' goes after it:
  imghist -- -name.png
  - (and --files-from FILE, - = stdin) reads paths one a line, taken like arguments; empty
  lines are skipped, and a path that fails is reported with its line ("line 7 of stdin").
  A file named - is ./-.

Raw pixels (--raw FORMAT:WIDTHxHEIGHT[:STRIDE]):
  Every input is read as headerless native-endian pixels of FORMAT, WIDTH x HEIGHT, rows
  STRIDE bytes apart (default: packed). The file must hold exactly HEIGHT rows of STRIDE bytes
  (the last row's padding may be left out). Raw files are read by imghist itself, in this
  process: there is no decoder, so no decoder process. Directories are not searched.
  FORMAT: )HELP";

const char* kFooterRest = R"HELP(

Regions and tiles:
  --roi X,Y,W,H counts only the W x H pixels from column X, row Y; a file it does not fit
  inside is that file's error (never cropped), the other files are still counted.
  --tiles TX,TY also counts one histogram per tile of a TX x TY grid over those pixels:
  every tile is floor(W / TX) x floor(H / TY), the last column and row take the remainder.
  The table lists each tile's mean per channel; --format json has every tile's counts
  ("region", "tile_grid", "tiles": docs/cli.md). CSV and the plot show the whole region.

Masks and alpha:
  --mask FILE counts only the pixels where FILE, a one-channel 8-bit image (gray8) of each
  input's own size, is not 0; a file of another size is that file's error. Masked-out pixels
  count nowhere (not as NaN, below, above or clipped). --alpha-threshold T counts only pixels
  whose alpha is above T, in the file's own units (0-255, 0-65535, or the float value); NaN
  alpha is never above. Colour is counted as stored: imghist never premultiplies it (PNG and
  TIFF are read straight; EXR colour is premultiplied in the file itself). A file without
  alpha is that file's error. With either, the table's "counted:" line and the JSON's
  "counted_pixels" say how many pixels were counted (per tile too).

Output formats (--format):
  table  per-file channel summary: pixels, mean, stddev, median, p1, p99, min, max (in bins
         and values), the shares of samples at the extreme values (clip: 0 / 255, 0 / 65535;
         floats: <= 0 / >= 1, display black and white, which scene-referred (HDR) data passes
         unclipped), NaN/below/above counts, notes. Errors on stderr.
  json   one document: {"schema": 2, "imghist": VERSION, "results": [...], "errors": [...],
         "sums": [...]} (schema in docs/cli.md; "sums" only with --sum).
  jsonl  JSON Lines: one object per file as it is done (a result, or {"file", "error"}), then
         with --sum one line {"sum": {...}} per layout.
  csv    image,format,channel,kind,bin,lo,hi,count: one row per file, channel and bin (kind
         bin), then rows of kind below, above and nans (bin -1). --sum adds rows with image
         "(sum 1)", "(sum 2)"..., one set per layout (per entry of the JSON's "sums").
  --sum merges files of the same channels and bins; files of another layout (16-bit among
  8-bit, gray among RGB) get a sum of their own, each listing its files. --sum-only prints
  only the sums and the errors.
  Each file is reported as soon as it and the files before it are done, and not kept, so
  memory does not grow with the number of files.
  imghist merge REPORT... sums the json/jsonl reports of earlier runs, layout by layout, so a
  dataset can be counted in pieces (imghist merge --help).
  Names and messages in the table, CSV, on stderr and in plot titles are escaped: \\ \n \t
  \xHH for control and non-UTF-8 bytes, \uHHHH for invisible controls (docs/cli.md).

Plot (--plot FILE.png or FILE.svg):
  R, G and B curves over the luminance as a filled area, clipped shares at both ends.
  One file: its histogram. Several files: their sum (one chart per layout, FILE-FORMATS.png,
  when they differ), or one chart each when FILE contains {} (replaced by the file's name
  without extension). A chart never replaces another chart of the same run or an input.
  --log uses a log10 counts axis.

Decoding:
  Files are decoded in decoder processes, one per decode thread, so a file that crashes or
  hangs a reader is one error and the other files are still reported. --decode-timeout
  bounds the time per file; --decode-in-process decodes in imghist itself (for debugging).

Exit status:
  0  every file was read and counted, and the report and plots were written
  1  at least one file or directory failed (each failure is one line naming it and the
     reason; the other files are still reported), a plot could not be written, or stdout
     could not be written (a full disk)
  2  usage error: bad option or value, unknown or unavailable backend/device, no input

Examples:
  imghist photo.jpg                         table for one file
  imghist --plot hist.png photo.jpg         ... and a chart
  imghist --mode luma --format json shots/  luminance of every image under shots/, as JSON
  imghist --sum --plot all.svg --log *.png  one merged histogram, log-scale chart
  find data -name '*.jpg' | imghist - --format jsonl --sum > run.jsonl
                                            a dataset, one line per file, then the sum
  imghist merge run1.jsonl run2.json        the sums of two earlier runs, summed
  imghist --bins 64 --range 0:4 --clamp render.exr   64 bins over [0, 4), outliers clamped
  imghist --mode luma --ev=-10:6:4 --exposure hdr.exr  EV histogram and auto-exposure
  imghist --raw bgr8:1920x1080 frame.bin    a raw frame in OpenCV's native order
  imghist --list-backends                   compiled backends and their devices
  imghist --backend opencl --device 0:1 big.tif

Environment:
  IMGHIST_OPENCL_DEVICE, IMGHIST_VULKAN_DEVICE, IMGHIST_CUDA_DEVICE pick a device when
  --device is not given.
)HELP";

// imghist merge --help, after the options.
const char* kMergeFooter = R"HELP(
What it reads:
  Reports of `imghist --format json` (one document, schema 2) and of `imghist --format jsonl`
  (JSON Lines), in any mix. From each input it takes the sums when the run has them (--sum or
  --sum-only: "sums" in a document, the {"sum": ...} lines in JSON Lines), else every per-file
  result, so no file is counted twice within one input. The errors an input reports are
  reported again (exit status 1).

What it does:
  Adds the counts exactly (64-bit: bins, nan, below, above, the clipped counts, the pixels),
  then recomputes every statistic (mean, percentiles, clipped shares) from the summed counts;
  the statistics stored in the inputs are not read. Inputs of different layouts (8-bit and
  16-bit, gray and RGB, other --bins or --range) are never added together: each layout gets a
  sum of its own, each listing its files, as --sum does. The output is the --sum-only report
  in --format (table, json, jsonl, csv), so a merged JSON can be merged again. --exposure adds
  each sum's auto-exposure (inputs counted with --ev or --edges), as imghist --exposure does.
  A file named in several inputs is counted once per input and named in a warning on stderr
  (it was probably counted twice).
  An input that cannot be read, is not JSON, is a report of another tool or schema, or lacks
  a field is an error naming the input and the field: exit status 1 and nothing on stdout.

Examples:
  imghist --format jsonl --sum-only part1/ > p1.jsonl
  imghist --format json --sum part2/ > p2.json
  imghist merge p1.jsonl p2.json              the table of the whole dataset
  imghist merge --format json p1.jsonl p2.json > all.json
)HELP";

}  // namespace

std::string command_help_footer() {
    return kFooterCounting + io::trusted_format_names() + kFooterInputs + io::raw_format_names() + kFooterRest;
}

const char* merge_help_footer() { return kMergeFooter; }

}  // namespace imghist::cli
