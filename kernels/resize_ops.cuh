// The resize device headers, for includers not yet moved to the parts.
#pragma once

#include "antialias_ops.cuh"
#include "color_ops.cuh"
#include "orientation_ops.cuh"
#include "resample_ops.cuh"
#include "sampler_ops.cuh"
#include "source_ops.cuh"
#include "store_ops.cuh"
