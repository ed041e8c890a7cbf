// Precompiled for the plugin's sources (gst/cudaprep/meson.build): the
// system headers most of them parse. Force-included, so a source still
// includes what it uses. (No #pragma once: gcc warns about one in the
// header it precompiles.)

#include <cuda_runtime_api.h>

#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>
