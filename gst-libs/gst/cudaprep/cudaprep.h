/**
 * SECTION:cudaprep
 *
 * cudaprep's public API, plain C: the tensor sink (pull, DLPack export),
 * the metas (tensors and their items, geometry), the box helper, the device
 * memory accessors, sources added to and removed from a running batch,
 * a pipeline's kernels compiled ahead of time.
 * Build with `pkg-config --cflags --libs cudaprep-1.0`.
 */
#pragma once

#include "gstcudaprepbox.h"
#include "gstcudaprepdlpack.h"
#include "gstcudaprepmemory.h"
#include "gstcudaprepmeta.h"
#include "gstcudaprepsources.h"
#include "gstcudaprepwarm.h"
#include "gstcudatensorsample.h"
#include "gstcudatensorsink.h"
