// imghist: image histograms on the CPU and GPUs, bit-identical on every backend.
#pragma once

#include "imghist/engine.hpp"
#include "imghist/error.hpp"
#include "imghist/exact.hpp"
#include "imghist/exposure.hpp"
#include "imghist/image.hpp"
#include "imghist/request.hpp"
#include "imghist/result.hpp"
#include "imghist/sample_stats.hpp"
